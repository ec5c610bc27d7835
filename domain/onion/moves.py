"""Cripple Mr Onion: ``legal_moves`` and ``timeout_move``."""

from __future__ import annotations

from domain.base import RuleViolation
from domain.onion.betting import NO_RAISE_PARTS
from domain.onion.dealership import _dealer_may_fold_extra, _extra_owed
from domain.onion.modifiers.declarations import _declarations
from domain.onion.modifiers.state import _MOD_PHASES, _disclosed
from domain.onion.state import _amounts, _cap, to_act


def _base_legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        return []
    phase = state["phase"]
    stake = state["options"]["stake"]
    money = state["bankrolls"][seat]
    cap = _cap(state)
    if phase == "draw":
        hand = state["hands"][seat]
        moves = [{"type": "discard", "cards": []}]
        moves += [{"type": "discard", "cards": [c]} for c in hand]
        moves.append({"type": "discard", "cards": hand[:2]})
        moves.append({"type": "discard", "cards": hand[:4]})
        if seat != state["order"][0]:
            moves.append({"type": "fold"})
        return moves
    if phase == "bet_name":
        return [{"type": "bet", "amount": a} for a in _amounts(stake, min(cap, money))]
    if phase == "bet_respond":
        b = state["betting"]
        moves = []
        if money >= b["bet"]:
            may_raise = (b["round"], b["part"]) not in NO_RAISE_PARTS
            hi = min(cap, money - b["bet"]) if may_raise else 0
            moves = [{"type": "match", "raise": r} for r in _amounts(stake, hi)]
        return moves + [{"type": "fold"}]
    if phase == "bet_dealer":
        owed = sum(state["betting"]["raises"].values())
        return ([{"type": "match"}] if money >= owed else []) + [{"type": "fold"}]
    if phase == "auction":
        a = state["auction"]
        if a is None:  # between two events of one move (a replay may stop there): nobody bids
            return []
        own = a["bids"].get(str(seat), 0)
        lo = a["high"] + stake
        return ([{"type": "bid", "amount": lo}] if lo - own <= money else []) + [{"type": "decline_bid"}]
    if phase == "buy":
        left = 5 - state["bought"]
        return [{"type": "buy", "count": k} for k in range(1, left + 1) if k * stake <= money] + [{"type": "stand"}]
    if phase == "extra":
        return [{"type": "extra_bet", "amount": a} for a in _amounts(stake, min(cap, money))]
    if phase == "dealer_extra":
        ok = money >= _extra_owed(state, seat)
        fold = [{"type": "fold"}] if _dealer_may_fold_extra(state, seat) else []
        return ([{"type": "match_extra"}] if ok else []) + [{"type": "pass_dealership"}] + fold
    if phase == "offer":
        ok = money >= _extra_owed(state, seat)
        return ([{"type": "accept_dealership"}] if ok else []) + [{"type": "decline_dealership"}]
    return []


def _base_timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if phase == "draw":
        return {"type": "discard", "cards": []}
    if phase == "bet_name":
        return {"type": "bet", "amount": 0}
    if phase == "bet_respond":
        return {"type": "match", "raise": 0} if state["betting"]["bet"] == 0 else {"type": "fold"}
    if phase == "bet_dealer":
        return {"type": "fold"}
    if phase == "auction":
        return {"type": "decline_bid"}
    if phase == "buy":
        return {"type": "stand"}
    if phase == "extra":
        return {"type": "extra_bet", "amount": 0}
    if phase == "dealer_extra":
        if _extra_owed(state, seat) == 0:
            return {"type": "match_extra"}
        return {"type": "pass_dealership"}
    return {"type": "decline_dealership"}


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        return []
    m = state.get("mods")
    if m is None:
        return _base_legal_moves(state, seat)
    phase = state["phase"]
    if phase == "choose":
        return [{"type": "choose", "card": c} for c in m["pending"]["offer"]]
    if phase == "reveal":
        return [{"type": "reveal", "card": c} for c in sorted(set(state["hands"][seat]) - _disclosed(state, seat))]
    decl = _declarations(state, seat)
    if phase == "predeclare":
        return decl + [{"type": "ready"}]
    if phase == "showdown":
        return decl + [{"type": "show"}]
    if phase == "answer":
        return decl + [{"type": "concede"}]
    return _base_legal_moves(state, seat) + decl


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if state.get("mods") is not None and phase in _MOD_PHASES:
        if phase in ("choose", "reveal"):
            return legal_moves(state, seat)[0]
        return {"predeclare": {"type": "ready"}, "showdown": {"type": "show"}, "answer": {"type": "concede"}}[phase]
    return _base_timeout_move(state, seat)
