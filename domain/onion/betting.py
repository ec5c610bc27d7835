"""Cripple Mr Onion: the betting rounds (round 1 in three parts, round 2 in
two): the Dealer names a bet, the others match it (and may raise) or fold.
"""

from __future__ import annotations

from domain.base import RuleViolation, event
from domain.onion.outbox import _Out
from domain.onion.rounds import _lone_winner, _open_part
from domain.onion.showdown import _showdown
from domain.onion.state import _acting, _after_dealer, _amount, _cap, _next_in

BETTING_PARTS = {1: 3, 2: 2}  # betting round -> number of parts


NO_RAISE_PARTS = {(1, 3)}


def _close_part(out: _Out, command: dict) -> None:
    """The current betting part is over: the next part, the second deal or the Showdown."""
    st = out.state
    b = st["betting"]
    rnd, part = b["round"], b["part"]
    if part < BETTING_PARTS[rnd]:
        out.emit(event("PartOpened", {"round": rnd, "part": part + 1, "to": _open_part(st, rnd, part + 1)}))
        return
    if rnd == 1:
        dealer = st["order"][0]
        buyers = _after_dealer(st)
        out.emit(
            event(
                "DealerDealt",
                {"seat": dealer, "count": 5, "to": {"phase": "buy", "turn": buyers[0], "betting": None}},
                {dealer: {"cards": sorted(st["deck"][:5])}},
            )
        )
        return
    _showdown(out, command)


def _d_bet(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("bet_name",))
    cap = min(_cap(state), state["bankrolls"][seat])
    amount = _amount(command, "amount", 0, cap, "bet")
    first = _after_dealer(state)[0]
    out = _Out(state)
    out.emit(
        event(
            "BetNamed", {"seat": seat, "amount": amount, "paid": amount, "to": {"phase": "bet_respond", "turn": first}}
        )
    )
    return out.events


def _respond_to(state: dict, seat: int, raised: int) -> dict | None:
    live = _after_dealer(state)
    nxt = _next_in(live, seat)
    if nxt is not None:
        return {"phase": "bet_respond", "turn": nxt}
    raises = sum(state["betting"]["raises"].values()) + raised
    if raises:
        return {"phase": "bet_dealer", "turn": state["order"][0]}
    return None


def _d_respond(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("bet_respond",))
    b = state["betting"]
    bet = b["bet"]
    out = _Out(state)
    if command["type"] == "fold":
        to = _respond_to(state, seat, 0)
        out.emit(event("Folded", {"seat": seat, "reason": "declined-bet", "to": to}))
        if not _lone_winner(out, command) and to is None:
            _close_part(out, command)
        return out.events
    if state["bankrolls"][seat] < bet:
        raise RuleViolation("cannot-cover", f"you cannot cover the bet of {bet}: you must fold")
    may_raise = (b["round"], b["part"]) not in NO_RAISE_PARTS
    hi = min(_cap(state), state["bankrolls"][seat] - bet) if may_raise else 0
    if command.get("raise", 0) and not may_raise:
        raise RuleViolation("no-raise-in-part-three", "no raising in the third part of the first betting round")
    raised = _amount(command, "raise", 0, hi, "raise")
    to = _respond_to(state, seat, raised)
    out.emit(event("Matched", {"seat": seat, "amount": bet, "raise": raised, "paid": bet + raised, "to": to}))
    if to is None:
        _close_part(out, command)
    return out.events
