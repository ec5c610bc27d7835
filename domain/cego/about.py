"""Cego: what the game is (id, title, rules versions, player bounds, options)."""

from __future__ import annotations

from typing import Any

GAME_ID = "cego"


TITLE = "Cego"


RULES_VERSION = "2"

# scores are whole numbers: every payment is a fixed amount or (points - 39) times a whole factor, and
# card points are whole; a reviewer's award or score correction gives whole numbers and keeps them integers
WHOLE_SCORES = True


# rules versions whose logs this module folds exactly as they were played; the
# state records the version its game was started under (``rules``) and the
# rules below branch on it where version 2 changed them (see docs/rules/cego.md):
# no Piccolo or Bettel after a Solo, each Zwei Verschiedene shown suit leads one
# of the first two tricks, the Legage counts for the challenger without a trick.
FOLDS_RULES = ("1",)


# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("RoundScored", "MatchEnded")


MIN_PLAYERS = 3


MAX_PLAYERS = 5


NOBODY = "nobody"


OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rounds": {
            "type": "integer",
            "default": 4,
            "minimum": 1,
            "maximum": 100,
            "description": "Number of rounds (deals) in the match.",
        },
        "dealer_sits_out_with_four": {
            "type": "boolean",
            "default": False,
            "description": "With four players the dealer sits each round out (three active players, "
            "51 cards) and pays or receives like a defender. With five players the dealer always sits out.",
        },
        "gut_selbst": {
            "type": "boolean",
            "default": False,
            "description": "Optional rule: when a Cego game is raised, the player holding it may accept "
            "(gut, the raiser plays) or play the raised game itself (selbst).",
        },
    },
}
