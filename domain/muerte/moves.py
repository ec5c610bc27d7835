"""¡Muerte al rey!: ``legal_moves`` and ``timeout_move``."""

from __future__ import annotations

from domain.base import RuleViolation
from domain.muerte.cards import KINGS
from domain.muerte.state import (
    _alive,
    _choosing,
    _members,
    _other,
    must_accuse,
    team_of,
    teammates,
    to_act,
    treason_found,
)


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state["players"]):
        return []
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    hand = state["hands"][seat]
    if phase == "turn":
        moves: list[dict] = []
        if not must_accuse(state, seat):
            for mate in teammates(state, seat):
                for c in hand:
                    moves.append({"type": "exchange", "with": mate, "card": c})
        opp = _other(team_of(state, seat))
        for s in _members(state, opp):
            if _alive(state, s):
                moves.append({"type": "accuse", "target": s})
        return moves
    if phase in ("giveback", "discard"):
        kind = "give_back" if phase == "giveback" else "discard"
        return [{"type": kind, "card": c} for c in hand]
    if phase == "treason":
        found = [{"type": "denounce"}] if treason_found(state, seat) else []
        return found + [{"type": "ignore_treason"}]
    if phase == "swapping":
        return [{"type": "swap_identity", "with": s} for s in range(len(state["players"])) if s != seat]
    if phase == "assigning":
        a = state["assign"][_choosing(state, seat)]
        return [{"type": "assign_identity", "to": s} for s in a["seats"] if str(s) not in a["given"]]
    return []


def _not_king(state: dict, seat: int) -> str:
    hand = state["hands"][seat]
    king = KINGS[team_of(state, seat)]
    return next((c for c in hand if c != king), hand[0])


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if phase == "turn":
        if must_accuse(state, seat):
            order = state["order"]
            opp = _other(team_of(state, seat))
            target = next(s for s in order if team_of(state, s) == opp and _alive(state, s))
            return {"type": "accuse", "target": target}
        order = state["order"]
        m = len(order)
        i = order.index(seat)
        mates = teammates(state, seat)
        mate = next(order[(i + k) % m] for k in range(1, m) if order[(i + k) % m] in mates)
        return {"type": "exchange", "with": mate, "card": _not_king(state, seat)}
    if phase == "giveback":
        return {"type": "give_back", "card": _not_king(state, seat)}
    if phase == "discard":
        return {"type": "discard", "card": _not_king(state, seat)}
    if phase == "treason":
        return {"type": "ignore_treason"}
    if phase == "swapping":
        order = state["order"]
        i = order.index(seat)
        return {"type": "swap_identity", "with": order[(i + 1) % len(order)]}
    return legal_moves(state, seat)[0]
