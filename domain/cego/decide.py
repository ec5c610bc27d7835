"""Cego: ``decide``, a command to the events it causes."""

from __future__ import annotations

from domain.base import RuleViolation
from domain.cego.auction import _d_call
from domain.cego.deal import _d_start
from domain.cego.exchange import _d_exchange
from domain.cego.tricks import _d_play

_DECIDERS = {
    "start": _d_start,
    "call": _d_call,
    "keep": _d_exchange,
    "show": _d_exchange,
    "discard": _d_exchange,
    "play": _d_play,
}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    fn = _DECIDERS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        raise RuleViolation(
            "unknown-move", f"unknown move type {kind!r} (known: {', '.join(sorted(_DECIDERS))})", "invalid"
        )
    return fn(state, command)
