"""El Gran Dalmuti: ``legal_moves`` and ``timeout_move``."""

from __future__ import annotations

from itertools import combinations

from domain.base import RuleViolation
from domain.dalmuti.state import _v1, may_declare, placing_slots, to_act
from domain.dalmuti.tricks import _play_moves


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state["players"]):
        return []
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    hand = state["hands"][seat]
    order = state["order"]
    if phase == "play":
        return _play_moves(hand, state["trick"])
    if phase == "revolution":
        if _v1(state) or may_declare(state, seat):
            return [{"type": "declare_revolution"}, {"type": "decline_revolution"}]
        return [{"type": "decline_revolution"}]
    if phase == "placing":
        return [
            {"type": "place_newcomer", "newcomer": s, "slot": k}
            for s in state["newcomers"]
            for k in placing_slots(state)
        ]
    if phase == "taxes":
        moves: list[dict] = []
        if seat in state["tax_pending"]:
            need = 2 if seat == order[0] else 1
            for combo in sorted(set(combinations(hand, need))):
                moves.append({"type": "give_taxes", "cards": list(combo)})
        if seat == state["exchange_seat"]:
            for other in order[2:-2]:
                if other != seat:
                    moves.append({"type": "merchant_exchange", "with": other})
            moves.append({"type": "decline_exchange"})
        return moves
    return []


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    hand = state["hands"][seat]
    order = state["order"]
    if phase == "play":
        if state["trick"] is not None:
            return {"type": "pass"}
        return {"type": "play", "cards": [hand[-1]]}  # the worst single card
    if phase == "revolution":
        return {"type": "decline_revolution"}
    if phase == "placing":
        return {"type": "place_newcomer", "newcomer": state["newcomers"][0], "slot": placing_slots(state)[0]}
    # taxes: a giver gives its worst cards; the Merchant declines
    if seat in state["tax_pending"]:
        need = 2 if seat == order[0] else 1
        return {"type": "give_taxes", "cards": hand[-need:]}
    return {"type": "decline_exchange"}
