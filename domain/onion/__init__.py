"""Cripple Mr Onion (base game and the optional modifiers #0-#11) as a decider (see ``domain.base``).

Cards are ints 0..103 (see ``domain.onion.hands``).  Money is in chips:
``sum(bankrolls) + pot + sum(front)`` never changes.  Every bet, raise, bought
card and auction bid goes straight into the Pot; since rules version 3 an
extra bet lies in front of its player (``front``) until the Dealer or a new
Dealer matches the extra bets, and goes back to its player when nobody does
(under rules 1 and 2 it went straight into the Pot).

A round: ``RoundStarted`` (ante + first five) -> ``draw`` -> betting round 1
(parts 1-3: ``bet_name`` -> ``bet_respond`` -> ``bet_dealer``?) ->
``DealerDealt`` -> ``buy``/``extra`` per player -> ``dealer_extra`` ->
(``offer`` ...) -> betting round 2 (parts 1-2) -> showdown.  A Dealer who folds
(facing a collective raise or, since rules version 3, unmatched extra bets)
opens an ``auction``.  Readings are in ``docs/rules/onion.md``.  With any
modifier switched on the Showdown becomes a sequence of duels with
declarations (see ``domain.onion.modifiers``).

The package: ``about`` (id, rules versions, options), ``hands`` (the cards and
the hand evaluator), ``state`` (the initial state and shared readings),
``evolve``, ``rounds`` (a round's flow), ``drawing`` (the draw and the second
deal), ``betting``, ``dealership`` (the Dealer's choices, the auction and the
extra bets), ``showdown``, ``modifiers``, ``moves`` (legal and timeout moves),
``view`` and ``decide``.  This module is the game's face.
"""

from domain.onion.about import (
    FOLDS_RULES,
    GAME_ID,
    HAND_OVER_EVENTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MODIFIERS,
    OPTIONS,
    RULES_VERSION,
    TITLE,
)
from domain.onion.decide import decide
from domain.onion.evolve import evolve
from domain.onion.moves import legal_moves, timeout_move
from domain.onion.state import ROLE_NAMES, initial_state, outcome, roles, to_act
from domain.onion.view import view

# helpers the rules tests reach for
from domain.onion.decide import _DECIDERS  # noqa: F401
from domain.onion.modifiers.state import _arrange, _ctx, _disclosed, _mods_round, _wild  # noqa: F401

__all__ = [
    "FOLDS_RULES", "GAME_ID", "HAND_OVER_EVENTS", "MAX_PLAYERS", "MIN_PLAYERS", "MODIFIERS", "OPTIONS",
    "RULES_VERSION", "ROLE_NAMES", "TITLE",
    "decide", "evolve", "initial_state", "legal_moves", "outcome", "roles", "timeout_move", "to_act", "view",
]
