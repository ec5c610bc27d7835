"""Cripple Mr Onion: the hand evaluator (pure, standard library only).

A card is an int 0..103: ``pack = c // 52`` (0 French, 1 Spanish),
``suit = c % 52 // 13`` (the paired flush suit: 0 clubs/swords, 1 spades/staves,
2 hearts/cups, 3 diamonds/coins) and ``rank = c % 13 + 1`` (1 ace, 2..10,
11 jack, 12 queen, 13 king).  Aces are worth 1 or 11 (chosen per grouping),
tens and pictures 10.

``best_arrangement(cards)`` sorts a hand into disjoint groupings so that its
value (the list of grouping ranks, highest first) is as great as possible;
``compare(a, b)`` compares two such values.  The ranks and every reading are in
``docs/rules/onion.md``.
"""

from __future__ import annotations

import functools
from typing import Any

DECK_SIZE = 104
SUITS = (("clubs", "swords"), ("spades", "staves"), ("hearts", "cups"), ("diamonds", "coins"))
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}

# grouping kinds, lowest to highest (multiple bagels merge into one grouping,
# several picture+ace pairs into one Onion)
KINDS = (
    "bagel",
    "double_bagel",
    "triple_bagel",
    "lesser_bagel",
    "great_bagel",
    "two_card_onion",
    "broken_flush",
    "three_card_onion",
    "flush",
    "four_card_onion",
    "broken_royal",
    "five_card_onion",
    "royal",
    "six_card_onion",
    "wild_royal",  # only with wild eights (a modifier): never formed by the base game
    "seven_card_onion",
    "double_onion",
    "triple_onion",
    "lesser_onion",
    "great_onion",
)
RANK = {k: i + 1 for i, k in enumerate(KINDS)}
ONION_BY_SIZE = {2: RANK["two_card_onion"], 3: RANK["three_card_onion"], 4: RANK["four_card_onion"],
                 5: RANK["five_card_onion"], 6: RANK["six_card_onion"], 7: RANK["seven_card_onion"]}
BAGELS = (None, RANK["bagel"], RANK["double_bagel"], RANK["triple_bagel"], RANK["lesser_bagel"],
          RANK["great_bagel"])
ONIONS = (None, RANK["two_card_onion"], RANK["double_onion"], RANK["triple_onion"], RANK["lesser_onion"],
          RANK["great_onion"])


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


def _can_sum(base: int, aces: int, lo: int, hi: int) -> bool:
    """Some choice of aces (each +10 when worth 11) puts the total in [lo, hi]."""
    return any(lo <= base + 10 * k <= hi for k in range(aces + 1))


def classify(cards: list[int]) -> str | None:
    """The best grouping kind these cards form as one grouping (bagels and
    picture+ace pairs included), or None."""
    n = len(cards)
    if n < 2:
        return None
    base = sum(value_of(c) for c in cards)
    aces = sum(1 for c in cards if is_ace(c))
    ranks = sorted(rank_of(c) for c in cards)
    best: str | None = None
    if n == 2:
        if aces == 1 and any(is_picture(c) for c in cards):
            return "two_card_onion"  # a pontoon; several of them make an Onion
        if _can_sum(base, aces, 21, 21):
            return "two_card_onion"
        if _can_sum(base, aces, 20, 20):
            return "bagel"
        return None
    if n <= 7 and _can_sum(base, aces, 21, 21):
        best = {3: "three_card_onion", 4: "four_card_onion", 5: "five_card_onion", 6: "six_card_onion",
                7: "seven_card_onion"}[n]
        if ranks == [7, 7, 7]:
            return "royal"
        if ranks == [6, 7, 8]:
            return "broken_royal"
    if _can_sum(base, aces, 16, 21):
        counts = [0, 0, 0, 0]
        for c in cards:
            counts[suit_of(c)] += 1
        top = max(counts)
        kind = "flush" if top == n else "broken_flush" if top == n - 1 else None
        if kind and (best is None or RANK[kind] > RANK[best]):
            best = kind
    return best


# ------------------------------------------------------------------ search


