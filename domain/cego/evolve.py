"""Cego: ``evolve``, the fold of one event into the state."""

from __future__ import annotations

from domain.base import Outbox, match_ended, seat_parts
from domain.cego.about import NOBODY
from domain.cego.cards import _remove
from domain.cego.state import rules_of


def _ev_dealer_drawn(state, ev):
    return dict(state, draws=ev["data"]["draws"], dealer=ev["data"]["dealer"])


def _ev_round_dealt(state, ev):
    d = ev["data"]
    n = len(state["players"])
    hands = [[] for _ in range(n)]
    priv = ev.get("private") or {}
    for seat, part in seat_parts(priv):
        hands[seat] = list(part["hand"])
    st = dict(state)
    st.update(
        phase="first_auction",
        round_no=d["round"],
        dealer=d["dealer"],
        active=list(d["active"]),
        sitting_out=d["sitting_out"],
        hands=hands,
        blind=list(priv[NOBODY]["blind"]),
        blind_taken=False,
        legage=[],
        auction=[],
        speakers=list(d["active"]),
        contract=None,
        gegensolo=None,
        soloist=None,
        raiser=None,
        step=None,
        shown=[],
        shown_left=[],
        shown_discard=None,
        trick=[],
        leader=None,
        turn=None,
        trick_no=0,
        tricks_won=[0] * n,
        won=[[] for _ in range(n)],
        trick_winners=[],
        last_trick=None,
    )
    return st


def _ev_called(state, ev):
    """A call in an auction: data has seat, call, and the state's next step."""
    d = ev["data"]
    st = dict(state)
    st["auction"] = state["auction"] + [{"seat": d["seat"], "call": d["call"], "phase": state["phase"]}]
    st["speakers"] = list(d["speakers"])
    st["phase"] = d["phase"]
    for k in ("contract", "gegensolo", "soloist", "raiser", "step"):
        if k in d:
            st[k] = d[k]
    if d["phase"] == "play":
        st["leader"] = st["turn"] = st["contract"]["challenger"]
    return st


def _ev_exchanged(state, ev):
    d = ev["data"]
    seat = d["seat"]
    st = dict(state)
    hands = list(state["hands"])
    part = (ev.get("private") or {}).get(str(seat), {})
    if d["step"] == "keep":
        kept = part.get("kept", d.get("shown", []))
        aside = _remove(hands[seat], kept)
        hand = kept + list(state["blind"])
        st["legage"] = state["legage"] + aside
        st["blind_taken"] = True
        if d.get("discarded") is not None:
            hand.remove(d["discarded"])
            st["shown_discard"] = d["discarded"]
            st["legage"] = st["legage"] + [d["discarded"]]
        hands[seat] = sorted(hand)
        if d.get("shown"):
            st["shown"] = list(d["shown"])
            st["shown_left"] = list(d["shown"])
    else:  # discard
        hands[seat] = _remove(hands[seat], part["cards"])
        st["legage"] = state["legage"] + list(part["cards"])
    st["hands"] = hands
    st["step"] = d["next_step"]
    if d["next_step"] is None:
        st["phase"] = "play"
        st["leader"] = st["turn"] = st["contract"]["challenger"]
    return st


def _ev_played(state, ev):
    d = ev["data"]
    seat, card = d["seat"], d["card"]
    st = dict(state)
    hands = list(state["hands"])
    hands[seat] = _remove(hands[seat], [card])
    st["hands"] = hands
    st["trick"] = state["trick"] + [[seat, card]]
    if card in state["shown_left"]:
        st["shown_left"] = [c for c in state["shown_left"] if c != card]
    st["turn"] = d["next"]
    return st


def _ev_trick_taken(state, ev):
    d = ev["data"]
    w = d["winner"]
    st = dict(state)
    cards = [c for _, c in state["trick"]]
    won = list(state["won"])
    won[w] = state["won"][w] + cards
    tw = list(state["tricks_won"])
    tw[w] += 1
    st.update(
        won=won,
        tricks_won=tw,
        last_trick={"cards": [list(p) for p in state["trick"]], "winner": w},
        trick=[],
        trick_no=state["trick_no"] + 1,
        trick_winners=state["trick_winners"] + [[w, d["winning_card"]]],
        leader=d["leader"],
        turn=d["leader"],
    )
    return st


def _ev_round_scored(state, ev):
    d = ev["data"]
    st = dict(state)
    st.update(phase="between_rounds", balances=list(d["balances"]), last_round=d, turn=None, speakers=[], step=None)
    if d["match_over"]:
        st["phase"] = "finished"
    return st


_EVOLVERS = {
    "DealerDrawn": _ev_dealer_drawn,
    "RoundDealt": _ev_round_dealt,
    "Called": _ev_called,
    "Exchanged": _ev_exchanged,
    "Played": _ev_played,
    "TrickTaken": _ev_trick_taken,
    "RoundScored": _ev_round_scored,
    "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"cego: unknown event type {ev['type']!r}")
    st = fn(state, ev)
    rules = ev.get("rules")  # an envelope names the rules version of its game
    if rules is not None and rules != rules_of(st):
        st = dict(st, rules=rules)
    return st


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)
