"""Cripple Mr Onion: readings of the modifier state of a round (which
modifiers are on, wild eights, disclosed and visible cards) and what the
modifiers in force mean for a hand (the context ``hands.evaluate`` values it
under).  The modifier state a round starts with is laid out in
``domain.onion.state``.
"""

from __future__ import annotations

from typing import Any

from domain.onion import hands as H

INTERACTIVE = ("lady", "fate", "great_atuin", "elephants", "sender_of_eights", "death", "archchancellor", "fool")


_SD_PHASES = ("predeclare", "showdown", "answer")


_MOD_PHASES = _SD_PHASES + ("choose", "reveal")


_NAMES = {
    H.LADY: "the Lady",
    H.FATE: "Fate",
    H.ATUIN: "Great A'Tuin",
    H.SENDER: "the Sender of Eights",
    H.DEATH: "Death",
    H.ARCH: "the Archchancellor",
    H.FOOL: "the Fool",
}


_DECL_CARD = {
    "lady": H.LADY,
    "fate": H.FATE,
    "atuin": H.ATUIN,
    "elephants": H.ATUIN,
    "sender": H.SENDER,
    "death": H.DEATH,
    "archchancellor": H.ARCH,
    "fool": H.FOOL,
}


def _opt(st: dict, name: str) -> bool:
    return bool(st["options"].get(name))


def _wild(st: dict, seat: int) -> bool:
    m = st["mods"]
    return _opt(st, "null_eights") and (m["wild"] or m["rewild"] == seat)


def _disclosed(st: dict, seat: int) -> set[int]:
    m = st["mods"]
    sd = m["sd"]
    if sd and seat in sd["shown"]:
        return set(st["hands"][seat])
    return (set(st["up"][seat]) | set(m["shown"][seat])) & set(st["hands"][seat])


def _visible(st: dict, c: int) -> bool:
    """A special card is visible: declared this round, or face up in a hand still in."""
    if str(c) in st["mods"]["declared"]:
        return True
    return any(c in st["hands"][s] and c in _disclosed(st, s) for s in st["in_round"])


def _holder(st: dict, c: int) -> int | None:
    for s in st["in_round"]:
        if c in st["hands"][s]:
            return s
    return None


def _ctx(st: dict, seat: int) -> dict:
    """What the modifiers in force mean for ``seat``'s hand (see hands.evaluate)."""
    m = st["mods"]
    wild = _wild(st, seat)
    ctx: dict[str, Any] = {
        "wild": wild,
        "null": _opt(st, "null_eights") and not wild,
        "fool": m["fool"],
        "octavo": _opt(st, "octavo") and wild,
        "crippling": _opt(st, "crippling"),
        "arch": _opt(st, "archchancellor"),
        "jack_wild": m["jack_wild"],
    }
    if _opt(st, "sender_of_eights"):
        if wild and m["sender"] is not None:
            ctx["zero_aces"] = ctx["wild_limited"] = True
        elif not wild and _visible(st, H.SENDER):
            ctx["sender"] = True
    if seat in m["zeroed"]:
        ctx["zero_aces"] = True
    lady = m["lady"]
    if lady and lady["mode"] == "devalue" and m["wild"] and lady["seat"] != seat:
        ctx["lady"] = True
    if _opt(st, "death") and _visible(st, H.DEATH):
        ctx["death"] = [2, 3] if wild else [2]
    if m["atuin"] and m["atuin"]["seat"] == seat:
        ctx["shift"] = [m["atuin"]["from"], m["atuin"]["to"]]
    if m["elephants"] and m["elephants"]["seat"] == seat:
        ctx["elephants"] = list(m["elephants"]["cards"])
    return ctx


def _arrange(st: dict, seat: int) -> dict:
    hand = list(st["hands"][seat])
    return {"cards": hand, **H.evaluate(hand, _ctx(st, seat))}


def _interactive(st: dict) -> bool:
    return any(_opt(st, name) for name in INTERACTIVE)
