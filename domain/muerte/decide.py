"""¡Muerte al rey!: ``decide``, a command to the events it causes."""

from __future__ import annotations

from domain.base import RuleViolation
from domain.muerte.deal import _d_start
from domain.muerte.identities import _d_assign, _d_swap
from domain.muerte.turns import _d_accuse, _d_discard, _d_exchange, _d_give_back, _d_treason

_DECIDERS = {
    "start": _d_start,
    "exchange": _d_exchange,
    "give_back": _d_give_back,
    "denounce": _d_treason,
    "ignore_treason": _d_treason,
    "accuse": _d_accuse,
    "discard": _d_discard,
    "swap_identity": _d_swap,
    "assign_identity": _d_assign,
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
