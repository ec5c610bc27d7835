"""El Gran Dalmuti as a decider (see ``domain.base`` for the shared face).

Cards are ints: ranks 1..12 (rank n has n copies, lower is better) and 13 for
a jester (see ``domain.dalmuti.cards``).  ``seat`` is the index into
``players`` and never changes; ``order`` lists the seats clockwise from the
Greater Dalmuti and changes every hand.

Phases: ``created`` -> (``placing``) -> ``revolution`` -> ``taxes``? ->
``play`` -> next hand ... -> ``finished``.  ``between_hands`` exists only
inside one ``decide`` call (between ``HandEnded`` and ``HandDealt``).

Rules version 2 asks every seat at once after every deal whether it declares
a revolution, so that nothing public tells who holds both jesters.  Version 1
asked the holder alone (the seat was named in ``HandDealt``); a game keeps the
version it started under (``state["rules"]``, taken from the envelopes) and
its log folds, and its moves are decided, as they were under that version.

The rules as implemented, with every reading chosen, are in
``docs/rules/dalmuti.md``.

The package: ``about`` (id, rules versions, options), ``cards``, ``state``,
``evolve``, ``deal`` (seating, deal, end of a hand, newcomers),
``revolution``, ``taxes``, ``tricks``, ``moves`` (legal and timeout moves),
``view`` and ``decide``.  This module is the game's face.
"""

from domain.dalmuti.about import (
    CONSTRAINTS,
    FOLDS_RULES,
    GAME_ID,
    HAND_OVER_EVENTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME_MAX,
    OPTIONS,
    ROLES,
    RULES_VERSION,
    TIES_BROKEN,
    TITLE,
    WHOLE_SCORES,
)

# helpers the rules tests reach for
from domain.dalmuti.cards import (
    JESTER,
    _remove,  # noqa: F401
    deck_for,
    set_rank,
)
from domain.dalmuti.decide import decide
from domain.dalmuti.evolve import evolve
from domain.dalmuti.moves import legal_moves, timeout_move
from domain.dalmuti.state import initial_state, may_declare, outcome, role_at, to_act
from domain.dalmuti.view import view

__all__ = [
    "CONSTRAINTS",
    "FOLDS_RULES",
    "GAME_ID",
    "HAND_OVER_EVENTS",
    "JESTER",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME_MAX",
    "OPTIONS",
    "ROLES",
    "RULES_VERSION",
    "WHOLE_SCORES",
    "TIES_BROKEN",
    "TITLE",
    "deck_for",
    "decide",
    "evolve",
    "initial_state",
    "legal_moves",
    "may_declare",
    "outcome",
    "role_at",
    "set_rank",
    "timeout_move",
    "to_act",
    "view",
]
