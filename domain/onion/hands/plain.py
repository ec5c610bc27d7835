"""Cripple Mr Onion: the hand evaluator of the base game (no modifier).

``best_arrangement(cards)`` sorts a hand into disjoint groupings so that its
value (the list of grouping ranks, highest first) is as great as possible;
``compare(a, b)`` compares two such values.  The ranks and every reading are in
``docs/rules/onion.md``.
"""

from __future__ import annotations

from typing import Any

from domain.onion.hands.cards import is_ace, is_picture, rank_of, suit_of, value_of

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


ONION_BY_SIZE = {
    2: RANK["two_card_onion"],
    3: RANK["three_card_onion"],
    4: RANK["four_card_onion"],
    5: RANK["five_card_onion"],
    6: RANK["six_card_onion"],
    7: RANK["seven_card_onion"],
}


BAGELS = (None, RANK["bagel"], RANK["double_bagel"], RANK["triple_bagel"], RANK["lesser_bagel"], RANK["great_bagel"])


ONIONS = (
    None,
    RANK["two_card_onion"],
    RANK["double_onion"],
    RANK["triple_onion"],
    RANK["lesser_onion"],
    RANK["great_onion"],
)


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
        best = {
            3: "three_card_onion",
            4: "four_card_onion",
            5: "five_card_onion",
            6: "six_card_onion",
            7: "seven_card_onion",
        }[n]
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
