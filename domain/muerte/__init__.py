"""¡Muerte al rey! as a decider (see ``domain.base`` for the shared face).

Cards are strings (see ``domain.muerte.cards``).  2n players form two teams of
n, espadas and bastos.  Each seat shows one identity card (public) and holds
cards of its own team's deck (secret): the espadas team hides the king of oros
(``O12``), the bastos team the king of copas (``C12``).

Phases: ``created`` -> ``turn`` (a seat exchanges or accuses) -> ``giveback``
(the chosen teammate gives a card back) -> (``treason``) -> ``turn`` ... or
``turn`` -> ``discard`` (a wrong accusation: the accuser loses a card) ->
``turn`` ... until a game ends; then ``swapping`` / ``assigning`` (fixed
cards, section 3.3) or straight to the next deal; ``finished`` at the end of
the match.  ``between_games`` exists only inside one ``decide`` call.

The rules as implemented, with every reading chosen, are in
``docs/rules/muerte.md``.

The package: ``about`` (id, rules versions, options), ``cards``, ``state``,
``evolve``, ``deal``, ``turns`` (exchanges, treason, accusations),
``scoring``, ``identities`` (between games), ``moves`` (legal and timeout
moves), ``view`` and ``decide``.  This module is the game's face.
"""

from domain.muerte.about import (
    CONSTRAINTS,
    FOLDS_RULES,
    GAME_ID,
    HAND_OVER_EVENTS,
    IDENTITY_MODES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPTIONS,
    RULES_VERSION,
    TITLE,
    TREASON_PROMPTS,
    WHOLE_SCORES,
)

# helpers the rules tests reach for
from domain.muerte.cards import (
    DECK_MAX_PLAYERS,
    DECK_NUMBERS,
    IDENTITY_SUIT,
    KING,
    KINGS,
    MAIN_SUIT,
    TEAMS,
    _all_cards,  # noqa: F401
    identity_deck,
    number,
    team_deck,
    turn_order,
)
from domain.muerte.decide import decide
from domain.muerte.evolve import evolve
from domain.muerte.identities import game_winner
from domain.muerte.moves import legal_moves, timeout_move
from domain.muerte.scoring import game_points
from domain.muerte.state import duties, initial_state, must_accuse, outcome, team_of, teammates, to_act
from domain.muerte.view import view

__all__ = [
    "CONSTRAINTS",
    "DECK_MAX_PLAYERS",
    "DECK_NUMBERS",
    "FOLDS_RULES",
    "GAME_ID",
    "HAND_OVER_EVENTS",
    "IDENTITY_MODES",
    "IDENTITY_SUIT",
    "KING",
    "KINGS",
    "MAIN_SUIT",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTIONS",
    "RULES_VERSION",
    "WHOLE_SCORES",
    "TEAMS",
    "TITLE",
    "TREASON_PROMPTS",
    "decide",
    "duties",
    "evolve",
    "game_points",
    "game_winner",
    "identity_deck",
    "initial_state",
    "legal_moves",
    "must_accuse",
    "number",
    "outcome",
    "team_deck",
    "team_of",
    "teammates",
    "timeout_move",
    "to_act",
    "turn_order",
    "view",
]
