"""Cripple Mr Onion under modifiers: the keys a value is made of, and what
each card of a hand may count (its profile) under the modifiers in force.

A value under modifiers is a list of *keys* ``position * 64 + sub`` (``sub`` is
32 but for fewer null eights (#1i: 32 - nulls), the Octavo (#3: above other
Lesser Onions) and the Elephants' Double Onion (#7: below any other)).
``POS_BASE`` and ``POS_FOOL`` (#11) give each grouping kind its position.
"""

from __future__ import annotations

from domain.onion.hands.cards import ARCH, ATUIN, is_ace, rank_of, suit_of, value_of
from domain.onion.hands.plain import RANK

SUB = 32


SUB_OCTAVO = 40


SUB_ELEPHANTS = 24


POS_BASE = dict(RANK)


# #11: two-card onion <-> bagel, Double/Triple/Lesser Onion <-> double/triple/lesser
# bagel, the great bagel just below the Great Onion (its old place stays empty)
POS_FOOL = dict(RANK)
for _a, _b in (
    ("two_card_onion", "bagel"),
    ("double_onion", "double_bagel"),
    ("triple_onion", "triple_bagel"),
    ("lesser_onion", "lesser_bagel"),
):
    POS_FOOL[_a], POS_FOOL[_b] = RANK[_b], RANK[_a]
POS_FOOL["great_bagel"] = RANK["great_onion"]
POS_FOOL["great_onion"] = RANK["great_onion"] + 1


ONION_KINDS = (None, "two_card_onion", "double_onion", "triple_onion", "lesser_onion", "great_onion")


BAGEL_KINDS = (None, "bagel", "double_bagel", "triple_bagel", "lesser_bagel", "great_bagel")


ONION_SIZE_KINDS = {
    2: "two_card_onion",
    3: "three_card_onion",
    4: "four_card_onion",
    5: "five_card_onion",
    6: "six_card_onion",
    7: "seven_card_onion",
}


_SUMS = (1 << 22) - 1  # sums 0..21


def kind_of_key(key: int, fool: bool = False) -> str:
    pos = key // 64
    table = POS_FOOL if fool else POS_BASE
    for k, p in table.items():
        if p == pos:
            return k
    raise ValueError(key)


class _Prof:
    """Per-card abilities of a hand under the modifiers (parallel lists)."""

    __slots__ = ("cards", "vals", "nul", "ook", "pic", "a11", "suits", "ranks", "wild", "weight", "picture")

    def __init__(self, cards: list[int]):
        self.cards = cards
        n = len(cards)
        self.vals: list[tuple[int, ...]] = [()] * n  # values it may count (onions, flushes, bagels)
        self.nul = [False] * n  # may count zero in an onion (#1)
        self.ook = [True] * n  # may stand in an onion at all
        self.pic = [False] * n  # may be the picture of a pontoon
        self.a11 = [False] * n  # may be the ace (as eleven) of a pontoon
        self.suits = [0] * n  # bitmask of paired suits for flushes
        self.ranks = [0] * n  # bitmask of denominations (royals)
        self.wild = [False] * n
        self.weight = [False] * n  # a wild eight (Wild Royal, Octavo)
        self.picture = [False] * n  # a picture card for Death (#9)

    def copy(self) -> _Prof:
        p = _Prof(self.cards)
        for f in self.__slots__[1:]:
            setattr(p, f, list(getattr(self, f)))
        return p


def elephant_points(cards: list[int], wild: list[bool], limited: bool) -> int | None:
    """#7: the fewest points the queen of coins must give so that these four
    cards make two pictures (10) and two aces (11); None if they cannot.  A ten
    is never a picture of an Onion (the seed's note to #7): only a nine shifted
    up, or a wild eight, stands for one, so a ten can only be made an ace."""
    best = None
    for aces in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
        need = 0
        for i, c in enumerate(cards):
            target = 11 if i in aces else 10
            if wild[i]:
                if limited and target == 11:
                    break
                continue
            v = value_of(c)
            if v > target or (target == 10 and v == 10):  # a ten may not stand for a picture
                break
            need += target - v
        else:
            if best is None or need < best:
                best = need
    return best


def _profile(cards: list[int], mods: dict) -> tuple[_Prof, list[str]]:
    p = _Prof(cards)
    notes: list[str] = []
    wild8 = bool(mods.get("wild"))
    limited = bool(mods.get("wild_limited"))
    shift = mods.get("shift") or None
    eleph = list(mods.get("elephants") or [])
    eleph_need = None
    if eleph and ATUIN in cards and all(c in cards for c in eleph):
        eleph_need = elephant_points(eleph, [wild8 and rank_of(c) == 8 for c in eleph], limited)
    for i, c in enumerate(cards):
        r = rank_of(c)
        own = 1 << r
        p.suits[i] = 1 << suit_of(c)
        p.ranks[i] = own
        if (wild8 and r == 8) or (mods.get("jack_wild") and c == ARCH):
            vals = range(2, 11) if (limited and r == 8) else range(1, 12)
            p.vals[i] = tuple(vals)
            p.wild[i] = True
            p.weight[i] = r == 8
            p.pic[i] = True
            p.a11[i] = 11 in vals
            p.suits[i] = 0b1111
            p.ranks[i] = 0b11111111111110 & ~(2 if limited and r == 8 else 0)
            continue
        if shift and c in shift:
            v = value_of(c) if c != shift[0] or not is_ace(c) else 11
            nv = v - 8 if c == shift[0] else v + 8
            p.vals[i] = (nv,)
            p.pic[i] = p.picture[i] = nv == 10
            p.a11[i] = nv == 11
            continue
        if c == ATUIN and eleph_need is not None:
            nv = 10 - eleph_need
            p.vals[i] = (nv,)
            p.pic[i] = p.picture[i] = nv == 10
            continue
        if r == 1:
            if mods.get("zero_aces"):
                p.vals[i] = (0,)
                p.ook[i] = False
            else:
                p.vals[i] = (1, 11)
                p.a11[i] = True
            continue
        if r == 8:
            p.vals[i] = (8,)
            p.nul[i] = bool(mods.get("null"))
            continue
        if eleph_need is not None and r in (9, 10) and c not in eleph:
            p.vals[i] = (value_of(c), r - 8)  # #7: a spare nine may count one, a ten two
            continue
        p.vals[i] = (value_of(c),)
        p.pic[i] = p.picture[i] = r >= 11
    return p, notes
