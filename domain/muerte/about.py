"""¡Muerte al rey!: what the game is (id, title, rules versions, player
bounds, options).
"""

from __future__ import annotations

from typing import Any

from domain.muerte.cards import DECK_MAX_PLAYERS, DECK_NUMBERS

GAME_ID = "muerte"


TITLE = "¡Muerte al rey!"


RULES_VERSION = "2"

# scores are whole points (the scoring table of 3.2); a reviewer's award or score correction gives whole
# numbers and keeps them integers
WHOLE_SCORES = True


# rules versions whose logs this module folds exactly as they were played.  Version 2: a match of one
# game is won as the game is (the winning team, the discoverer of a treason, nobody after a double
# treason); version 1 named the seats with the best points of section 3.2 even then.
FOLDS_RULES = ("1", "2")


# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("GameEnded", "MatchEnded")


MIN_PLAYERS = 6


MAX_PLAYERS = 16


# who is asked after an exchange under treason (option treason_prompt)
TREASON_PROMPTS = ("match", "every")


IDENTITY_MODES = ("random", "fixed", "winner_swaps", "fixed_teams", "team_chooses", "opponents_choose")


OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "deck": {
            "type": "string",
            "enum": list(DECK_NUMBERS),
            "default": "spanish40",
            "description": "spanish40 (1-7, sota, caballo, rey: 6 to 12 players) or spanish48 (with the 8s and "
            "9s: up to 16 players).",
        },
        "treason": {
            "type": "boolean",
            "default": False,
            "description": "Treason (3.1): a player who receives in an exchange a card of their identity "
            "card's number may denounce the giver at once; the game then ends and only the discoverer wins.",
        },
        "treason_prompt": {
            "type": "string",
            "enum": list(TREASON_PROMPTS),
            "default": "every",
            "description": "With treason: who is asked, after an exchange, whether to denounce. every (the "
            "default): both players of every exchange, so that nobody learns whether either may denounce (one "
            "more decision for each, at every exchange); match: only a player who received a card of their "
            "identity card's number, which tells the table which card changed hands (a team's deck holds one "
            "card of each identity number).",
        },
        "games": {
            "type": "integer",
            "default": 1,
            "minimum": 1,
            "maximum": 100,
            "description": "Number of games in the match; points (3.2) are summed over them.",
        },
        "identity_mode": {
            "type": "string",
            "enum": list(IDENTITY_MODES),
            "default": "random",
            "description": "How identity cards are assigned from the second game on (3.3): random (dealt "
            "again), fixed (kept), winner_swaps (from the player before the winner backwards, each swaps "
            "its card with another player), fixed_teams (teams kept, cards shuffled within each), "
            "team_chooses (each team places its own cards), opponents_choose (each team places the "
            "opponents' cards).",
        },
    },
}


# What a creation must satisfy beyond the player count and each option's schema, as JSON Schemas
# over {"player_count": n, "options": {...defaults filled in}}; each id is the rule _d_start refuses
# with.  Seed 001, 2.1: "El número de jugadores ha de ser par. Con la baraja española clásica de 40
# cartas, podrán participar de 6 a 12 jugadores."
CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {
        "id": "odd-player-count",
        "on": ["player_count"],
        "description": "the number of players must be even (two teams of equal size)",
        "schema": {"properties": {"player_count": {"multipleOf": 2}}},
    },
    {
        "id": "deck-too-small",
        "on": ["player_count", "options"],
        "description": "a deck serves so many players: "
        + ", ".join(f"{deck} up to {most}" for deck, most in DECK_MAX_PLAYERS.items()),
        "schema": {
            "allOf": [
                {
                    "if": {
                        "properties": {"options": {"properties": {"deck": {"const": deck}}, "required": ["deck"]}},
                        "required": ["options"],
                    },
                    "then": {"properties": {"player_count": {"maximum": most}}},
                }
                for deck, most in DECK_MAX_PLAYERS.items()
            ]
        },
    },
)
