"""Cripple Mr Onion: deciding the modifiers' moves (declare, choose a
replacement, reveal, ready, show, concede).

The legality of a move is read from ``legal_moves`` and the duels are played
on by ``showdown``, so this module sits above both (and outside the
``modifiers`` package, which they read).
"""

from __future__ import annotations

from typing import Any

from domain.base import RuleViolation, event, require_seat
from domain.onion import hands as H
from domain.onion.modifiers.state import _DECL_CARD, _disclosed, _holder, _wild
from domain.onion.moves import legal_moves
from domain.onion.outbox import _Out
from domain.onion.showdown import _sd_begin, _sd_compare, _sd_end_duel, _sd_show
from domain.onion.state import _next_in, to_act


def _norm(move: dict) -> dict:
    out = {k: v for k, v in move.items() if k not in ("seat", "seed")}
    if isinstance(out.get("cards"), list):
        out["cards"] = sorted(out["cards"]) if all(isinstance(x, int) for x in out["cards"]) else out["cards"]
    return out


def _d_mod(state: dict, command: dict) -> list[dict]:
    seat = require_seat(command)
    if state.get("mods") is None:
        raise RuleViolation("no-modifiers", "no modifier is switched on at this table", "invalid")
    if seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"it is not seat {seat}'s turn to make this move now", "turn")
    kind = command["type"]
    legal = legal_moves(state, seat)
    if _norm(command) not in [_norm(x) for x in legal]:
        if kind == "declare":
            raise RuleViolation("cannot-declare", "that declaration is not open to you now")
        raise RuleViolation("not-allowed-now", f"'{kind}' with these fields is not a legal move now")
    out = _Out(state)
    st = state
    m = st["mods"]
    if kind == "declare":
        _declare(out, command, seat)
    elif kind == "choose":
        p = m["pending"]
        idx = p["offer"].index(command["card"])
        kept, rejected = p["offer"][idx], p["offer"][1 - idx]
        public_kept = p["card"] in st["up"][seat]
        out.emit(
            event(
                "ReplacementChosen",
                {"seat": seat, "card": p["card"], "index": idx, **({"kept": kept} if public_kept else {})},
                {seat: {"kept": kept, "rejected": rejected}},
            )
        )
        _after_declaring(out, command)
    elif kind == "reveal":
        out.emit(event("CardRevealed", {"seat": seat, "card": command["card"]}))
        if out.state["mods"]["pending"] is None:
            _after_declaring(out, command)
    elif kind == "ready":
        order = m["sd"]["order"]
        nxt = _next_in(order, seat)
        out.emit(
            event("Ready", {"seat": seat, "to": {"phase": "predeclare", "turn": nxt} if nxt is not None else None})
        )
        if nxt is None:
            _sd_begin(out, command)
    elif kind == "show":
        _sd_show(out, command, seat)
    elif kind == "concede":
        sd = m["sd"]
        w = sd["holder"] if seat == sd["challenger"] else sd["challenger"]
        out.emit(event("Conceded", {"seat": seat}))
        _sd_end_duel(out, command, w, seat, "conceded")
    return out.events


def _declare(out: _Out, command: dict, seat: int) -> None:
    st = out.state
    m = st["mods"]
    kind = command["modifier"]
    data: dict[str, Any] = {"seat": seat, "modifier": kind, "card": _DECL_CARD.get(kind, H.LADY)}
    private = None
    if kind == "lady":
        data["mode"] = "devalue" if _wild(st, seat) else "replace"
    elif kind == "fate":
        data["mode"] = "stop" if _wild(st, seat) else "replace"
        if data["mode"] == "replace":
            data["zeroes"] = m["lady"]["seat"]
    elif kind == "atuin":
        data["from"], data["to"] = command["from"], command["to"]
    elif kind == "elephants":
        data["cards"] = sorted(command["cards"])
    elif kind == "archchancellor":
        holder = _holder(st, H.DEATH)
        data["death_holder"] = holder
        data["jack_wild"] = holder is None
        if holder is not None:
            queue = [
                s
                for s in st["order"][1:] + st["order"][:1]
                if s in st["in_round"]
                and s not in (seat, holder)
                and set(st["hands"][s]) - _disclosed(st, s) - {H.ARCH, H.DEATH}
            ]
            if queue:
                data["pending"] = {"kind": "reveal", "seat": queue[0], "queue": queue}
    if data.get("mode") == "replace":
        data["pending"] = {"kind": "choose", "seat": seat, "card": data["card"]}
        private = {seat: {"offer": list(st["deck"][:2])}}
    out.emit(event("Declared", data, private))
    if out.state["mods"]["pending"] is None:
        _after_declaring(out, command)


def _after_declaring(out: _Out, command: dict) -> None:
    """A declaration is complete: in an answer, the hands are compared again."""
    st = out.state
    if st["phase"] == "answer":
        _sd_compare(out, command)
