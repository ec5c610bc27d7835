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

The package, each module importing only those before it: ``about`` (id,
rules versions, options), ``hands`` (the cards and the hand evaluator),
``state`` (the initial state, the modifier state a round starts with, and
shared readings), ``modifiers`` (what the modifiers in force mean, the
declarations open and the folds of their events), ``evolve``, ``outbox``,
``rounds`` (a round's flow), ``showdown``, ``betting``, ``drawing`` (the draw
and the second deal), ``dealership`` (the Dealer's choices, the auction and the
extra bets), ``moves`` (legal and timeout moves), ``modifier_moves`` (deciding
the modifiers' moves), ``view`` and ``decide``.  This module is the game's
face.
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
    WHOLE_SCORES,
)

# helpers the rules tests reach for
from domain.onion.decide import (
    _DECIDERS,  # noqa: F401
    decide,
)
from domain.onion.evolve import evolve
from domain.onion.modifiers.state import _arrange, _ctx, _disclosed, _wild  # noqa: F401
from domain.onion.moves import legal_moves, timeout_move
from domain.onion.state import (
    ROLE_NAMES,
    _mods_round,  # noqa: F401
    initial_state,
    outcome,
    roles,
    to_act,
)
from domain.onion.view import view

__all__ = [
    "FOLDS_RULES",
    "GAME_ID",
    "HAND_OVER_EVENTS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MODIFIERS",
    "OPTIONS",
    "RULES_VERSION",
    "ROLE_NAMES",
    "TITLE",
    "WHOLE_SCORES",
    "decide",
    "evolve",
    "initial_state",
    "legal_moves",
    "outcome",
    "roles",
    "timeout_move",
    "to_act",
    "view",
]
