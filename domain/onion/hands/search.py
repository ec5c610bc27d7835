"""Cripple Mr Onion under modifiers: the search for the best value.

A table per set of cards maps (pontoons, bagels, pontoons holding a picture,
Lady satisfied) to the best other keys and the groupings giving them; tables
are built from the lowest card up and pruned of dominated entries.
"""

from __future__ import annotations

from domain.onion.hands.candidates import _cands
from domain.onion.hands.cards import ATUIN
from domain.onion.hands.profile import BAGEL_KINDS, ONION_KINDS, SUB, _Prof, elephant_points


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
    if eleph and (
        eleph & full != eleph
        or ATUIN not in p.cards
        or elephant_points(
            [p.cards[k] for k in range(n) if eleph >> k & 1],
            [p.wild[k] for k in range(n) if eleph >> k & 1],
            bool(mods.get("wild_limited")),
        )
        is None
    ):
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
    lead = [
        [(tail, gm, typ, lok, key, (kind, gm, key, nulls, typ)) for tail, gm, typ, kind, key, nulls, lok in cl]
        for cl in cands
    ]
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
            for (pp, bb, tt, _ll), val in below.items():
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
