"""Cego: the cards.

Cards are ints.  Trumps are 1..21 and the Juglar is 22 (the highest trump).
Suit cards are ``100 + 10 * suit + idx`` with suit 0 diamonds, 1 hearts,
2 spades, 3 clubs (the tie-break order, best first) and idx 0 king, 1 queen,
2 knight, 3 jack, 4..7 the numerals from strongest to weakest (red 1, 2, 3, 4;
black 10, 9, 8, 7).
"""

from __future__ import annotations

from domain.base import RuleViolation, int_list

JUGLAR = 22


SUITS = ("diamonds", "hearts", "spades", "clubs")


FIGURES = ("K", "Q", "C", "J")


RED_NUM = ("1", "2", "3", "4")


BLACK_NUM = ("10", "9", "8", "7")


def full_deck() -> list[int]:
    return list(range(1, 23)) + [100 + 10 * s + i for s in range(4) for i in range(8)]


def deck_for(active: int) -> list[int]:
    """54 cards for four active players; 51 for three (no 7 of clubs, 7 of spades, 4 of diamonds)."""
    d = full_deck()
    if active == 3:
        d = [c for c in d if c not in (137, 127, 107)]
    return d


def is_trump(c: int) -> bool:
    return c <= JUGLAR


def suit(c: int) -> int:
    return -1 if is_trump(c) else (c - 100) // 10


def idx(c: int) -> int:
    return (c - 100) % 10


def is_numeral(c: int) -> bool:
    return not is_trump(c) and idx(c) >= 4


def value(c: int) -> int:
    if is_trump(c):
        return 5 if c in (1, 21, JUGLAR) else 1
    return (5, 4, 3, 2, 1, 1, 1, 1)[idx(c)]


def strength(c: int) -> int:
    """Global order: any trump beats any suit card; equal suit ranks go by suit (diamonds best)."""
    if is_trump(c):
        return 100 + c
    return (7 - idx(c)) * 4 + (3 - suit(c))


def label(c: int) -> str:
    if c == JUGLAR:
        return "Juglar"
    if is_trump(c):
        return f"T{c}"
    s, i = suit(c), idx(c)
    name = FIGURES[i] if i < 4 else (RED_NUM if s < 2 else BLACK_NUM)[i - 4]
    return f"{name} of {SUITS[s]}"


def count_points(cards: list[int]) -> int:
    """Counted in pairs less one; an odd last card counts its own value (see docs)."""
    return sum(value(c) for c in cards) - len(cards) // 2


def _remove(hand: list[int], cards: list[int]) -> list[int]:
    h = list(hand)
    for c in cards:
        h.remove(c)
    return h


def _cards(command: dict, count: int) -> list[int]:
    cards = int_list(command.get("cards"), "cards", min_len=count, max_len=count)
    valid = set(full_deck())
    for c in cards:
        if c not in valid:
            raise RuleViolation("invalid-card", f"{c} is not a card (trumps 1..22, suit cards 100..137)", "invalid")
    if len(set(cards)) != len(cards):
        raise RuleViolation("invalid-card", "the same card is named twice", "invalid")
    return cards


def _in_hand(hand: list[int], cards: list[int]) -> None:
    for c in cards:
        if c not in hand:
            raise RuleViolation("card-not-in-hand", f"you do not hold {label(c)}")
