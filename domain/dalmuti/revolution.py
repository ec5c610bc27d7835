"""El Gran Dalmuti: the revolution question after the deal.

Rules version 2 asks every seat at once after every deal whether it declares
a revolution, so that nothing public tells who holds both jesters.  Version 1
asked the holder alone (the seat was named in ``HandDealt``).
"""

from __future__ import annotations

import hashlib

from domain.base import RuleViolation, event, int_field
from domain.dalmuti.cards import JESTER
from domain.dalmuti.evolve import _Out
from domain.dalmuti.state import _seat_in_phase, _v1, may_declare


def _d_revolution(state: dict, command: dict) -> list[dict]:
    if not _v1(state):
        return _d_revolution_answer(state, command)
    seat = _seat_in_phase(state, command, "revolution")
    if seat != state["jesters_seat"]:
        raise RuleViolation("not-your-turn", "only the player holding both jesters may declare a revolution", "turn")
    order = state["order"]
    if command["type"] == "decline_revolution":
        return [event("RevolutionDeclined", {"seat": seat})]
    greater = seat == order[-1]
    new_order = order[::-1] if greater else list(order)
    return [event("RevolutionDeclared", {"seat": seat, "greater": greater, "order": new_order})]


def _d_revolution_answer(state: dict, command: dict) -> list[dict]:
    """Rules 2: every seat answers; the holder of both jesters may declare.

    Every answer is the same public event, ``RevolutionAnswered`` naming the
    seat, with the choice in the seat's private part beside a salt drawn from
    the command's seed (the event hash covers the private part: without the
    salt anyone could hash both possible answers and compare).  When the last
    seat has answered, one event says what the table decided."""
    seat = _seat_in_phase(state, command, "revolution")
    if seat not in state["order"]:
        raise RuleViolation("not-your-turn", "you take no part in this hand", "turn")
    if seat not in state["revolution_pending"]:
        raise RuleViolation("revolution-already-answered", "you have already answered the revolution question", "turn")
    declare = command["type"] == "declare_revolution"
    if declare and not may_declare(state, seat):
        if state["revolution"] is not None and state["hands"][seat].count(JESTER) == 2:
            detail = (
                "this first hand is already a revolution: only a Greater Peon dealt both jesters "
                "may declare (a greater revolution)"
            )
        else:
            detail = "only a player dealt both jesters may declare a revolution: answer decline_revolution"
        raise RuleViolation("no-revolution", detail)
    seed = int_field(command, "seed")
    salt = hashlib.sha256(f"naipes-revolution-salt:{seed}:{seat}".encode()).hexdigest()[:32]
    out = _Out(state)
    out.emit(event("RevolutionAnswered", {"seat": seat}, {seat: {"declare": declare, "salt": salt}}))
    st = out.state
    if st["revolution_pending"]:
        return out.events
    order = st["order"]
    declared = [s for s in order if st["revolution_answers"].get(str(s))]
    if declared:
        holder = declared[0]  # two jesters: at most one seat can declare
        greater = holder == order[-1]
        new_order = order[::-1] if greater else list(order)
        out.emit(event("RevolutionDeclared", {"seat": holder, "greater": greater, "order": new_order}))
    else:
        out.emit(event("RevolutionDeclined", {}))
    return out.events
