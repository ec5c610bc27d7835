"""Cripple Mr Onion: what the game is (id, title, rules versions, player
bounds, the optional modifiers and the options schema).
"""

from __future__ import annotations

from typing import Any

GAME_ID = "onion"


TITLE = "Cripple Mr Onion"


RULES_VERSION = "3"


# rules versions whose logs this module folds exactly as they were played
FOLDS_RULES = ("1", "2")


# the rules version of a state that records none: states folded before the
# version was recorded in the state, which were all of version 1 or 2
_UNRECORDED_RULES = "2"


# scores are whole chips (final bankrolls): a Pot is never split (a complete tie goes to seniority) and
# every Stake, bet, raise, bid and bought card is whole chips, so a reviewer's award or score
# correction gives whole numbers and keeps them integers
WHOLE_SCORES = True


# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("RoundEnded", "MatchEnded")


MIN_PLAYERS = 2


MAX_PLAYERS = 7


# the optional modifiers of seed 002 (#0..#11), in order; see docs/rules/onion.md
MODIFIERS = (
    (
        "crippling",
        "#0 Crippling: a nine-card running flush cripples a Great Onion and wins; a ten-card one "
        "out-cripples it and may also cripple a Lesser Onion.",
    ),
    (
        "null_eights",
        "#1 Null eights: while eights are not wild an eight may count zero to lengthen an onion "
        "(fewer null eights wins a tie); the round after one is played, eights are wild.",
    ),
    (
        "wild_crippling",
        "#2 Wild crippling: with wild eights a running flush cripples only an Onion holding at "
        "least as many wild cards.",
    ),
    ("octavo", "#3 Octavo: with wild eights, eight eights are a Lesser Onion above all others, never crippled."),
    (
        "lady",
        "#4 The Lady (queen of spades): declared and replaced by one of the next two cards; with wild "
        "eights it devalues one eleven of every other hand.",
    ),
    (
        "fate",
        "#5 Fate (king of cups): after the Lady, declared and replaced, zeroing the aces of the Lady's "
        "player; with wild eights it stops eights being wild.",
    ),
    ("great_atuin", "#6 Great A'Tuin (queen of coins): declared to move eight points from one card to another."),
    (
        "elephants",
        "#7 The Elephants: four nines, tens or wild eights declared with the queen of coins make a "
        "Double Onion (below any other Double Onion).",
    ),
    (
        "sender_of_eights",
        "#8 The Sender of Eights (jack of diamonds): when visible, whoever plays eights loses "
        "its aces; with wild eights it is declared when dealt and zeroes all aces.",
    ),
    (
        "death",
        "#9 Death (king of swords): when visible, one picture of every hand with two or more takes no "
        "part in a Double (with wild eights also Triple) Onion.",
    ),
    (
        "archchancellor",
        "#10 The Archchancellor (jack of staves): who plays it plays no eight as eight; declared, "
        "it brings out Death and a card from everyone, or turns wild.",
    ),
    ("fool", "#11 The Fool (jack of clubs): declared just before Showdown, bagels and Onions swap places."),
)


OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rounds": {
            "type": "integer",
            "default": 10,
            "minimum": 1,
            "maximum": 500,
            "description": "Rounds in the match (it ends sooner when fewer than two players can ante).",
        },
        "bankroll": {
            "type": "integer",
            "default": 50,
            "minimum": 1,
            "maximum": 100000,
            "description": "Each player's starting bankroll, in Stakes.",
        },
        "stake": {
            "type": "integer",
            "default": 10,
            "minimum": 1,
            "maximum": 1000000,
            "description": "The Stake in chips: the ante, and the price of one bought card.",
        },
        "max_raise": {
            "type": "integer",
            "default": 5,
            "minimum": 1,
            "maximum": 1000,
            "description": (
                "The largest raise, as a multiple of the Stake; also the largest bet the Dealer names "
                "and the largest extra bet."
            ),
        },
        **{name: {"type": "boolean", "default": False, "description": text} for name, text in MODIFIERS},
    },
}
