"""Cripple Mr Onion: what the Dealer faces (the collective raise, the extra
bets), the Dealership passed or auctioned, and the extra bets themselves.

Since rules version 3 an extra bet lies in front of its player (``front``)
until the Dealer or a new Dealer matches the extra bets, and goes back to its
player when nobody does (under rules 1 and 2 it went straight into the Pot).
"""

from __future__ import annotations

from domain.base import RuleViolation, event
from domain.onion.betting import _close_part
from domain.onion.outbox import _Out
from domain.onion.rounds import _end_round, _lone_winner, _open_part
from domain.onion.state import (
    _acting,
    _after_dealer,
    _amount,
    _bets_in_front,
    _cap,
    _front,
    _live,
    _next_in,
    _rotate,
)


def _open_auction(out: _Out, command: dict, after: str | None = None) -> None:
    """``after``: "extra_bets" when the Dealer folded facing unmatched extra bets
    (the new Dealer then faces them in turn)."""
    st = out.state
    active = _live(st)  # the old Dealer has folded: Elder to Younger still in
    out.emit(
        event(
            "AuctionOpened",
            {"active": active, "to": {"phase": "auction", "turn": active[0]}, **({"after": after} if after else {})},
        )
    )


def _d_dealer_raise(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("bet_dealer",))
    owed = sum(state["betting"]["raises"].values())
    out = _Out(state)
    if command["type"] == "fold":
        out.emit(event("Folded", {"seat": seat, "reason": "dealer-declined-raise"}))
        if not _lone_winner(out, command):
            _open_auction(out, command)
        return out.events
    if state["bankrolls"][seat] < owed:
        raise RuleViolation("cannot-cover", f"you cannot cover the collective raise of {owed}: you must fold")
    out.emit(event("RaiseMatched", {"seat": seat, "amount": owed, "paid": owed}))
    _close_part(out, command)
    return out.events


def _auction_next(active: list[int], seat: int, leader: int | None) -> int | None:
    """The next bidder after ``seat`` round the table (never ``seat`` itself nor the leader)."""
    i = active.index(seat)
    for k in range(1, len(active)):
        s = active[(i + k) % len(active)]
        if s != leader:
            return s
    return None


def _d_auction(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("auction",))
    a = state["auction"]
    stake = state["options"]["stake"]
    out = _Out(state)
    bid = command["type"] == "bid"
    leader = seat if bid else a["leader"]
    nxt = _auction_next(a["active"], seat, leader)
    to = {"phase": "auction", "turn": nxt} if nxt is not None else None
    if bid:
        own = a["bids"].get(str(seat), 0)
        lo = a["high"] + stake
        if own + state["bankrolls"][seat] < lo:
            raise RuleViolation("cannot-cover", f"a bid must be at least {lo}: more than you can advance")
        amount = _amount(command, "amount", lo, own + state["bankrolls"][seat], "bid")
        out.emit(event("Bid", {"seat": seat, "amount": amount, "paid": amount - own, "to": to}))
    else:
        out.emit(event("BidDeclined", {"seat": seat, "bid": a["bids"].get(str(seat), 0), "to": to}))
    if to is not None:
        return out.events
    if leader is None:
        _end_round(out, command, None, None, "no-dealer")
        return out.events
    order = _rotate(state["seating"], leader)
    if a.get("after") == "extra_bets":  # the new Dealer faces the extra bets the old one refused
        out.emit(
            event(
                "DealerChanged",
                {
                    "dealer": leader,
                    "order": order,
                    "how": "auction",
                    "paid": 0,
                    "to": {"phase": "dealer_extra", "turn": leader},
                },
            )
        )
        return out.events
    out.emit(event("DealerChanged", {"dealer": leader, "order": order, "how": "auction", "paid": 0}))
    if not _lone_winner(out, command):
        _close_part(out, command)
    return out.events


def _after_buyer(out: _Out, seat: int) -> dict:
    st = out.state
    nxt = _next_in(_after_dealer(st), seat)
    if nxt is not None:
        return {"phase": "buy", "turn": nxt}
    return {"phase": "dealer_extra", "turn": st["order"][0]}


def _d_extra(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("extra",))
    amount = _amount(command, "amount", 0, min(_cap(state), state["bankrolls"][seat]), "extra bet")
    out = _Out(state)
    if _bets_in_front(state):  # on the table in front of the player until matched
        out.emit(
            event(
                "ExtraBet", {"seat": seat, "amount": amount, "paid": 0, "front": amount, "to": _after_buyer(out, seat)}
            )
        )
        return out.events
    out.emit(event("ExtraBet", {"seat": seat, "amount": amount, "paid": amount, "to": _after_buyer(out, seat)}))
    return out.events


def _extra_owed(state: dict, seat: int) -> int:
    return sum(v for k, v in state["extra"].items() if int(k) != seat and int(k) in state["in_round"])


def _pooled(state: dict) -> dict:
    """Rules 3 on: the extra bets lying in front of the players, all of which go into
    the Pot when the extra bets are matched ({} under rules 1 and 2)."""
    if not _bets_in_front(state):
        return {}
    chips = {str(s): c for s, c in enumerate(_front(state)) if c}
    return {"pooled": chips} if chips else {}


def _dealer_may_fold_extra(state: dict, seat: int) -> bool:
    """Rules 3 on: a Dealer facing extra bets (totalling more than 0) may fold instead of
    matching them or giving the Dealership away."""
    return _bets_in_front(state) and _extra_owed(state, seat) > 0


def _d_dealer_extra(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("dealer_extra",))
    out = _Out(state)
    if command["type"] == "match_extra":
        owed = _extra_owed(state, seat)
        if state["bankrolls"][seat] < owed:
            raise RuleViolation("cannot-cover", f"you cannot cover the extra bets ({owed}): pass the Dealership")
        out.emit(
            event(
                "ExtraMatched",
                {"seat": seat, "amount": owed, "paid": owed, **_pooled(state), "to": _open_part(state, 2, 1)},
            )
        )
        return out.events
    if command["type"] == "fold":
        if not _dealer_may_fold_extra(state, seat):
            raise RuleViolation(
                "nothing-to-fold-to", "the extra bets total 0: match them (it costs nothing) or pass the Dealership"
            )
        out.emit(event("Folded", {"seat": seat, "reason": "dealer-declined-extra"}))
        if not _lone_winner(out, command):
            _open_auction(out, command, "extra_bets")
        return out.events
    elder = _after_dealer(state)[0]
    out.emit(event("DealershipPassed", {"seat": seat, "to": {"phase": "offer", "turn": elder}}))
    return out.events


def _d_offer(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("offer",))
    out = _Out(state)
    if command["type"] == "accept_dealership":
        owed = _extra_owed(state, seat)
        if state["bankrolls"][seat] < owed:
            raise RuleViolation("cannot-cover", f"you cannot cover the others' extra bets ({owed})")
        order = _rotate(state["seating"], seat)
        st2 = dict(state, order=order)
        out.emit(
            event(
                "DealerChanged",
                {
                    "dealer": seat,
                    "order": order,
                    "how": "accepted",
                    "paid": owed,
                    **_pooled(state),
                    "to": _open_part(st2, 2, 1),
                },
            )
        )
        return out.events
    nxt = _next_in(_after_dealer(state), seat)
    if nxt is None:
        out.emit(event("DealershipDeclined", {"seat": seat}))
        _end_round(out, command, None, None, "dealership-refused")
    else:
        out.emit(event("DealershipDeclined", {"seat": seat, "to": {"phase": "offer", "turn": nxt}}))
    return out.events
