"""Cego: what a seat, a spectator or a reviewer sees."""

from __future__ import annotations

from typing import Any

from domain.base import REVIEWER, viewer_is_seat
from domain.cego.about import GAME_ID
from domain.cego.moves import legal_moves
from domain.cego.state import outcome, rules_of, to_act


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    con = state["contract"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": rules_of(state),
        "phase": state["phase"],
        "round_no": state["round_no"],
        "rounds_total": state["rounds_total"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "dealer_draw": [list(p) for p in state["draws"]],
        "dealer": state["dealer"],
        "active": list(state["active"]),
        "sitting_out": state["sitting_out"],
        "mano": state["active"][0] if state["active"] else None,
        "hand_sizes": [len(h) for h in state["hands"]],
        "blind_size": 0 if state["blind_taken"] else len(state["blind"]),
        "legage_size": len(state["legage"]),
        "auction": [dict(a) for a in state["auction"]],
        "speakers": list(state["speakers"]),
        "contract": None if con is None else dict(con),
        "soloist": state["soloist"],
        "gegensolo": state["gegensolo"],
        "raiser": state["raiser"],
        "exchange_step": state["step"],
        "shown": list(state["shown"]),
        "shown_in_hand": list(state["shown_left"]),
        "shown_discard": state["shown_discard"],
        "trick": [list(p) for p in state["trick"]],
        "leader": state["leader"],
        "turn": state["turn"],
        "trick_no": state["trick_no"],
        "tricks_won": list(state["tricks_won"]),
        "last_trick": None
        if state["last_trick"] is None
        else {"cards": [list(p) for p in state["last_trick"]["cards"]], "winner": state["last_trick"]["winner"]},
        "balances": list(state["balances"]),
        "last_round": state["last_round"],
        "to_act": to_act(state),
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["hand"] = list(state["hands"][viewer])
        if con is not None and con["challenger"] == viewer:
            v["legage"] = list(state["legage"])
        v["moves"] = legal_moves(state, viewer)
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["blind"] = list(state["blind"])
        v["legage"] = list(state["legage"])
    return v
