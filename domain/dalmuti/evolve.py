"""El Gran Dalmuti: ``evolve``, the fold of one event into the state."""

from __future__ import annotations

from domain.base import Outbox, match_ended, seat_parts
from domain.dalmuti.cards import _remove
from domain.dalmuti.state import _enter_play, _enter_taxes, _v1


def _apply_transfers(st: dict, state: dict, private: dict, kind: str) -> None:
    hands = list(state["hands"])
    transfers = dict(state["transfers"])
    for key, part in private.items():
        s = int(key)
        h = _remove(hands[s], part["gave"])
        h.extend(part["received"])
        h.sort()
        hands[s] = h
        transfers[key] = transfers.get(key, []) + [
            {"kind": kind, "with": part["with"], "gave": part["gave"], "received": part["received"]}
        ]
    st["hands"] = hands
    st["transfers"] = transfers


def _ev_seats_drawn(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["seating_draw"] = ev["data"]["draws"]
    st["order"] = list(ev["data"]["order"])
    st["phase"] = "between_hands"
    return st


def _ev_player_joined(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["players"] = state["players"] + [d["player"]]
    st["hands"] = state["hands"] + [[]]
    st["scores"] = state["scores"] + [0]
    st["hand_points"] = state["hand_points"] + [0]
    if state["phase"] != "created":
        st["newcomers"] = state["newcomers"] + [d["seat"]]
    return st


def _ev_newcomer_placed(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["order"] = list(d["order"])
    st["newcomers"] = [s for s in state["newcomers"] if s != d["newcomer"]]
    return st


def _ev_hand_dealt(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    hands: list[list[int]] = [[] for _ in state["players"]]
    for seat, part in seat_parts(ev.get("private")):
        hands[seat] = list(part["hand"])
    st["hands"] = hands
    st["hand_no"] = d["hand"]
    st["order"] = list(d["order"])
    st["deck_size"] = d["deck_size"]
    st["discards"] = 0
    st["revolution"] = {"kind": "first_deal", "seat": None} if d["auto_revolution"] else None
    st["jesters_seat"] = d.get("jesters_seat")
    st["transfers"] = {}
    st["exchange"] = None
    st["exchange_seat"] = None
    st["tax_pending"] = []
    st["tax_chosen"] = {}
    st["trick"] = None
    st["passes"] = 0
    st["turn"] = None
    st["out_order"] = []
    st["hand_points"] = [0] * len(state["players"])
    if not _v1(state):  # every seat is asked, whoever holds the jesters
        st["jesters_seat"] = None
        st["phase"] = "revolution"
        st["revolution_pending"] = list(d["order"])
        st["revolution_answers"] = {}
    elif d["jesters_seat"] is not None:
        st["phase"] = "revolution"
    elif d["auto_revolution"]:
        _enter_play(st)
    else:
        _enter_taxes(st)
    return st


def _ev_revolution_answered(state: dict, ev: dict) -> dict:
    seat = ev["data"]["seat"]
    st = dict(state)
    st["revolution_pending"] = [s for s in state["revolution_pending"] if s != seat]
    part = (ev.get("private") or {}).get(str(seat))
    answers = dict(state["revolution_answers"])
    answers[str(seat)] = bool(part["declare"]) if part else False
    st["revolution_answers"] = answers
    return st


def _end_revolution_phase(st: dict) -> None:
    st["jesters_seat"] = None
    if "revolution_pending" in st:  # absent from states of rules 1 saved before rules 2
        st["revolution_pending"] = []
        st["revolution_answers"] = {}


def _ev_revolution_declared(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["revolution"] = {"kind": "greater" if d["greater"] else "revolution", "seat": d["seat"]}
    st["order"] = list(d["order"])
    _end_revolution_phase(st)
    _enter_play(st)
    return st


def _ev_revolution_declined(state: dict, ev: dict) -> dict:
    st = dict(state)
    _end_revolution_phase(st)
    if state["revolution"]:
        _enter_play(st)
    else:
        _enter_taxes(st)
    return st


def _ev_tax_chosen(state: dict, ev: dict) -> dict:
    seat = ev["data"]["seat"]
    st = dict(state)
    st["tax_pending"] = [s for s in state["tax_pending"] if s != seat]
    chosen = dict(state["tax_chosen"])
    part = (ev.get("private") or {}).get(str(seat))
    chosen[str(seat)] = list(part["cards"]) if part else []
    st["tax_chosen"] = chosen
    return st


def _ev_merchants_exchanged(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    _apply_transfers(st, state, ev.get("private") or {}, "exchange")
    st["exchange_seat"] = None
    st["exchange"] = {"seat": d["seat"], "with": d["with"]}
    return st


def _ev_exchange_declined(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["exchange_seat"] = None
    st["exchange"] = {"seat": ev["data"]["seat"], "with": None}
    return st


def _ev_taxes_paid(state: dict, ev: dict) -> dict:
    st = dict(state)
    _apply_transfers(st, state, ev.get("private") or {}, "tax")
    _enter_play(st)
    return st


def _ev_played(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat = d["seat"]
    cards = d["cards"]
    st = dict(state)
    hands = list(state["hands"])
    hands[seat] = _remove(hands[seat], cards)
    st["hands"] = hands
    st["trick"] = {"seat": seat, "cards": cards, "rank": d["rank"], "count": len(cards)}
    st["passes"] = 0
    st["turn"] = d["next"]
    st["discards"] = state["discards"] + len(cards)
    if d["out"]:
        st["out_order"] = state["out_order"] + [seat]
        points = list(state["hand_points"])
        points[seat] = d["points"]
        st["hand_points"] = points
        scores = list(state["scores"])
        scores[seat] += d["points"]
        st["scores"] = scores
    return st


def _ev_passed(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["passes"] = state["passes"] + 1
    st["turn"] = ev["data"]["next"]
    return st


def _ev_trick_ended(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["trick"] = None
    st["passes"] = 0
    st["turn"] = ev["data"]["leader"]
    return st


def _ev_hand_ended(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["out_order"] = list(d["out_order"])
    st["hand_points"] = list(d["points"])
    st["scores"] = list(d["scores"])
    st["last_hand"] = {
        "hand": d["hand"],
        "order": list(state["order"]),
        "out_order": list(d["out_order"]),
        "points": list(d["points"]),
        "bonus": list(d["bonus"]),
    }
    st["order"] = list(d["order"])
    st["trick"] = None
    st["passes"] = 0
    st["turn"] = None
    if d["match_over"]:
        st["phase"] = "finished"
    elif state["newcomers"]:
        st["phase"] = "placing"
    else:
        st["phase"] = "between_hands"
    return st


_EVOLVERS = {
    "SeatsDrawn": _ev_seats_drawn,
    "PlayerJoined": _ev_player_joined,
    "NewcomerPlaced": _ev_newcomer_placed,
    "HandDealt": _ev_hand_dealt,
    "RevolutionAnswered": _ev_revolution_answered,
    "RevolutionDeclared": _ev_revolution_declared,
    "RevolutionDeclined": _ev_revolution_declined,
    "TaxChosen": _ev_tax_chosen,
    "MerchantsExchanged": _ev_merchants_exchanged,
    "ExchangeDeclined": _ev_exchange_declined,
    "TaxesPaid": _ev_taxes_paid,
    "Played": _ev_played,
    "Passed": _ev_passed,
    "TrickEnded": _ev_trick_ended,
    "HandEnded": _ev_hand_ended,
    "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"dalmuti: unknown event type {ev['type']!r}")
    # a stored envelope names the rules version its game started under; the
    # state keeps it so that later decisions follow the same rules
    rules = ev.get("rules")
    if rules is not None and rules != state.get("rules"):
        state = {**state, "rules": rules}
    return fn(state, ev)


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)