def _groupings(cards: list[int]) -> tuple[list[list[tuple[int, int]]], list[list[int]], list[list[int]]]:
    """Per lowest card index: the (mask, rank) of every grouping other than
    bagels and pontoons; and the masks of bagels and pontoons likewise."""
    n = len(cards)
    vals = [value_of(c) for c in cards]
    ace = [is_ace(c) for c in cards]
    pic = [is_picture(c) for c in cards]
    others: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    bagels: list[list[int]] = [[] for _ in range(n)]
    pontoons: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            m = (1 << i) | (1 << j)
            if (ace[i] and pic[j]) or (ace[j] and pic[i]):
                pontoons[i].append(m)
                continue
            s = vals[i] + vals[j]
            if s == 20 or (s == 10 and (ace[i] or ace[j])):  # PP/TP/TT or 9 + ace as 11
                bagels[i].append(m)
            elif s == 11 and (ace[i] or ace[j]):  # T + A
                others[i].append((m, RANK["two_card_onion"]))
    # Groupings of three or more cards: every one needs a face total (aces as
    # 1) of at most 21, so walk subsets in ascending face value and stop a
    # branch as soon as the total passes 21.  Candidates are then handed out in
    # ascending mask order, as the search's tie-breaking depends on that order.
    found: list[tuple[int, int]] = []
    order = sorted(range(n), key=lambda k: vals[k])
    ovals = [vals[k] for k in order]
    obits = [1 << k for k in order]
    oace = [1 if ace[k] else 0 for k in order]
    osuit = [cards[k] % 52 // 13 for k in order]
    orank = [cards[k] % 13 + 1 for k in order]
    counts = [0, 0, 0, 0]
    chosen: list[int] = []
    r_royal, r_broken_royal = RANK["royal"], RANK["broken_royal"]
    r_flush, r_broken_flush = RANK["flush"], RANK["broken_flush"]
    append = found.append

    def walk(start: int, mask: int, size: int, base: int, aces: int) -> None:
        for q in range(start, n):
            b = base + ovals[q]
            if b > 21:
                return
            s = osuit[q]
            counts[s] += 1
            chosen.append(q)
            m = mask | obits[q]
            sz = size + 1
            a = aces + oace[q]
            if sz >= 3:
                best = 0
                gap = 21 - b
                if sz <= 7 and gap % 10 == 0 and gap // 10 <= a:
                    best = ONION_BY_SIZE[sz]
                    if sz == 3:
                        rs = sorted(orank[x] for x in chosen)
                        if rs == [7, 7, 7]:
                            best = r_royal
                        elif rs == [6, 7, 8]:
                            best = r_broken_royal
                k = 0 if b >= 16 else (25 - b) // 10  # fewest aces counted 11 to reach 16
                if best < r_broken_royal and k <= a and b + 10 * k <= 21:
                    top = max(counts)
                    kr = r_flush if top == sz else r_broken_flush if top == sz - 1 else 0
                    if kr > best:
                        best = kr
                if best:
                    append((m, best))
            walk(q + 1, m, sz, b, a)
            chosen.pop()
            counts[s] -= 1

    walk(0, 0, 0, 0, 0)
    found.sort()
    for m, r in found:
        others[(m & -m).bit_length() - 1].append((m, r))
    return others, bagels, pontoons


def best_arrangement(cards: list[int]) -> dict[str, Any]:
    """The best way to sort ``cards`` into groupings.

    Returns ``{"value": [ranks, highest first], "groupings": [{"kind", "cards"}],
    "unused": [cards]}``.
    """
    cards = sorted(cards)
    n = len(cards)
    others, bagels, pontoons = _groupings(cards)
    # per lowest card: (other cards of the grouping, grouping mask, rank or 0
    # for a bagel or -1 for a pontoon), in the order the search must try them
    cands: list[list[tuple[int, int, int]]] = [
        [(gm ^ (1 << low), gm, r) for gm, r in others[low]]
        + [(gm ^ (1 << low), gm, 0) for gm in bagels[low]]
        + [(gm ^ (1 << low), gm, -1) for gm in pontoons[low]]
        for low in range(n)
    ]
    memo: dict[int, dict[tuple[int, int], tuple[tuple[int, ...], tuple]]] = {0: {(0, 0): ((), ())}}

    def solve(mask: int) -> dict[tuple[int, int], tuple[tuple[int, ...], tuple]]:
        """For the cards in ``mask``: per (pontoons, bagels) the best other ranks
        (sorted high to low) and the groupings used, as (kind, mask) pairs."""
        got = memo.get(mask)
        if got is not None:
            return got
        lowbit = mask & -mask
        rest = mask ^ lowbit
        below = memo.get(rest)
        if below is None:
            below = solve(rest)
        res = None
        for tail, gm, r in cands[lowbit.bit_length() - 1]:
            if tail & rest != tail:
                continue
            if res is None:
                res = dict(below)
            sub = mask & ~gm
            got = memo.get(sub)
            if got is None:
                got = solve(sub)
            if r > 0:
                step = ((r, gm),)
                for key, (ranks, groups) in got.items():
                    ranks = tuple(sorted(ranks + (r,), reverse=True))
                    cur = res.get(key)
                    if cur is None or ranks > cur[0]:
                        res[key] = (ranks, groups + step)
            elif r == 0:
                step = ((0, gm),)
                for (p, b), (ranks, groups) in got.items():
                    key = (p, b + 1)
                    cur = res.get(key)
                    if cur is None or ranks > cur[0]:
                        res[key] = (ranks, groups + step)
            else:
                step = ((-1, gm),)
                for (p, b), (ranks, groups) in got.items():
                    key = (p + 1, b)
                    cur = res.get(key)
                    if cur is None or ranks > cur[0]:
                        res[key] = (ranks, groups + step)
        if res is None:  # the lowest card joins nothing here: same table as without it
            res = below
        memo[mask] = res
        return res

    best_value: list[int] | None = None
    best_groups: tuple = ()
    best_pb = (0, 0)
    for (p, b), (ranks, groups) in solve((1 << n) - 1).items():
        value = list(ranks)
        if p == 1:
            value = sorted(value + [ONIONS[1]], reverse=True)
        elif p >= 2:
            value = [ONIONS[p]] + value
        if b:
            value = value + [BAGELS[b]]
        if best_value is None or value > best_value:
            best_value, best_groups, best_pb = value, groups, (p, b)
    used = 0
    out: list[dict[str, Any]] = []
    p, b = best_pb
    onion_cards: list[int] = []
    bagel_cards: list[int] = []
    for r, gm in best_groups:
        used |= gm
        members = [cards[k] for k in range(n) if gm >> k & 1]
        if r == -1:
            onion_cards += members
        elif r == 0:
            bagel_cards += members
        else:
            out.append({"kind": KINDS[r - 1], "rank": r, "cards": members})
    if onion_cards:
        r = ONIONS[p]
        out.append({"kind": KINDS[r - 1], "rank": r, "cards": sorted(onion_cards)})
    if bagel_cards:
        r = BAGELS[b]
        out.append({"kind": KINDS[r - 1], "rank": r, "cards": sorted(bagel_cards)})
    out.sort(key=lambda g: (-g["rank"], g["cards"]))
    return {
        "value": best_value or [],
        "groupings": out,
        "unused": [cards[k] for k in range(n) if not used >> k & 1],
    }


def compare(a: list[int], b: list[int]) -> int:
    """1 if value ``a`` beats ``b``, -1 if it loses, 0 for a tie (highest
    grouping first, then down the line; a longer list beats its own prefix)."""
    return (a > b) - (a < b)


# ================================================================ modifiers
#
# ``evaluate(cards, mods)`` is the evaluator under the optional modifiers of
# seed 002 (#0..#11).  ``mods`` says what is in force *for this hand*:
#
#   wild         eights are wild (#1ii)             wild_limited  wild eights not 1/11 (#8ii)
#   null         eights may count zero (#1i)        zero_aces     aces count zero (#5i, #8ii)
#   sender       Sender visible, eights not wild (#8i: using eights zeroes aces)
#   lady         one card worth eleven is devalued (#4ii)
#   death        Onion sizes (pontoon counts) Death forbids a picture in (#9): [2] or [2, 3]
#   arch         #10i in force (who plays the jack of staves plays no eight as eight)
#   jack_wild    the jack of staves is wild (#10ii)
#   fool         bagels and Onions swap places (#11)
#   octavo       #3 in force            crippling    #0 in force (report running flushes)
#   shift        [from_card, to_card] of Great A'Tuin (#6)
#   elephants    the four cards declared with the queen of coins (#7)
#
# A value is then a list of *keys* ``position * 64 + sub`` (``sub`` is 32 but
# for fewer null eights (#1i: 32 - nulls), the Octavo (#3: above other Lesser
# Onions) and the Elephants' Double Onion (#7: below any other)).

LADY = card(12, 1, 0)  # queen of spades
FATE = card(13, 2, 1)  # king of cups
ATUIN = card(12, 3, 1)  # queen of coins
SENDER = card(11, 3, 0)  # jack of diamonds
DEATH = card(13, 0, 1)  # king of swords
ARCH = card(11, 1, 1)  # jack of staves
FOOL = card(11, 0, 0)  # jack of clubs
SPECIAL = {LADY: "lady", FATE: "fate", ATUIN: "atuin", SENDER: "sender", DEATH: "death", ARCH: "archchancellor",
           FOOL: "fool"}

SUB = 32
SUB_OCTAVO = 40
SUB_ELEPHANTS = 24
POS_BASE = dict(RANK)
# #11: two-card onion <-> bagel, Double/Triple/Lesser Onion <-> double/triple/lesser
# bagel, the great bagel just below the Great Onion (its old place stays empty)
POS_FOOL = dict(RANK)
for _a, _b in (("two_card_onion", "bagel"), ("double_onion", "double_bagel"), ("triple_onion", "triple_bagel"),
               ("lesser_onion", "lesser_bagel")):
    POS_FOOL[_a], POS_FOOL[_b] = RANK[_b], RANK[_a]
POS_FOOL["great_bagel"] = RANK["great_onion"]
POS_FOOL["great_onion"] = RANK["great_onion"] + 1
ONION_KINDS = (None, "two_card_onion", "double_onion", "triple_onion", "lesser_onion", "great_onion")
BAGEL_KINDS = (None, "bagel", "double_bagel", "triple_bagel", "lesser_bagel", "great_bagel")
ONION_SIZE_KINDS = {2: "two_card_onion", 3: "three_card_onion", 4: "four_card_onion", 5: "five_card_onion",
                    6: "six_card_onion", 7: "seven_card_onion"}
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

    def copy(self) -> "_Prof":
        p = _Prof(self.cards)
        for f in self.__slots__[1:]:
            setattr(p, f, list(getattr(self, f)))
        return p


def elephant_points(cards: list[int], wild: list[bool], limited: bool) -> int | None:
    """#7: the fewest points the queen of coins must give so that these four
    cards make two pictures (10) and two aces (11); None if they cannot."""
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
            if v > target:
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


# -------------------------------------------------------------- search


def _sums(vx: tuple, vy: tuple) -> int:
    s = 0
    for a in vx:
        for b in vy:
            s |= 1 << (a + b)
    return s


def _no11(v: tuple) -> tuple:
    return tuple(x for x in v if x != 11)


def _cands(p: _Prof, pos: dict, octavo: bool, death: bool, eleph: int, lady: bool,
           usable: int | None = None) -> list[list[tuple]]:
    """Per lowest card index, the groupings it can lead: (tail, mask, typ, kind,
    key, nulls, lady_ok) with typ 0 other, 1 bagel, 2 pontoon, 3 pontoon holding
    a picture card (#9); lady_ok: the grouping stands with one of its cards
    that could count eleven held to one (#4ii).  Only cards in ``usable`` (all
    by default) take part."""
    n = len(p.cards)
    if usable is None:
        usable = (1 << n) - 1
    idxs = [k for k in range(n) if usable >> k & 1]
    e11 = [11 in v for v in p.vals]
    out: list[list[tuple]] = [[] for _ in range(n)]
    vals, ook = p.vals, p.ook
    pic, a11, picture = p.pic, p.a11, p.picture
    two = (pos["two_card_onion"] * 64 + SUB)
    bagel_key = pos["bagel"] * 64 + SUB
    found: list[tuple] = []
    # pairs
    for ix, x in enumerate(idxs):
        vx, e11x, picx, a11x = vals[x], e11[x], pic[x], a11[x]
        outx = out[x]
        for y in idxs[ix + 1:]:
            m = (1 << x) | (1 << y)
            pont = (picx and a11[y]) or (pic[y] and a11x)
            if pont:
                typ = 3 if death and (picture[x] or picture[y]) else 2
                lok = lady and ((e11x and picx and a11[y]) or (e11[y] and pic[y] and a11x))
                outx.append((1 << y, m, typ, "pontoon", 0, 0, lok))
            s = _sums(vx, vals[y])
            if lady and (e11x or e11[y]):
                rs = (_sums(_no11(vx), vals[y]) if e11x else 0) | (_sums(vx, _no11(vals[y])) if e11[y] else 0)
            else:
                rs = 0  # no card here the Lady could devalue
            if s >> 21 & 1 and ook[x] and ook[y] and (not pont or typ == 3):
                found.append((m, "two_card_onion", two, 0, bool(rs >> 21 & 1)))
            if s >> 20 & 1:
                outx.append((1 << y, m, 1, "bagel", bagel_key, 0, bool(rs >> 20 & 1)))
    # three or more cards (the same for every Death and Elephants setting: shared)
    args = (tuple(vals), tuple(p.nul), tuple(ook), tuple(p.wild), tuple(p.suits), tuple(p.ranks),
            tuple(p.weight), usable, octavo, lady)
    if pos is POS_BASE or pos is POS_FOOL:
        found += _larger_cached(pos is POS_FOOL, *args)
    else:
        found += _larger(pos, *args)
    if eleph:
        found.append((eleph, "elephants_double_onion", pos["double_onion"] * 64 + SUB_ELEPHANTS, 0,
                      lady and any(eleph >> k & 1 and e11[k] for k in range(n))))
    found.sort()
    for m, kind, key, nulls, lok in found:
        low = (m & -m).bit_length() - 1
        out[low].append((m ^ (1 << low), m, 0, kind, key, nulls, lok))
    return out


@functools.lru_cache(maxsize=512)
def _larger_cached(fool: bool, *args: Any) -> tuple:
    return _larger(POS_FOOL if fool else POS_BASE, *args)


def _spread_plan(vs: tuple) -> tuple[int, tuple[int, ...]] | None:
    """For values forming a run a..a+L-1 (L >= 4): a and the shifts whose
    doubling ORs a set over the run; None for other values."""
    if len(vs) < 4 or list(vs) != list(range(vs[0], vs[0] + len(vs))):
        return None
    steps = []
    cur = 1
    while cur * 2 <= len(vs):
        steps.append(cur)
        cur *= 2
    if cur < len(vs):
        steps.append(len(vs) - cur)
    return vs[0], tuple(steps)


def _larger(pos: dict, vals: tuple, nul: tuple, ook: tuple, wild: tuple, suits: tuple, ranks: tuple,
            weight: tuple, usable: int, octavo: bool, lady: bool) -> tuple:
    """Every grouping of three or more of the cards in ``usable`` other than the
    Elephants, as (mask, kind, key, nulls, lady_ok) in no particular order."""
    n = len(vals)
    mins = [min(vals[i] + ((0,) if nul[i] else ())) if (vals[i] or nul[i]) else 99 for i in range(n)]
    order = sorted((k for k in range(n) if usable >> k & 1), key=lambda k: mins[k])
    n = len(order)
    found: list[tuple] = []
    ovals = [vals[k] for k in order]
    oplan = [_spread_plan(vals[k]) for k in order]
    # the values of a card that could count eleven, held to one by the Lady (#4ii)
    olow = [_no11(vals[k]) if 11 in vals[k] else None for k in order]
    onul = [nul[k] for k in order]
    o8 = [8 in vals[k] for k in order]
    omin = [mins[k] for k in order]
    obad = [0 if ook[k] else 1 for k in order]
    owild = [1 if wild[k] else 0 for k in order]
    osuits = [[s for s in range(4) if suits[k] >> s & 1] if not wild[k] else [] for k in order]
    orank = [ranks[k] for k in order]
    oweight = [weight[k] for k in order]
    obits = [1 << k for k in order]
    counts = [0, 0, 0, 0]
    chosen: list[int] = []
    pos_flush, pos_bflush = pos["flush"], pos["broken_flush"]
    onion_pos = {sz: pos[k] for sz, k in ONION_SIZE_KINDS.items()}
    pos_royal, pos_broyal, pos_wroyal = pos["royal"], pos["broken_royal"], pos["wild_royal"]
    key_lesser_octavo = pos["lesser_onion"] * 64 + SUB_OCTAVO
    append = found.append

    # S: the sums of the cards that are not null eights; F: of all the cards
    # (flushes); SL, FL: the same with some card that could count eleven held
    # to one (the union over such cards), l11: how many such cards.
    def walk(start: int, mask: int, size: int, low: int, S: int, F: int, e: int, e8: int, bad: int, w: int,
             SL: int, FL: int, l11: int) -> None:
        for q in range(start, n):
            lo = low + omin[q]
            if lo > 21:
                return
            vq = ovals[q]
            plan = oplan[q]
            if plan is None:
                F2 = 0
                for v in vq:
                    F2 |= F << v
            else:
                F2 = F << plan[0]
                for st in plan[1]:
                    F2 |= F2 << st
            F2 &= _SUMS
            if onul[q]:
                S2 = S
                e2, e82 = e + 1, e8 + (1 if o8[q] else 0)
            else:
                if plan is None:
                    S2 = 0
                    for v in vq:
                        S2 |= S << v
                else:
                    S2 = S << plan[0]
                    for st in plan[1]:
                        S2 |= S2 << st
                S2 &= _SUMS
                e2, e82 = e, e8
            if lady:
                SL2 = FL2 = 0
                if SL or FL:
                    if plan is None:
                        for v in vq:
                            FL2 |= FL << v
                    else:
                        FL2 = FL << plan[0]
                        for st in plan[1]:
                            FL2 |= FL2 << st
                    if onul[q]:
                        SL2 = SL
                    elif plan is None:
                        for v in vq:
                            SL2 |= SL << v
                    else:
                        SL2 = SL << plan[0]
                        for st in plan[1]:
                            SL2 |= SL2 << st
                vl = olow[q]
                if vl is not None:
                    for v in vl:
                        FL2 |= F << v
                    if onul[q]:
                        SL2 |= S
                    else:
                        for v in vl:
                            SL2 |= S << v
                    l2 = l11 + 1
                else:
                    l2 = l11
                SL2 &= _SUMS
                FL2 &= _SUMS
            else:
                SL2 = FL2 = l2 = 0
            sq = osuits[q]
            for s in sq:
                counts[s] += 1
            chosen.append(q)
            m = mask | obits[q]
            sz = size + 1
            b2 = bad + obad[q]
            w2 = w + owild[q]
            if sz >= 3:
                best, bkind, nulls = 0, "", 0
                if sz <= 7 and b2 == 0:
                    for k in range(e2 + 1):
                        if e2 - k <= e82:
                            t = 21 - 8 * (e2 - k)
                            if t >= 0 and S2 >> t & 1:
                                best, bkind, nulls = onion_pos[sz] * 64 + SUB - k, ONION_SIZE_KINDS[sz], k
                                break
                    if best and sz == 3 and nulls == 0:
                        rs = [orank[x] for x in chosen]
                        if all(oweight[x] for x in chosen):
                            best, bkind = pos_wroyal * 64 + SUB, "wild_royal"
                        elif all(r >> 7 & 1 for r in rs):
                            best, bkind = pos_royal * 64 + SUB, "royal"
                        elif any(rs[a] >> 6 & 1 and rs[b] >> 7 & 1 and rs[c] >> 8 & 1
                                 for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))):
                            best, bkind = pos_broyal * 64 + SUB, "broken_royal"
                if F2 >> 16:
                    top = max(counts) + w2
                    kp = pos_flush if top >= sz else pos_bflush if top == sz - 1 else 0
                    if kp and kp * 64 + SUB > best:
                        best, bkind, nulls = kp * 64 + SUB, "flush" if kp == pos_flush else "broken_flush", 0
                if octavo and sz == 8 and all(oweight[x] for x in chosen):
                    best, bkind, nulls = key_lesser_octavo, "octavo", 0
                if best:
                    if not lady or not l2:
                        lok = False
                    elif bkind == "octavo":
                        lok = True
                    elif bkind == "flush" or bkind == "broken_flush":
                        lok = FL2 >> 16 != 0
                    else:
                        d = e2 - nulls
                        lok = d <= e82 and 21 - 8 * d >= 0 and SL2 >> (21 - 8 * d) & 1 == 1
                    append((m, bkind, best, nulls, lok))
            walk(q + 1, m, sz, lo, S2, F2, e2, e82, b2, w2, SL2, FL2, l2)
            chosen.pop()
            for s in sq:
                counts[s] -= 1

    walk(0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0)
    return tuple(found)



