"""El Gran Dalmuti: what the game is (id, title, rules versions, player
bounds, options, roles).
"""

from __future__ import annotations

from typing import Any

GAME_ID = "dalmuti"


TITLE = "El Gran Dalmuti"


RULES_VERSION = "3"

# scores are whole points (one for each opponent still holding cards when a player goes out); a
# reviewer's award or score correction gives whole numbers and keeps them integers
WHOLE_SCORES = True


# rules versions whose logs this module folds exactly as they were played.  Version 3 seats a newcomer
# halfway between the Greater Dalmuti and the Greater Peon (version 2 let the Greater Dalmuti choose any
# Merchant slot); the events are the same, and a game of 1 or 2 keeps its own placings.
FOLDS_RULES = ("1", "2")


# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("HandEnded", "MatchEnded")


MIN_PLAYERS = 4


MAX_PLAYERS = 16


NAME_MAX = 100


OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "hands": {
            "type": "integer",
            "default": 3,
            "minimum": 1,
            "maximum": 100,
            "description": "Number of hands in the match.",
        },
        "first_deal_revolution": {
            "type": "boolean",
            "default": False,
            "description": "The first hand has an automatic revolution (no taxes); a Greater Peon "
            "holding both jesters may still declare a greater revolution.",
        },
        "reduced_deck": {
            "type": "boolean",
            "default": False,
            "description": "With 5 players the 12s are removed (68 cards); with 4 players the 12s "
            "and 11s (57 cards). No effect for other player counts.",
        },
        "scoring": {
            "type": "boolean",
            "default": True,
            "description": "A player going out scores 1 point per opponent still holding cards; the "
            "match is won on points. When false the match is ranked by the last hand's order of "
            "going out (points are still computed and reported). philanthropic_scoring needs it on.",
        },
        "philanthropic_scoring": {
            "type": "boolean",
            "default": False,
            "description": "An addition to scoring: at the end of a hand the Greater Dalmuti scores "
            "1 extra point if its Greater Peon climbed, the Lesser Dalmuti 1 if its Lesser Peon climbed. "
            "Refused together with scoring false (it does not turn scoring on).",
        },
        "merchant_exchange": {
            "type": "boolean",
            "default": False,
            "description": "During taxes the highest Merchant may swap one random card with another "
            "Merchant of its choice (needs at least two Merchants).",
        },
        "allow_joining": {
            "type": "boolean",
            "default": False,
            "description": "Newcomers may join; they enter at the start of the next hand as "
            "Merchants, placed by the Greater Dalmuti.",
        },
    },
    # Seed 004, Puntuación filantrópica: "Además de utilizar las reglas de puntuación anteriores"
    # (an addition to scoring): with scoring false, philanthropic_scoring must stay false
    "if": {"properties": {"scoring": {"const": False}}, "required": ["scoring"]},
    "then": {"properties": {"philanthropic_scoring": {"const": False}}},
}


# What a creation must satisfy beyond the player count and each option's schema, as JSON Schemas
# over {"player_count": n, "options": {...defaults filled in}} (GET /game-types): the if/then above.
CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {
        "id": "philanthropic-needs-scoring",
        "on": ["options"],
        "description": "philanthropic_scoring is an addition to scoring: it needs scoring true",
        "schema": {"properties": {"options": {"if": OPTIONS["if"], "then": OPTIONS["then"]}}},
    },
)


ROLES = ("greater_dalmuti", "lesser_dalmuti", "merchant", "lesser_peon", "greater_peon")


# Equal points are ranked by the order of going out in the final hand (docs/rules/dalmuti.md,
# "Scoring"): no two seats of a result share a place.
TIES_BROKEN = True
