"""Cripple Mr Onion: ``decide``, a command to the events it causes."""

from __future__ import annotations

from domain.base import RuleViolation, int_field, require_seat
from domain.onion.betting import _d_bet, _d_respond
from domain.onion.dealership import _d_auction, _d_dealer_extra, _d_dealer_raise, _d_extra, _d_offer
from domain.onion.drawing import _d_buy, _d_discard
from domain.onion.modifier_moves import _d_mod
from domain.onion.outbox import _Out
from domain.onion.rounds import _start_round
from domain.onion.state import _bets_in_front


def _d_start(state: dict, command: dict) -> list[dict]:
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the game has already started", "turn")
    out = _Out(state)
    _start_round(out, int_field(command, "seed"))
    return out.events


_DECIDERS = {
    "start": _d_start,
    "discard": _d_discard,
    "bet": _d_bet,
    "match": None,
    "fold": None,
    "bid": _d_auction,
    "decline_bid": _d_auction,
    "buy": _d_buy,
    "stand": _d_buy,
    "extra_bet": _d_extra,
    "match_extra": _d_dealer_extra,
    "pass_dealership": _d_dealer_extra,
    "accept_dealership": _d_offer,
    "decline_dealership": _d_offer,
    **dict.fromkeys(("declare", "choose", "reveal", "ready", "show", "concede"), _d_mod),
}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    if not isinstance(kind, str) or kind not in _DECIDERS:
        known = ", ".join(sorted(_DECIDERS))
        raise RuleViolation("unknown-move", f"unknown move type {kind!r} (known: {known})", "invalid")
    if state["phase"] == "finished" and kind != "start":
        raise RuleViolation("game-over", "the game is over", "turn")
    if kind in ("match", "fold"):
        phase = state["phase"]
        if phase == "draw" and kind == "fold":
            return _d_discard(state, command)
        if phase == "bet_dealer":
            return _d_dealer_raise(state, command)
        if phase == "bet_respond":
            return _d_respond(state, command)
        if phase == "dealer_extra" and kind == "fold" and _bets_in_front(state):
            return _d_dealer_extra(state, command)
        require_seat(command)
        raise RuleViolation("not-your-turn", f"there is nothing to {kind} now", "turn")
    fn = _DECIDERS[kind]
    return fn(state, command)
