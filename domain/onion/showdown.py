"""Cripple Mr Onion: the Showdown.

In the base game the best hand takes the Pot (a complete tie goes to the
earlier seat in precedence).  With any modifier on, the Showdown is a
sequence of duels: after a round of declarations (``predeclare``) the Elder's
hand is shown; each next player (``showdown``) may declare modifiers and
shows; the hands are compared and the losing side may ``answer`` with a
modifier (the comparison is made again) or concede; the winner holds the
table against the next player, round to the Dealer.
"""

from __future__ import annotations

from domain.base import event
from domain.onion import hands as H
from domain.onion.modifiers.state import _arrange, _interactive, _opt
from domain.onion.outbox import _Out
from domain.onion.rounds import _end_round
from domain.onion.state import _live


def _showdown(out: _Out, command: dict) -> None:
    st = out.state
    if st.get("mods") is not None:
        _mod_showdown(out, command)
        return
    live = _live(st)
    result = {}
    best_seat, best_value = None, None
    for s in live:  # precedence order: a complete tie goes to the earlier seat
        arr = H.best_arrangement(st["hands"][s])
        result[str(s)] = {"cards": list(st["hands"][s]), **arr}
        if best_value is None or H.compare(arr["value"], best_value) > 0:
            best_seat, best_value = s, arr["value"]
    _end_round(out, command, best_seat, result, "showdown")


def _mod_showdown(out: _Out, command: dict) -> None:
    st = out.state
    order = [s for s in st["order"][1:] + st["order"][:1] if s in st["in_round"]]
    to = {"phase": "predeclare", "turn": order[0]} if _interactive(st) else None
    out.emit(event("ShowdownOpened", {"order": order, "to": to}))
    if to is None:
        _sd_begin(out, command)


def _sd_begin(out: _Out, command: dict) -> None:
    st = out.state
    holder = st["mods"]["sd"]["order"][0]
    out.emit(
        event(
            "HandShown",
            {"seat": holder, "role": "holder", "cards": list(st["hands"][holder]), "arrangement": _arrange(st, holder)},
        )
    )
    _sd_next(out, command)


def _sd_next(out: _Out, command: dict) -> None:
    st = out.state
    sd = st["mods"]["sd"]
    rest = [s for s in sd["order"] if s not in sd["shown"]]
    if not rest:
        _sd_finish(out, command)
        return
    c = rest[0]
    if _interactive(st):
        out.emit(event("ChallengerCalled", {"seat": c, "to": {"phase": "showdown", "turn": c}}))
        return
    _sd_show(out, command, c)


def _sd_show(out: _Out, command: dict, seat: int) -> None:
    st = out.state
    out.emit(
        event(
            "HandShown",
            {"seat": seat, "role": "challenger", "cards": list(st["hands"][seat]), "arrangement": _arrange(st, seat)},
        )
    )
    _sd_compare(out, command)


def _precedes(st: dict, a: int, b: int) -> bool:
    return st["order"].index(a) < st["order"].index(b)


def _cripples(st: dict, x: dict, y: dict) -> bool:
    """#0 (with #2, #3, #11): hand ``x``'s running flush cripples ``y``'s top grouping."""
    run = x.get("run")
    if not _opt(st, "crippling") or not run:
        return False
    top = y.get("top")
    fool = st["mods"]["fool"]
    need = {"great_onion": 9, "lesser_onion": 10}.get(top)
    if top == "great_bagel" and fool:
        need = 9
    if need is None or run["length"] < need:
        return False
    if _opt(st, "wild_crippling") and run["wilds"] > y.get("onion_wilds", 0):
        return False
    return True


def _judge(st: dict, h: int, c: int) -> tuple[int, int, str, dict, dict | None]:
    """(winner, loser, how, arrangements, new crippler) of the duel of ``h`` and ``c``."""
    sd = st["mods"]["sd"]
    a = {h: _arrange(st, h), c: _arrange(st, c)}
    cr = sd["crippler"]
    if cr is not None and cr["seat"] in (h, c):
        k = cr["seat"]
        o = c if k == h else h
        run = a[o].get("run")
        if (
            run
            and run["length"] > cr["length"]
            and not (_opt(st, "wild_crippling") and run["wilds"] > cr["victim_wilds"])
        ):
            return o, k, "out-crippled", a, {"seat": o, "length": run["length"], "victim_wilds": cr["victim_wilds"]}
        return k, o, "crippler", a, None
    for x, y in ((c, h), (h, c)):
        if _cripples(st, a[x], a[y]):
            return (
                x,
                y,
                "crippled",
                a,
                {"seat": x, "length": a[x]["run"]["length"], "victim_wilds": a[y].get("onion_wilds", 0)},
            )
    cmp = H.compare(a[h]["value"], a[c]["value"])
    if cmp == 0:
        w = h if _precedes(st, h, c) else c
        return w, (c if w == h else h), "precedence", a, None
    return (h, c, "value", a, None) if cmp > 0 else (c, h, "value", a, None)


def _sd_compare(out: _Out, command: dict) -> None:
    st = out.state
    sd = st["mods"]["sd"]
    h, c = sd["holder"], sd["challenger"]
    w, lo, how, a, crip = _judge(st, h, c)
    answer = _interactive(st) and how not in ("crippled", "out-crippled", "crippler")
    to = {"phase": "answer", "turn": lo} if answer else None
    out.emit(
        event(
            "Compared",
            {
                "holder": h,
                "challenger": c,
                "winner": w,
                "loser": lo,
                "how": how,
                "hands": {str(s): v for s, v in a.items()},
                "crippler": crip,
                "to": to,
            },
        )
    )
    if not answer:
        _sd_end_duel(out, command, w, lo, how)


def _sd_end_duel(out: _Out, command: dict, w: int, lo: int, how: str) -> None:
    out.emit(event("DuelEnded", {"winner": w, "loser": lo, "how": how}))
    _sd_next(out, command)


def _sd_finish(out: _Out, command: dict) -> None:
    st = out.state
    sd = st["mods"]["sd"]
    result = {str(s): _arrange(st, s) for s in sd["order"]}
    _end_round(out, command, sd["holder"], result, "showdown")