def _table_keys(kv: tuple) -> tuple:
    return kv[1][0]


def _prune(table: dict) -> dict:
    """Drop the entries another entry dominates (as many pontoons and bagels or
    more, and other keys as good): they can never end in a better value."""
    if len(table) == 2:  # the same as below, without the sorting
        (ka, va), (kb, vb) = table.items()
        if vb[0] > va[0]:
            ka, va, kb, vb = kb, vb, ka, va
        if ka[0] >= kb[0] and ka[1] >= kb[1] and ka[2] <= kb[2] and ka[3] >= kb[3]:
            return {ka: va}
        return table
    items = sorted(table.items(), key=_table_keys, reverse=True)
    kept: list = []
    kept_states: list = []
    for item in items:
        pp, bb, tt, ll = item[0]
        # every entry kept so far sorts before this one: its keys are as good
        for p2, b2, t2, l2 in kept_states:
            if p2 >= pp and b2 >= bb and t2 <= tt and l2 >= ll:
                break
        else:
            kept.append(item)
            kept_states.append(item[0])
    return dict(kept) if len(kept) < len(table) else table


def _unlink(groups: tuple | None) -> list:
    """The steps of a chain (parent, step) of groupings, first first."""
    out = []
    while groups is not None:
        groups, step = groups
        out.append(step)
    out.reverse()
    return out


