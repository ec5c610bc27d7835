"""Cripple Mr Onion: the outbox a command's events are emitted into."""

from __future__ import annotations

from domain.base import Outbox, event
from domain.onion import hands as H
from domain.onion.evolve import evolve
from domain.onion.modifiers.state import _holder, _opt, _wild


class _Box(Outbox):
    """An Outbox that declares the Sender of Eights as soon as it is dealt in a
    round of wild eights (#8ii)."""

    __slots__ = ()
    DEALING = ("RoundStarted", "Discarded", "DealerDealt", "Bought", "Stood", "ReplacementChosen")

    def emit(self, ev: dict) -> None:
        super().emit(ev)
        st = self.state
        if ev["type"] not in self.DEALING or st.get("mods") is None or not _opt(st, "sender_of_eights"):
            return
        if st["mods"]["sender"] is not None or str(H.SENDER) in st["mods"]["declared"]:
            return
        s = _holder(st, H.SENDER)
        if s is not None and _wild(st, s):
            super().emit(event("Declared", {"seat": s, "modifier": "sender", "card": H.SENDER, "forced": True}))


def _Out(state: dict) -> Outbox:
    return _Box(state, evolve)
