"""Cripple Mr Onion: what a seat, a spectator or a reviewer sees."""

from __future__ import annotations

from typing import Any

from domain.base import REVIEWER, viewer_is_seat
from domain.onion import hands as H
from domain.onion.about import GAME_ID
from domain.onion.modifiers.state import _NAMES, _disclosed
from domain.onion.moves import legal_moves
from domain.onion.state import _front, _rules, outcome, roles, to_act


def _base_view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    b = state["betting"]
    a = state["auction"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": _rules(state),
        "phase": state["phase"],
        "round_no": state["round_no"],
        "rounds_total": state["options"]["rounds"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "bankrolls": list(state["bankrolls"]),
        "pot": state["pot"],
        "dealer": state["order"][0] if state["order"] else state["dealer"],
        "order": list(state["order"]),
        "roles": roles(state),
        "in_round": list(state["in_round"]),
        "hand_sizes": [len(h) for h in state["hands"]],
        "up": [list(u) for u in state["up"]],
        "deck_size": len(state["deck"]),
        "discards": state["discards"],
        "turn": state["turn"],
        "to_act": to_act(state),
        "betting": None if b is None else {**b, "raises": dict(b["raises"])},
        "bought": state["bought"] if state["phase"] == "buy" else 0,
        "extra": dict(state["extra"]),
        "in_front": list(_front(state)),
        "offer": None if state["offer"] is None else dict(state["offer"]),
        "auction": None if a is None else {**a, "active": list(a["active"]), "bids": dict(a["bids"])},
        "carry": state["carry"],
        "last_round": state["last_round"],
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["hand"] = list(state["hands"][viewer])
        v["legal_moves"] = legal_moves(state, viewer)
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["deck"] = list(state["deck"])
    return v


def view(state: dict, viewer: Any) -> dict:
    v = _base_view(state, viewer)
    m = state.get("mods")
    if m is None:
        return v
    sd = m["sd"]
    pend = m["pending"]
    v["modifiers"] = {
        "eights_wild": m["wild"],
        "round_began_wild": m["round_wild"],
        "next_round_wild": m["next_wild"],
        "own_eights_wild_again": m["rewild"],
        "declared": [
            {"card": int(c), "name": _NAMES.get(int(c), H.card_name(int(c))), "seat": s}
            for c, s in m["declared"].items()
        ],
        "lady": m["lady"],
        "fate": m["fate"],
        "zeroed_aces": list(m["zeroed"]),
        "great_atuin": m["atuin"],
        "elephants": m["elephants"],
        "sender": m["sender"],
        "death": m["death"],
        "archchancellor": m["arch"],
        "jack_of_staves_wild": m["jack_wild"],
        "fool": m["fool"],
        "disclosed": [
            sorted(_disclosed(state, s)) if s in state["in_round"] else [] for s in range(len(state["players"]))
        ],
        "on_table": [list(t) for t in m["table"]],
        # who acts now and, for a reveal, who follows (public: the Declared event published the queue)
        "pending": None if pend is None else {k: pend[k] for k in ("kind", "seat", "queue") if k in pend},
        "showdown": None
        if sd is None
        else {
            "order": list(sd["order"]),
            "holder": sd["holder"],
            "challenger": sd["challenger"],
            "leader": sd["leader"],
            "crippler": sd["crippler"],
            "shown": list(sd["shown"]),
            "arrangements": dict(sd["results"]),
            "duels": list(sd["duels"]),
        },
        "notes": list(m["notes"]),
    }
    if pend and pend.get("kind") == "choose" and (viewer == pend["seat"] or viewer == REVIEWER):
        v["modifiers"]["offer"] = list(pend["offer"])
    return v