def _solve(p: _Prof, pos: dict, mods: dict, usable: int | None = None) -> tuple[list[int], list]:
    """The best value (keys) of the cards of ``p`` (those in ``usable``) and its
    groupings [(kind, mask, key, nulls)]."""
    return _search(p, pos, mods, usable)[:2]


def _search(p: _Prof, pos: dict, mods: dict, usable: int | None = None) -> tuple[list[int], list, list | None, bool]:
    """``_solve``'s value and groupings, then the best value the search found
    when #9 is set aside (None if none), and whether the chosen groupings use a
    pontoon with a picture as a plain two-card onion (which only #9 allows)."""
    n = len(p.cards)
    full = (1 << n) - 1 if usable is None else usable
    eleph = 0
    for c in mods.get("elephants") or ():
        if c in p.cards:
            eleph |= 1 << p.cards.index(c)
    if eleph and (eleph & full != eleph or ATUIN not in p.cards
                  or elephant_points([p.cards[k] for k in range(n) if eleph >> k & 1],
                                     [p.wild[k] for k in range(n) if eleph >> k & 1],
                                     bool(mods.get("wild_limited"))) is None):
        eleph = 0
    death = set(mods.get("death") or ())
    npics = sum(1 for k in range(n) if p.picture[k] and full >> k & 1)
    if npics < 2:
        death = set()
    e11 = [bool(full >> k & 1) and 11 in p.vals[k] for k in range(n)]
    lady = bool(mods.get("lady")) and any(e11)
    cands = _cands(p, pos, bool(mods.get("octavo")), bool(death), eleph, lady, full)
    # A table maps (pontoons, bagels, pontoons holding a picture, lady_ok) to
    # (other keys high to low, groupings as a chain (parent, step) or None).
    memo: dict[int, dict] = {0: {(0, 0, 0, 0): ((), None)}}
    # per lowest card: (other cards, mask, typ, lady_ok, key, step recorded)
    lead = [[(tail, gm, typ, lok, key, (kind, gm, key, nulls, typ)) for tail, gm, typ, kind, key, nulls, lok in cl]
            for cl in cands]
    idle_lady = [lady and e11[k] for k in range(n)]

    def solve(mask: int) -> dict:
        got = memo.get(mask)
        if got is not None:
            return got
        lowbit = mask & -mask
        rest = mask ^ lowbit
        below = memo.get(rest)
        if below is None:
            below = solve(rest)
        low = lowbit.bit_length() - 1
        if idle_lady[low]:  # the low card stays idle: the Lady may devalue it (#4ii)
            idle: dict = {}
            for (pp, bb, tt, ll), val in below.items():
                nk = (pp, bb, tt, 1)
                cur = idle.get(nk)
                if cur is None or val[0] > cur[0]:
                    idle[nk] = val
            below = idle
        absent = full ^ mask  # a grouping fits if it holds none of these
        res = None
        for tail, gm, typ, lok, key, step in lead[low]:
            if tail & absent:
                continue
            if res is None:
                res = dict(below)
                get = res.get
            sub = mask ^ gm
            got = memo.get(sub)
            if got is None:
                got = solve(sub)
            if typ == 0:
                for k, (keys, groups) in got.items():
                    if lok and not k[3]:
                        k = (k[0], k[1], k[2], True)
                    cur = get(k)
                    if cur is not None:
                        ck = cur[0]
                        # the merged keys start with the greater of key and keys[0]
                        if ck and ck[0] > (keys[0] if keys and keys[0] > key else key):
                            continue
                    if not keys or keys[-1] >= key:
                        keys = keys + (key,)
                    else:
                        i = 0
                        while keys[i] >= key:
                            i += 1
                        keys = keys[:i] + (key,) + keys[i:]
                    if cur is None or keys > cur[0]:
                        res[k] = (keys, (groups, step))
            elif typ == 1:
                for (pp, bb, tt, ll), (keys, groups) in got.items():
                    nk = (pp, bb + 1, tt, ll or lok)
                    cur = get(nk)
                    if cur is None or keys > cur[0]:
                        res[nk] = (keys, (groups, step))
            else:
                dt = 1 if typ == 3 else 0
                for (pp, bb, tt, ll), (keys, groups) in got.items():
                    nk = (pp + 1, bb, tt + dt, ll or lok)
                    cur = get(nk)
                    if cur is None or keys > cur[0]:
                        res[nk] = (keys, (groups, step))
        if res is None:
            res = below
        elif len(res) > 1:
            res = _prune(res)
        memo[mask] = res
        return res

    best_value: list[int] | None = None
    best: tuple | None = None
    unfiltered: list[int] | None = None
    for (pp, bb, tt, ll), (keys, groups) in solve(full).items():
        if lady and not ll and pp < 5:  # #4ii: no card can take the Lady's devaluing (a Great Onion is exempt)
            continue
        extra = []
        if pp:
            extra.append(pos[ONION_KINDS[min(pp, 5)]] * 64 + SUB)
        if bb:
            extra.append(pos[BAGEL_KINDS[min(bb, 5)]] * 64 + SUB)
        value = sorted(keys + tuple(extra), reverse=True) if extra else list(keys)
        if unfiltered is None or value > unfiltered:
            unfiltered = value
        if pp in death and tt >= npics:  # #9: the Onion would hold every picture
            continue
        if best_value is None or value > best_value:
            best_value = value
            best = (pp, bb, groups)
    best_groups: list = []
    uses_picture_pontoon = False
    if best is not None:
        pp, bb, groups = best
        om = bm = 0
        pic, a11 = p.pic, p.a11
        for kind, gm, key, nulls, typ in _unlink(groups):
            if typ == 1:
                bm |= gm
            elif typ >= 2:
                om |= gm
            else:
                best_groups.append((kind, gm, key, nulls))
                if kind == "two_card_onion":
                    x = (gm & -gm).bit_length() - 1
                    y = gm.bit_length() - 1
                    if (pic[x] and a11[y]) or (pic[y] and a11[x]):
                        uses_picture_pontoon = True
        if om:
            best_groups.append((ONION_KINDS[min(pp, 5)], om, pos[ONION_KINDS[min(pp, 5)]] * 64 + SUB, 0))
        if bm:
            best_groups.append((BAGEL_KINDS[min(bb, 5)], bm, pos[BAGEL_KINDS[min(bb, 5)]] * 64 + SUB, 0))
    return best_value or [], best_groups, unfiltered, uses_picture_pontoon


