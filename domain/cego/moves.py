"""Cego: ``legal_moves`` and ``timeout_move``."""

from __future__ import annotations

from domain.base import RuleViolation
from domain.cego.auction import auction_calls
from domain.cego.cards import strength
from domain.cego.exchange import exchange_moves
from domain.cego.state import to_act
from domain.cego.tricks import playable


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        return []
    phase = state["phase"]
    if phase == "exchange":
        return exchange_moves(state, seat)
    if phase == "play":
        return [{"type": "play", "card": c} for c in sorted(playable(state, seat))]
    return [{"type": "call", "call": c} for c in auction_calls(state, seat)]


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if phase == "play":
        return {"type": "play", "card": min(playable(state, seat), key=strength)}
    if phase == "exchange":
        hand = sorted(state["hands"][seat], key=strength, reverse=True)
        step = state["step"]
        if step == "keep2":
            return {"type": "keep", "cards": sorted(hand[:2])}
        if step == "keep1":
            return {"type": "keep", "cards": hand[:1]}
        if step == "discard":
            return {"type": "discard", "cards": hand[-1:]}
        return exchange_moves(state, seat)[0]
    calls = auction_calls(state, seat)
    return {"type": "call", "call": "pass" if "pass" in calls else calls[0]}
