"""Cripple Mr Onion: the cards.

A card is an int 0..103: ``pack = c // 52`` (0 French, 1 Spanish),
``suit = c % 52 // 13`` (the paired flush suit: 0 clubs/swords, 1 spades/staves,
2 hearts/cups, 3 diamonds/coins) and ``rank = c % 13 + 1`` (1 ace, 2..10,
11 jack, 12 queen, 13 king).  Aces are worth 1 or 11 (chosen per grouping),
tens and pictures 10.  The special cards of the optional modifiers are named
here too.
"""

from __future__ import annotations

DECK_SIZE = 104


SUITS = (("clubs", "swords"), ("spades", "staves"), ("hearts", "cups"), ("diamonds", "coins"))


RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def rank_of(c: int) -> int:
    return c % 13 + 1


def suit_of(c: int) -> int:
    return c % 52 // 13


def pack_of(c: int) -> int:
    return c // 52


def value_of(c: int) -> int:
    """Face value with an ace as 1 (it may also count 11)."""
    r = c % 13 + 1
    return 10 if r >= 10 else r


def is_picture(c: int) -> bool:
    return c % 13 + 1 >= 11


def is_ace(c: int) -> bool:
    return c % 13 == 0


def card_name(c: int) -> str:
    r = rank_of(c)
    return f"{RANK_NAMES.get(r, str(r))} of {SUITS[suit_of(c)][pack_of(c)]}"


def card(rank: int, suit: int = 0, pack: int = 0) -> int:
    """The card id of ``rank`` (1..13) in paired suit ``suit`` (0..3) of pack ``pack`` (0 or 1)."""
    return pack * 52 + suit * 13 + rank - 1


LADY = card(12, 1, 0)  # queen of spades


FATE = card(13, 2, 1)  # king of cups


ATUIN = card(12, 3, 1)  # queen of coins


SENDER = card(11, 3, 0)  # jack of diamonds


DEATH = card(13, 0, 1)  # king of swords


ARCH = card(11, 1, 1)  # jack of staves


FOOL = card(11, 0, 0)  # jack of clubs


SPECIAL = {
    LADY: "lady",
    FATE: "fate",
    ATUIN: "atuin",
    SENDER: "sender",
    DEATH: "death",
    ARCH: "archchancellor",
    FOOL: "fool",
}
