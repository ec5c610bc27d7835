"""Cego (German tarot) as a decider (see ``domain.base`` for the shared face).

Cards are ints (see ``domain.cego.cards``).  Seats never change; play runs
counter-clockwise, written as increasing seat numbers.

Phases: ``created`` -> per round ``first_auction`` -> (``gegen``) ->
``second_auction`` (skipped after a Gegensolo) -> (``raise`` / ``gut_selbst``)
-> (``rauber_choice``) -> (``exchange``) -> ``play`` -> next round ... ->
``finished``.

The blind (``blind``) and the Legage (``legage``) are secret: the deal puts the
blind in the private part ``"nobody"`` (no seat receives it); the Legage is in
the challenger's private parts.  Both are published by ``RoundScored``.
Readings of the rules are in ``docs/rules/cego.md``.

The package: ``about`` (id, rules versions, options), ``cards``, ``contracts``
(the games and what they need and pay), ``state``, ``evolve``, ``deal``,
``auction``, ``exchange``, ``tricks``, ``scoring``, ``moves`` (legal and
timeout moves), ``view`` and ``decide``.  This module is the game's face.
"""

from domain.cego.about import (
    FOLDS_RULES,
    GAME_ID,
    HAND_OVER_EVENTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NOBODY,
    OPTIONS,
    RULES_VERSION,
    TITLE,
    WHOLE_SCORES,
)
from domain.cego.auction import auction_calls
from domain.cego.cards import (
    JUGLAR,
    SUITS,
    count_points,
    deck_for,
    full_deck,
    is_numeral,
    is_trump,
    label,
    strength,
    suit,
    value,
)
from domain.cego.contracts import FIXED, LEVELS, RAUBER_PAY, factor, qualifies, show_options, solo_allowed
from domain.cego.decide import decide
from domain.cego.evolve import evolve
from domain.cego.exchange import exchange_moves
from domain.cego.moves import legal_moves, timeout_move
from domain.cego.scoring import score_round
from domain.cego.state import active_after, initial_state, outcome, rules_of, to_act
from domain.cego.tricks import playable, trick_winner
from domain.cego.view import view

__all__ = [
    "FIXED",
    "FOLDS_RULES",
    "GAME_ID",
    "HAND_OVER_EVENTS",
    "JUGLAR",
    "LEVELS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NOBODY",
    "OPTIONS",
    "RAUBER_PAY",
    "RULES_VERSION",
    "WHOLE_SCORES",
    "SUITS",
    "TITLE",
    "active_after",
    "auction_calls",
    "count_points",
    "deck_for",
    "decide",
    "evolve",
    "exchange_moves",
    "factor",
    "full_deck",
    "initial_state",
    "is_numeral",
    "is_trump",
    "label",
    "legal_moves",
    "outcome",
    "playable",
    "qualifies",
    "rules_of",
    "score_round",
    "show_options",
    "solo_allowed",
    "strength",
    "suit",
    "timeout_move",
    "to_act",
    "trick_winner",
    "value",
    "view",
]
