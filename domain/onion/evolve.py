"""Cripple Mr Onion: ``evolve``, the fold of one event into the state.

Money is in chips: ``sum(bankrolls) + pot + sum(front)`` never changes.
"""

from __future__ import annotations

from domain.base import match_ended, seat_parts
from domain.onion.modifiers.events import _MOD_AFTER, MOD_EVOLVERS
from domain.onion.state import _front, _goto


def _ev_round_started(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    n = len(state["players"])
    st["round_no"] = d["round"]
    st["dealer"] = d["dealer"]
    st["seating"] = list(d["seating"])
    st["order"] = list(d["order"])
    st["in_round"] = list(d["seating"])
    st["bankrolls"] = list(d["bankrolls"])
    st["pot"] = d["pot"]
    priv = ev.get("private") or {}
    hands: list[list[int]] = [[] for _ in range(n)]
    for seat, part in seat_parts(priv):
        hands[seat] = list(part["hand"])
    st["hands"] = hands
    st["up"] = [[] for _ in range(n)]
    st["deck"] = list(priv["deck"]["deck"]) if "deck" in priv else []
    st["discards"] = 0
    st["phase"] = "draw"
    st["turn"] = d["turn"]
    st["betting"] = None
    st["bought"] = 0
    st["extra"] = {}
    st["offer"] = None
    st["auction"] = None
    st["carry"] = False
    return st


def _pay(st: dict, state: dict, seat: int, chips: int) -> None:
    if chips:
        b = list(state["bankrolls"] if st["bankrolls"] is state["bankrolls"] else st["bankrolls"])
        b[seat] -= chips
        st["bankrolls"] = b
        st["pot"] = st["pot"] + chips


def _ev_discarded(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat, k = d["seat"], d["count"]
    st = dict(state)
    part = (ev.get("private") or {}).get(str(seat)) or {}
    hands = list(state["hands"])
    h = [c for c in hands[seat] if c not in part.get("discarded", [])]
    st["deck"] = state["deck"][len(part.get("drawn", [])) :] if not d["fold"] else state["deck"]
    hands[seat] = sorted(h + list(part.get("drawn", [])))
    st["hands"] = hands
    st["discards"] = state["discards"] + k
    if d["fold"]:
        st["in_round"] = [s for s in state["in_round"] if s != seat]
        hands[seat] = []
    _goto(st, d)
    return st


def _ev_folded(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat = d["seat"]
    st = dict(state)
    hands = list(state["hands"])
    st["discards"] = state["discards"] + len(hands[seat])
    hands[seat] = []
    st["hands"] = hands
    up = list(state["up"])
    up[seat] = []
    st["up"] = up
    st["in_round"] = [s for s in state["in_round"] if s != seat]
    _goto(st, d)
    return st


def _to_front(st: dict, seat: int, chips: int) -> None:
    """An extra bet leaves the bankroll and lies in front of its player."""
    b = list(st["bankrolls"])
    b[seat] -= chips
    st["bankrolls"] = b
    front = list(_front(st))
    front[seat] += chips
    st["front"] = front


def _pool(st: dict, pooled: dict | None) -> None:
    """The extra bets named in ``pooled`` (str(seat) -> chips) go from in front of their players into the Pot."""
    if not pooled:
        return
    front = list(_front(st))
    for seat, chips in pooled.items():
        front[int(seat)] -= chips
        st["pot"] = st["pot"] + chips
    st["front"] = front


def _ev_paid(state: dict, ev: dict) -> dict:
    """BetNamed, Matched, RaiseMatched, ExtraBet, ExtraMatched: chips into the Pot
    (an extra bet with ``front``: in front of its player; ``pooled``: the extra bets
    in front of the players go into the Pot)."""
    d = ev["data"]
    st = dict(state)
    _pay(st, state, d["seat"], d["paid"])
    if d.get("front"):
        _to_front(st, d["seat"], d["front"])
    _pool(st, d.get("pooled"))
    if ev["type"] == "BetNamed":
        st["betting"] = {**state["betting"], "bet": d["amount"], "raises": {}}
    elif ev["type"] == "Matched" and d.get("raise"):
        st["betting"] = {**state["betting"], "raises": {**state["betting"]["raises"], str(d["seat"]): d["raise"]}}
    elif ev["type"] == "ExtraBet":
        st["extra"] = {**state["extra"], str(d["seat"]): d["amount"]}
    _goto(st, d)
    return st


def _ev_dealer_dealt(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    seat = d["seat"]
    part = (ev.get("private") or {}).get(str(seat)) or {}
    hands = list(state["hands"])
    hands[seat] = sorted(hands[seat] + list(part.get("cards", [])))
    st["hands"] = hands
    st["deck"] = state["deck"][5:]
    st["bought"] = 0
    _goto(st, d)
    return st


def _ev_bought(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat, k = d["seat"], d["count"]
    st = dict(state)
    _pay(st, state, seat, d["paid"])
    part = (ev.get("private") or {}).get(str(seat)) or {}
    hands = list(state["hands"])
    hands[seat] = sorted(hands[seat] + list(part.get("cards", [])))
    st["hands"] = hands
    st["deck"] = state["deck"][k:]
    st["bought"] = state["bought"] + k
    _goto(st, d)
    return st


def _ev_stood(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat = d["seat"]
    st = dict(state)
    cards = list(d["up"])
    hands = list(state["hands"])
    hands[seat] = sorted(hands[seat] + cards)
    st["hands"] = hands
    up = list(state["up"])
    up[seat] = sorted(cards)
    st["up"] = up
    st["deck"] = state["deck"][len(cards) :]
    st["bought"] = 0
    _goto(st, d)
    return st


def _ev_dealer_changed(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    _pay(st, state, d["dealer"], d["paid"])
    _pool(st, d.get("pooled"))
    st["dealer"] = d["dealer"]
    st["order"] = list(d["order"])
    st["auction"] = None
    st["offer"] = None
    _goto(st, d)
    return st


def _ev_simple(state: dict, ev: dict) -> dict:
    """DealershipPassed, DealershipDeclined: only the turn moves."""
    d = ev["data"]
    st = dict(state)
    if ev["type"] == "DealershipPassed":
        st["offer"] = {"from": d["seat"]}
    _goto(st, d)
    return st


def _ev_auction_opened(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["auction"] = {
        "active": list(d["active"]),
        "bids": {},
        "high": 0,
        "leader": None,
        **({"after": d["after"]} if "after" in d else {}),
    }
    _goto(st, d)
    return st


def _ev_bid(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    a = state["auction"]
    if ev["type"] == "Bid":
        _pay(st, state, d["seat"], d["paid"])
        st["auction"] = {
            **a,
            "bids": {**a["bids"], str(d["seat"]): d["amount"]},
            "high": d["amount"],
            "leader": d["seat"],
        }
    else:
        st["auction"] = {**a, "active": [s for s in a["active"] if s != d["seat"]]}
    _goto(st, d)
    return st


def _ev_round_ended(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    b = list(state["bankrolls"])
    if d["winner"] is not None:
        b[d["winner"]] += d["amount"]
        st["pot"] = state["pot"] - d["amount"]
        st["dealer"] = d["winner"]
    if "returned" in d:  # unmatched extra bets go back to their players
        for seat, chips in d["returned"].items():
            b[int(seat)] += chips
        st["front"] = [0] * len(state["players"])
    st["bankrolls"] = b
    st["carry"] = d["winner"] is None
    st["discards"] = state["discards"] + sum(len(h) for h in state["hands"])
    st["hands"] = [[] for _ in state["players"]]
    st["in_round"] = []
    st["phase"] = "between_rounds"
    st["turn"] = None
    st["betting"] = None
    st["auction"] = None
    st["offer"] = None
    st["last_round"] = d
    return st


_EVOLVERS = {
    "RoundStarted": _ev_round_started,
    "Discarded": _ev_discarded,
    "Folded": _ev_folded,
    "BetNamed": _ev_paid,
    "Matched": _ev_paid,
    "RaiseMatched": _ev_paid,
    "ExtraBet": _ev_paid,
    "ExtraMatched": _ev_paid,
    "DealerDealt": _ev_dealer_dealt,
    "Bought": _ev_bought,
    "Stood": _ev_stood,
    "DealerChanged": _ev_dealer_changed,
    "DealershipPassed": _ev_simple,
    "DealershipDeclined": _ev_simple,
    "PartOpened": _ev_simple,
    "AuctionOpened": _ev_auction_opened,
    "Bid": _ev_bid,
    "BidDeclined": _ev_bid,
    "RoundEnded": _ev_round_ended,
    "MatchEnded": match_ended,
    **MOD_EVOLVERS,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"onion: unknown event type {ev['type']!r}")
    st = fn(state, ev)
    rules = ev.get("rules")  # an envelope names the rules version of its game
    if rules is not None and st.get("rules") != rules:
        st = {**st, "rules": rules}
    if st.get("mods") is not None and ev["type"] in _MOD_AFTER:
        st = _MOD_AFTER[ev["type"]](st, ev)
    return st