# ------------------------------------------------------- running flushes


def running_flush(cards: list[int], wild: list[bool]) -> dict | None:
    """#0: the longest running flush of nine or ten cards (consecutive
    denominations of one paired suit, ace low or high, no wrapping), with the
    fewest wild cards (#2); None if there is none.  A wild card standing as
    itself is not counted as wild."""
    nwild = sum(1 for w in wild if w)
    if len(cards) < 9:
        return None
    best = None
    for length in (10, 9):
        if length > len(cards):
            continue
        for s in range(4):
            have: dict[int, list[bool]] = {}
            for c, w in zip(cards, wild):
                if suit_of(c) == s:
                    r = rank_of(c)
                    for rr in ((1, 14) if r == 1 else (r,)):
                        have.setdefault(rr, []).append(w)
            for start in range(1, 16 - length):
                window = range(start, start + length)
                natural = [r for r in window if r in have]
                own_wild = sum(1 for r in natural if all(have[r]))
                need = length - len(natural)
                if need <= nwild - own_wild:
                    cand = {"length": length, "wilds": need, "suit": s, "low": start}
                    if best is None or (cand["length"], -cand["wilds"]) > (best["length"], -best["wilds"]):
                        best = cand
        if best is not None:
            return best
    return best


def _onion_wilds(cards: list[int], p: _Prof, groups: list, kind: str) -> int:
    """#2: the most wild cards the hand's top Onion (or great bagel) can hold."""
    if kind in ("great_onion", "great_bagel", "octavo"):
        return sum(1 for g in groups if g[0] == kind for k in range(len(cards)) if g[1] >> k & 1 and p.wild[k])
    if kind != "lesser_onion":
        return 0
    n = len(cards)
    best = 0

    def match(rest: list[int]) -> bool:
        if not rest:
            return True
        x = rest[0]
        for y in rest[1:]:
            if (p.pic[x] and p.a11[y]) or (p.pic[y] and p.a11[x]):
                if match([z for z in rest[1:] if z != y]):
                    return True
        return False

    for out in range(1 << n):
        if bin(out).count("1") != n - 8:
            continue
        keep = [k for k in range(n) if not out >> k & 1]
        w = sum(1 for k in keep if p.wild[k])
        if w > best and match(keep):
            best = w
    return best


