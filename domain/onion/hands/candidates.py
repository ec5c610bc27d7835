"""Cripple Mr Onion under modifiers: the groupings a hand's cards can form
(pairs, bagels and pontoons; groupings of three cards or more, walked in
ascending value with the sums each choice of values can reach as bit sets).
"""

from __future__ import annotations

import functools
from typing import Any

from domain.onion.hands.profile import (
    _SUMS,
    ONION_SIZE_KINDS,
    POS_BASE,
    POS_FOOL,
    SUB,
    SUB_ELEPHANTS,
    SUB_OCTAVO,
    _Prof,
)


def _sums(vx: tuple, vy: tuple) -> int:
    s = 0
    for a in vx:
        for b in vy:
            s |= 1 << (a + b)
    return s


def _no11(v: tuple) -> tuple:
    return tuple(x for x in v if x != 11)


def _cands(
    p: _Prof, pos: dict, octavo: bool, death: bool, eleph: int, lady: bool, usable: int | None = None
) -> list[list[tuple]]:
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
    two = pos["two_card_onion"] * 64 + SUB
    bagel_key = pos["bagel"] * 64 + SUB
    found: list[tuple] = []
    # pairs
    for ix, x in enumerate(idxs):
        vx, e11x, picx, a11x = vals[x], e11[x], pic[x], a11[x]
        outx = out[x]
        for y in idxs[ix + 1 :]:
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
    args = (
        tuple(vals),
        tuple(p.nul),
        tuple(ook),
        tuple(p.wild),
        tuple(p.suits),
        tuple(p.ranks),
        tuple(p.weight),
        usable,
        octavo,
        lady,
    )
    if pos is POS_BASE or pos is POS_FOOL:
        found += _larger_cached(pos is POS_FOOL, *args)
    else:
        found += _larger(pos, *args)
    if eleph:
        found.append(
            (
                eleph,
                "elephants_double_onion",
                pos["double_onion"] * 64 + SUB_ELEPHANTS,
                0,
                lady and any(eleph >> k & 1 and e11[k] for k in range(n)),
            )
        )
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


def _larger(
    pos: dict,
    vals: tuple,
    nul: tuple,
    ook: tuple,
    wild: tuple,
    suits: tuple,
    ranks: tuple,
    weight: tuple,
    usable: int,
    octavo: bool,
    lady: bool,
) -> tuple:
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
    def walk(
        start: int,
        mask: int,
        size: int,
        low: int,
        S: int,
        F: int,
        e: int,
        e8: int,
        bad: int,
        w: int,
        SL: int,
        FL: int,
        l11: int,
    ) -> None:
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
                        elif any(
                            rs[a] >> 6 & 1 and rs[b] >> 7 & 1 and rs[c] >> 8 & 1
                            for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
                        ):
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
