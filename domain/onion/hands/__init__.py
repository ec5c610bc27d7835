"""Cripple Mr Onion: the cards and the hand evaluator (pure, standard library only).

``cards`` encodes the 104 cards; ``plain`` values a hand in the base game
(``best_arrangement``, ``compare``); ``evaluate`` values it under the optional
modifiers, with ``profile`` (what each card may count), ``candidates`` (the
groupings its cards can form) and ``search`` (the best value).  The ranks and
every reading are in ``docs/rules/onion.md``.
"""

from domain.onion.hands.cards import (
    ARCH,
    ATUIN,
    DEATH,
    DECK_SIZE,
    FATE,
    FOOL,
    LADY,
    RANK_NAMES,
    SENDER,
    SPECIAL,
    SUITS,
    card,
    card_name,
    is_ace,
    is_picture,
    pack_of,
    rank_of,
    suit_of,
    value_of,
)
from domain.onion.hands.evaluate import evaluate, running_flush
from domain.onion.hands.plain import BAGELS, KINDS, ONION_BY_SIZE, ONIONS, RANK, best_arrangement, classify, compare

# helpers the evaluator's tests reach for
from domain.onion.hands.profile import (
    BAGEL_KINDS,
    ONION_KINDS,
    ONION_SIZE_KINDS,
    POS_BASE,
    POS_FOOL,
    SUB,
    SUB_ELEPHANTS,
    SUB_OCTAVO,
    _profile,  # noqa: F401
    elephant_points,
    kind_of_key,
)
from domain.onion.hands.search import _solve  # noqa: F401

__all__ = [
    "ARCH",
    "ATUIN",
    "BAGEL_KINDS",
    "BAGELS",
    "DEATH",
    "DECK_SIZE",
    "FATE",
    "FOOL",
    "KINDS",
    "LADY",
    "ONION_BY_SIZE",
    "ONION_KINDS",
    "ONION_SIZE_KINDS",
    "ONIONS",
    "POS_BASE",
    "POS_FOOL",
    "RANK",
    "RANK_NAMES",
    "SENDER",
    "SPECIAL",
    "SUB",
    "SUB_ELEPHANTS",
    "SUB_OCTAVO",
    "SUITS",
    "best_arrangement",
    "card",
    "card_name",
    "classify",
    "compare",
    "elephant_points",
    "evaluate",
    "is_ace",
    "is_picture",
    "kind_of_key",
    "pack_of",
    "rank_of",
    "running_flush",
    "suit_of",
    "value_of",
]