# ------------------------------------------------------------ evaluate


def _better(a: tuple | None, b: tuple) -> bool:
    return a is None or b[0] > a[0]


def evaluate(cards: list[int], mods: dict) -> dict[str, Any]:
    """The best arrangement of ``cards`` under the modifiers ``mods`` (see above).

    Returns ``{"value": [keys], "groupings": [{"kind", "key", "cards", "nulls"}],
    "unused", "notes": [str], "run": running flush or None, "top": kind or None,
    "onion_wilds": int, "null_eights": int}``.
    """
    cards = sorted(cards)
    n = len(cards)
    pos = POS_FOOL if mods.get("fool") else POS_BASE
    base, notes = _profile(cards, mods)
    idx = {c: k for k, c in enumerate(cards)}
    variants: list[tuple[_Prof, int, list[str]]] = []
    full = (1 << n) - 1
    weights = [k for k, c in enumerate(cards) if rank_of(c) == 8]
    aces = [k for k, c in enumerate(cards) if is_ace(c)]
    # #8i and #10i: choices between using a card and what it costs
    sender_opts = [(None, [])]
    if mods.get("sender") and not mods.get("zero_aces") and weights and aces:
        no8 = 0
        for k in weights:
            no8 |= 1 << k
        sender_opts = [("no8", ["#8i: the Sender of Eights is visible: this hand plays no eight, to keep its aces"]),
                       ("zero", ["#8i: the Sender of Eights is visible and this hand plays eights: its aces count zero"])]
    arch_opts = [(None, [])]
    if mods.get("arch") and ARCH in idx and weights:
        arch_opts = [("nojack", ["#10i: the jack of staves is left out, so eights may count eight"]),
                     ("no8", ["#10i: the jack of staves may be played, so no eight counts eight"])]
    for s_opt, s_notes in sender_opts:
        for a_opt, a_notes in arch_opts:
            p = base
            usable = full
            if s_opt == "no8":
                for k in weights:
                    usable &= ~(1 << k)
            elif s_opt == "zero":
                p = p.copy()
                for k in aces:
                    if not p.wild[k]:
                        p.vals[k], p.ook[k], p.a11[k] = (0,), False, False
            if a_opt == "nojack":
                usable &= ~(1 << idx[ARCH])
            elif a_opt == "no8":
                p = p.copy()
                for k in weights:
                    p.vals[k] = tuple(v for v in p.vals[k] if v != 8)
                    p.ranks[k] &= ~(1 << 8)
            variants.append((p, usable, s_notes + a_notes))
    best: tuple | None = None
    for p, usable, vnotes in variants:
        got = _solve_lady(p, pos, mods, usable)
        if _better(best, got):
            best = (got[0], got[1], got[2], vnotes + got[3])
    value, groups, p, vnotes = best
    notes += vnotes
    out: list[dict[str, Any]] = []
    used = 0
    null_eights = 0
    for kind, gm, key, nulls in groups:
        used |= gm
        null_eights += nulls
        members = [cards[k] for k in range(n) if gm >> k & 1]
        out.append({"kind": kind, "key": key, "cards": members, "nulls": nulls})
        if nulls:
            notes.append(f"#1i: {nulls} null eight(s) count zero in the {kind.replace('_', ' ')}")
    out.sort(key=lambda g: (-g["key"], g["cards"]))
    top = out[0]["kind"] if out else None
    wild = [p.wild[k] for k in range(n)]
    run = running_flush(cards, wild) if mods.get("crippling") else None
    ow = _onion_wilds(cards, p, groups, top) if top and any(wild) else 0
    if any(wild):
        notes.append("wild cards: " + ", ".join(card_name(cards[k]) for k in range(n) if wild[k]))
    if mods.get("fool"):
        notes.append("#11: the Fool is declared: bagels and Onions have swapped places")
    if mods.get("zero_aces") and aces:
        notes.append("aces count zero here (#5i or #8ii) and cannot stand in onions")
    if mods.get("shift"):
        a, b = mods["shift"]
        notes.append(f"#6: Great A'Tuin moved eight points from the {card_name(a)} to the {card_name(b)}")
    if any(g["kind"] == "elephants_double_onion" for g in out):
        notes.append("#7: the Elephants make a Double Onion (beaten by any other Double Onion)")
    if top == "octavo":
        notes.append("#3: eight eights: the Octavo, a Lesser Onion above the others, never crippled")
    if run:
        notes.append(f"#0: a {run['length']}-card running flush ({run['wilds']} wild)")
    return {"value": value, "groupings": out, "unused": [cards[k] for k in range(n) if not used >> k & 1],
            "notes": notes, "run": run, "top": top, "onion_wilds": ow, "null_eights": null_eights}


