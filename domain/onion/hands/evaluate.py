"""Cripple Mr Onion: the hand evaluator under the optional modifiers (#0..#11).

``evaluate(cards, mods)`` gives the best arrangement of a hand; ``mods`` says
what is in force *for this hand*:

  wild         eights are wild (#1ii)             wild_limited  wild eights not 1/11 (#8ii)
  null         eights may count zero (#1i)        zero_aces     aces count zero (#5i, #8ii)
  sender       Sender visible, eights not wild (#8i: using eights zeroes aces)
  lady         one card worth eleven is devalued (#4ii)
  death        Onion sizes (pontoon counts) Death forbids a picture in (#9): [2] or [2, 3]
  arch         #10i in force (who plays the jack of staves plays no eight as eight)
  jack_wild    the jack of staves is wild (#10ii)
  fool         bagels and Onions swap places (#11)
  octavo       #3 in force            crippling    #0 in force (report running flushes)
  shift        [from_card, to_card] of Great A'Tuin (#6)
  elephants    the four cards declared with the queen of coins (#7)

The value is a list of keys (see ``profile``).  Running flushes (#0) are
found here as well.
"""

from __future__ import annotations

from typing import Any

from domain.onion.hands.cards import ARCH, card_name, is_ace, rank_of, suit_of
from domain.onion.hands.profile import POS_BASE, POS_FOOL, _Prof, _profile
from domain.onion.hands.search import _search, _solve


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
                    for rr in (1, 14) if r == 1 else (r,):
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
        sender_opts = [
            ("no8", ["#8i: the Sender of Eights is visible: this hand plays no eight, to keep its aces"]),
            ("zero", ["#8i: the Sender of Eights is visible and this hand plays eights: its aces count zero"]),
        ]
    arch_opts = [(None, [])]
    if mods.get("arch") and ARCH in idx and weights:
        arch_opts = [
            ("nojack", ["#10i: the jack of staves is left out, so eights may count eight"]),
            ("no8", ["#10i: the jack of staves may be played, so no eight counts eight"]),
        ]
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
    return {
        "value": value,
        "groupings": out,
        "unused": [cards[k] for k in range(n) if not used >> k & 1],
        "notes": notes,
        "run": run,
        "top": top,
        "onion_wilds": ow,
        "null_eights": null_eights,
    }


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
    return (
        value,
        groups,
        [
            "#9: Death is visible: one picture of this hand takes no part in a "
            + " or ".join(["Double", "Triple"][: len(death)])
            + " Onion"
        ],
    )


def _solve_lady(p: _Prof, pos: dict, mods: dict, usable: int) -> tuple[list[int], list, _Prof, list[str]]:
    """#4ii: one card that could count eleven counts one only (the owner picks
    which), except in a Great Onion; the search keeps only arrangements where
    such a card is idle or its grouping stands without the eleven."""
    value, groups, notes = _solve_death(p, pos, mods, usable)
    if mods.get("lady") and any(usable >> k & 1 and 11 in p.vals[k] for k in range(len(p.cards))):
        notes = notes + ["#4ii: the Lady holds one card of this hand that could count eleven to one"]
    return value, groups, p, notes
