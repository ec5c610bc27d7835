"""El Gran Dalmuti: ``decide``, a command to the events it causes."""

from __future__ import annotations

from domain.base import RuleViolation
from domain.dalmuti.deal import _d_join, _d_place, _d_start
from domain.dalmuti.revolution import _d_revolution
from domain.dalmuti.taxes import _d_exchange, _d_give_taxes
from domain.dalmuti.tricks import _d_pass, _d_play

_DECIDERS = {
    "start": _d_start,
    "join": _d_join,
    "place_newcomer": _d_place,
    "declare_revolution": _d_revolution,
    "decline_revolution": _d_revolution,
    "give_taxes": _d_give_taxes,
    "merchant_exchange": _d_exchange,
    "decline_exchange": _d_exchange,
    "play": _d_play,
    "pass": _d_pass,
}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    fn = _DECIDERS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        known = ", ".join(sorted(_DECIDERS))
        raise RuleViolation("unknown-move", f"unknown move type {kind!r} (known: {known})", "invalid")
    return fn(state, command)
