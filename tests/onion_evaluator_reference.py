"""Frozen reference copy of the Cripple Mr Onion evaluator (domain/onion/hands/)
as it stood before its modifier search was optimised: the oracle of
tests/test_onion_evaluator_equivalence.py.  Do not edit it to follow changes
in the domain module; a change of result there is what the test exists to catch.

Cripple Mr Onion: the hand evaluator (pure, standard library only).

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


def _cands(p: _Prof, pos: dict, octavo: bool, death: bool, eleph: int, lady: bool) -> list[list[tuple]]:
    """Per lowest card index, the groupings it can lead: (tail, mask, typ, kind,
    key, nulls, lady_ok) with typ 0 other, 1 bagel, 2 pontoon, 3 pontoon holding
    a picture card (#9); lady_ok: the grouping stands with one of its cards
    that could count eleven held to one (#4ii)."""
    n = len(p.cards)
    e11 = [11 in v for v in p.vals]
    out: list[list[tuple]] = [[] for _ in range(n)]
    vals, nul, ook, wild = p.vals, p.nul, p.ook, p.wild
    mins = [min(vals[i] + ((0,) if nul[i] else ())) if (vals[i] or nul[i]) else 99 for i in range(n)]
    order = sorted(range(n), key=lambda k: mins[k])
    two = (pos["two_card_onion"] * 64 + SUB)
    bagel_key = pos["bagel"] * 64 + SUB
    found: list[tuple[int, str, int, int]] = []
    # pairs
    for x in range(n):
        for y in range(x + 1, n):
            m = (1 << x) | (1 << y)
            pont = (p.pic[x] and p.a11[y]) or (p.pic[y] and p.a11[x])
            if pont:
                typ = 3 if death and (p.picture[x] or p.picture[y]) else 2
                lok = lady and ((e11[x] and p.pic[x] and p.a11[y]) or (e11[y] and p.pic[y] and p.a11[x]))
                out[x].append((1 << y, m, typ, "pontoon", 0, 0, lok))
            s = _sums(vals[x], vals[y])
            if lady and (e11[x] or e11[y]):
                rs = (_sums(_no11(vals[x]), vals[y]) if e11[x] else 0) | (_sums(vals[x], _no11(vals[y])) if e11[y] else 0)
            else:
                rs = 0  # no card here the Lady could devalue
            if s >> 21 & 1 and ook[x] and ook[y] and (not pont or typ == 3):
                found.append((m, "two_card_onion", two, 0, bool(rs >> 21 & 1)))
            if s >> 20 & 1:
                out[x].append((1 << y, m, 1, "bagel", bagel_key, 0, bool(rs >> 20 & 1)))
    # three or more cards: walk subsets in ascending least value, pruning at 21
    ovals = [vals[k] for k in order]
    onul = [nul[k] for k in order]
    o8 = [8 in vals[k] for k in order]
    omin = [mins[k] for k in order]
    obad = [0 if ook[k] else 1 for k in order]
    owild = [1 if wild[k] else 0 for k in order]
    osuit = [p.suits[k] for k in order]
    orank = [p.ranks[k] for k in order]
    oweight = [p.weight[k] for k in order]
    obits = [1 << k for k in order]
    counts = [0, 0, 0, 0]
    chosen: list[int] = []
    pos_flush, pos_bflush = pos["flush"], pos["broken_flush"]
    onion_pos = {sz: pos[k] for sz, k in ONION_SIZE_KINDS.items()}
    pos_royal, pos_broyal, pos_wroyal = pos["royal"], pos["broken_royal"], pos["wild_royal"]

    def walk(start: int, mask: int, size: int, low: int, S: int, F: int, e: int, e8: int, bad: int, w: int) -> None:
        for q in range(start, n):
            lo = low + omin[q]
            if lo > 21:
                return
            vq = ovals[q]
            if onul[q]:
                S2 = S
                e2, e82 = e + 1, e8 + (1 if o8[q] else 0)
            else:
                S2 = 0
                for v in vq:
                    S2 |= S << v
                S2 &= _SUMS
                e2, e82 = e, e8
            F2 = 0
            for v in vq:
                F2 |= F << v
            F2 &= _SUMS
            su = osuit[q]
            if owild[q] == 0:
                for s in range(4):
                    if su >> s & 1:
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
                    best, bkind, nulls = pos["lesser_onion"] * 64 + SUB_OCTAVO, "octavo", 0
                if best:
                    lok = lady and _lady_ok([order[x] for x in chosen], bkind, nulls)
                    found.append((m, bkind, best, nulls, lok))
            walk(q + 1, m, sz, lo, S2, F2, e2, e82, b2, w2)
            chosen.pop()
            if owild[q] == 0:
                for s in range(4):
                    if su >> s & 1:
                        counts[s] -= 1

    def _lady_ok(idxs: list[int], kind: str, nulls: int) -> bool:
        for d in idxs:
            if not e11[d]:
                continue
            if kind in ("octavo",):
                return True
            S = F = 1
            e = e8 = 0
            for i in idxs:
                vs = _no11(vals[i]) if i == d else vals[i]
                f2 = 0
                for v in vs:
                    f2 |= F << v
                F = f2 & _SUMS
                if nul[i]:
                    e += 1
                    e8 += 8 in vs
                else:
                    s2 = 0
                    for v in vs:
                        s2 |= S << v
                    S = s2 & _SUMS
            if kind in ("flush", "broken_flush"):
                if F >> 16:
                    return True
            elif e - nulls <= e8 and 21 - 8 * (e - nulls) >= 0 and S >> (21 - 8 * (e - nulls)) & 1:
                return True
        return False

    walk(0, 0, 0, 0, 1, 1, 0, 0, 0, 0)
    if eleph:
        found.append((eleph, "elephants_double_onion", pos["double_onion"] * 64 + SUB_ELEPHANTS, 0,
                      lady and any(eleph >> k & 1 and e11[k] for k in range(n))))
    found.sort()
    for m, kind, key, nulls, lok in found:
        low = (m & -m).bit_length() - 1
        out[low].append((m ^ (1 << low), m, 0, kind, key, nulls, lok))
    return out


def _prune(table: dict) -> dict:
    """Drop the entries another entry dominates (as many pontoons and bagels or
    more, and other keys as good): they can never end in a better value."""
    items = sorted(table.items(), key=lambda kv: kv[1][0], reverse=True)
    kept: list = []
    for (pp, bb, tt, ll), val in items:
        keys = val[0]
        if any(p2 >= pp and b2 >= bb and t2 <= tt and l2 >= ll and k2 >= keys
               for (p2, b2, t2, l2), (k2, _g) in kept):
            continue
        kept.append(((pp, bb, tt, ll), val))
    return dict(kept) if len(kept) < len(table) else table


def _solve(p: _Prof, pos: dict, mods: dict, usable: int | None = None) -> tuple[list[int], list]:
    """The best value (keys) of the cards of ``p`` (those in ``usable``) and its
    groupings [(kind, mask, key, nulls)]."""
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
    cands = _cands(p, pos, bool(mods.get("octavo")), bool(death), eleph, lady)
    memo: dict[int, dict] = {0: {(0, 0, 0, 0): ((), ())}}

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
        if lady and e11[low]:  # the low card stays idle: the Lady may devalue it (#4ii)
            idle: dict = {}
            for (pp, bb, tt, ll), val in below.items():
                nk = (pp, bb, tt, 1)
                cur = idle.get(nk)
                if cur is None or val[0] > cur[0]:
                    idle[nk] = val
            below = idle
        res = None
        for tail, gm, typ, kind, key, nulls, lok in cands[low]:
            if tail & rest != tail:
                continue
            if res is None:
                res = dict(below)
            sub = mask & ~gm
            got = memo.get(sub)
            if got is None:
                got = solve(sub)
            step = ((kind, gm, key, nulls, typ),)
            for (pp, bb, tt, ll), (keys, groups) in got.items():
                ll = ll or lok
                if typ == 0:
                    nk = (pp, bb, tt, ll)
                    keys = tuple(sorted(keys + (key,), reverse=True))
                elif typ == 1:
                    nk = (pp, bb + 1, tt, ll)
                else:
                    nk = (pp + 1, bb, tt + (typ == 3), ll)
                cur = res.get(nk)
                if cur is None or keys > cur[0]:
                    res[nk] = (keys, groups + step)
        if res is None:
            res = below
        elif prune and len(res) > 1:
            res = _prune(res)
        memo[mask] = res
        return res

    prune = True
    best_value: list[int] | None = None
    best_groups: list = []
    for (pp, bb, tt, ll), (keys, groups) in solve(full).items():
        if pp in death and tt >= npics:  # #9: the Onion would hold every picture
            continue
        if lady and not ll and pp < 5:  # #4ii: no card can take the Lady's devaluing (a Great Onion is exempt)
            continue
        extra = []
        if pp:
            extra.append(pos[ONION_KINDS[min(pp, 5)]] * 64 + SUB)
        if bb:
            extra.append(pos[BAGEL_KINDS[min(bb, 5)]] * 64 + SUB)
        value = sorted(keys + tuple(extra), reverse=True) if extra else list(keys)
        if best_value is None or value > best_value:
            best_value = value
            gs = []
            om = bm = 0
            for kind, gm, key, nulls, typ in groups:
                if typ == 1:
                    bm |= gm
                elif typ >= 2:
                    om |= gm
                else:
                    gs.append((kind, gm, key, nulls))
            if om:
                gs.append((ONION_KINDS[min(pp, 5)], om, pos[ONION_KINDS[min(pp, 5)]] * 64 + SUB, 0))
            if bm:
                gs.append((BAGEL_KINDS[min(bb, 5)], bm, pos[BAGEL_KINDS[min(bb, 5)]] * 64 + SUB, 0))
            best_groups = gs
    return best_value or [], best_groups


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
    eights = [k for k, c in enumerate(cards) if rank_of(c) == 8 and not base.wild[k]]
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
    value, groups = _solve(p, pos, mods, usable=usable)
    death = mods.get("death") or ()
    if not death:
        return value, groups, []
    pics = [k for k in range(len(p.cards)) if p.picture[k] and usable >> k & 1]
    if len(pics) < 2:
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