def _solve_death(p: _Prof, pos: dict, mods: dict, usable: int) -> tuple[list[int], list, list[str]]:
    """#9: when a Double (or with wild eights Triple) Onion would use every
    picture card of a hand with two or more, the owner chooses which picture
    Death takes out of it: the search only allows Onions of those sizes that
    leave a picture out."""
    value, groups, unfiltered, picture_pontoon = _search(p, pos, mods, usable=usable)
    death = mods.get("death") or ()
    if not death:
        return value, groups, []
    pics = [k for k in range(len(p.cards)) if p.picture[k] and usable >> k & 1]
    if len(pics) < 2:
        return value, groups, []
    # Without #9 the search has the same groupings less the picture pontoons
    # standing as plain two-card onions, and values no better than the best
    # this one found before #9's filter.  So if that filter dropped nothing
    # better and the groupings chosen need no such pontoon, the value is the same.
    if unfiltered == value and value and not picture_pontoon:
        return value, groups, []
    free = _solve(p, pos, {**mods, "death": ()}, usable=usable)[0]
    if free == value:
        return value, groups, []
    return value, groups, ["#9: Death is visible: one picture of this hand takes no part in a "
                           + " or ".join(["Double", "Triple"][: len(death)]) + " Onion"]


def _solve_lady(p: _Prof, pos: dict, mods: dict, usable: int) -> tuple[list[int], list, _Prof, list[str]]:
    """#4ii: one card that could count eleven counts one only (the owner picks
    which), except in a Great Onion; the search keeps only arrangements where
    such a card is idle or its grouping stands without the eleven."""
    value, groups, notes = _solve_death(p, pos, mods, usable)
    if mods.get("lady") and any(usable >> k & 1 and 11 in p.vals[k] for k in range(len(p.cards))):
        notes = notes + ["#4ii: the Lady holds one card of this hand that could count eleven to one"]
    return value, groups, p, notes
