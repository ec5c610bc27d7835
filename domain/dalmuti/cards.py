"""El Gran Dalmuti: the cards and the sets played.

Cards are ints: ranks 1..12 (rank n has n copies, lower is better) and 13 for
a jester (two in the deck).  A jester played with other cards takes their rank;
played alone (one or two jesters) it is rank 13.
"""

from __future__ import annotations

from collections import Counter

from domain.base import RuleViolation, int_list

JESTER = 13


def deck_for(n_players: int, reduced: bool) -> list[int]:
    """The deck for a hand with ``n_players`` players (sorted)."""
    top = 12
    if reduced and n_players == 5:
        top = 11
    elif reduced and n_players == 4:
        top = 10
    cards = [r for r in range(1, top + 1) for _ in range(r)]
    return cards + [JESTER, JESTER]


def set_rank(cards: list[int]) -> int | None:
    """The effective rank of a set, or None if it mixes ranks."""
    ranks = {c for c in cards if c != JESTER}
    if len(ranks) > 1:
        return None
    return ranks.pop() if ranks else JESTER


def _next_holder(order: list[int], hands: list[list[int]], after: int) -> int | None:
    """The next seat clockwise from ``after`` that still holds cards."""
    n = len(order)
    pos = order.index(after)
    for i in range(1, n + 1):
        s = order[(pos + i) % n]
        if hands[s]:
            return s
    return None


def _cards(command: dict, field: str = "cards", min_len: int = 1) -> list[int]:
    cards = int_list(command.get(field), field, min_len=min_len, max_len=200)
    for c in cards:
        if not 1 <= c <= JESTER:
            raise RuleViolation(
                "invalid-card", f"'{field}' holds {c}: cards are ranks 1..12 or 13 for a jester", "invalid"
            )
    return sorted(cards)


def _require_in_hand(hand: list[int], cards: list[int]) -> None:
    have = Counter(hand)
    for c, k in Counter(cards).items():
        if have[c] < k:
            what = f"{k} jester(s)" if c == JESTER else f"{k} card(s) of rank {c}"
            raise RuleViolation("cards-not-in-hand", f"you do not hold {what}: you may only use cards in your hand")


def _remove(hand: list[int], cards: list[int]) -> list[int]:
    h = list(hand)
    for c in cards:
        h.remove(c)
    return h
