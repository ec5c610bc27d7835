"""Cego: the games a challenger may play (the Cego levels, Ulti, Piccolo,
Bettel, Räuber), what a hand needs for them and what they pay.
"""

from __future__ import annotations

from itertools import combinations

from domain.cego.cards import is_numeral, is_trump, suit

LEVELS = ("cego", "eine", "eine_leere", "zwei_leere", "zwei_verschiedene", "pagat")


FIXED = {"ulti": 80, "piccolo": 40, "bettel": 30}


RAUBER_PAY = 40


def solo_allowed(hand: list[int]) -> bool:
    trumps = [c for c in hand if is_trump(c)]
    if len(trumps) >= 8:
        return True
    suits = {suit(c) for c in hand if not is_trump(c)}
    return len(trumps) == 7 and sum(1 for c in trumps if c > 17) >= 2 and len(suits) <= 2


def show_options(hand: list[int], level: str) -> list[list[int]]:
    """The sets of cards the challenger may show for a Leere game or Pagat."""
    suited = sorted(c for c in hand if not is_trump(c))
    nums = [c for c in suited if is_numeral(c)]
    if level == "pagat":
        return [[1]] if 1 in hand else []
    if level == "eine_leere":
        return [[c] for c in (nums or suited)]
    if level in ("zwei_leere", "zwei_verschiedene"):
        same = level == "zwei_leere"

        def pairs(cs):
            return [list(p) for p in combinations(cs, 2) if (suit(p[0]) == suit(p[1])) == same]

        return pairs(nums) or pairs(suited)
    return []


def qualifies(hand: list[int], level: str) -> bool:
    if level in ("cego", "eine"):
        return True
    return bool(show_options(hand, level))


def factor(contract: dict, challenger_won: bool) -> int:
    if contract["game"] == "solo":
        return 2 if challenger_won else 1
    return LEVELS.index(contract["game"]) + 1 + (1 if contract.get("gegensolo") else 0)
