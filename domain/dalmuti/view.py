"""El Gran Dalmuti: what a seat, a spectator or a reviewer sees."""

from __future__ import annotations

from typing import Any

from domain.base import REVIEWER, viewer_is_seat
from domain.dalmuti.about import GAME_ID
from domain.dalmuti.state import _v1, may_declare, outcome, placing_slots, role_at, to_act


def _must(state: dict, seat: int) -> dict | None:
    """What ``seat`` has to decide now, in words a client can show."""
    if seat not in to_act(state):
        return None
    phase = state["phase"]
    order = state["order"]
    if phase == "play":
        if state["trick"] is None:
            return {"action": "play", "leading": True}
        t = state["trick"]
        return {"action": "play", "leading": False, "count": t["count"], "beat_rank": t["rank"]}
    if phase == "revolution":
        if _v1(state):
            return {"action": "revolution", "greater": seat == order[-1]}
        return {"action": "revolution", "greater": seat == order[-1], "may_declare": may_declare(state, seat)}
    if phase == "placing":
        return {
            "action": "place_newcomer",
            "newcomers": list(state["newcomers"]),
            "slots": len(order) - 3,
            "allowed_slots": placing_slots(state),
        }
    if seat in state["tax_pending"]:
        return {
            "action": "give_taxes",
            "count": 2 if seat == order[0] else 1,
            "to": order[-1] if seat == order[0] else order[-2],
        }
    return {"action": "merchant_exchange", "merchants": [s for s in order[2:-2] if s != seat]}


def _tax_info(state: dict, seat: int) -> dict | None:
    """A tax-paying seat's part in the taxes phase (no card it may not see)."""
    order = state["order"]
    if state["phase"] != "taxes" or seat not in order:
        return None
    gd, ld, lp, gp = order[0], order[1], order[-2], order[-1]
    if seat in (gd, ld):
        chosen = state["tax_chosen"].get(str(seat))
        return {
            "gives": 2 if seat == gd else 1,
            "to": gp if seat == gd else lp,
            "chooses": True,
            "chosen": list(chosen) if chosen is not None else None,
        }
    if seat in (gp, lp):
        return {
            "gives": 2 if seat == gp else 1,
            "to": gd if seat == gp else ld,
            "chooses": False,
        }
    return None


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    order = state["order"]
    n = len(order)
    roles: list[str | None] = [None] * len(state["players"])
    for i, s in enumerate(order):
        roles[s] = role_at(i, n)
    trick = state["trick"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": state.get("rules", "1"),
        "phase": state["phase"],
        "hand_no": state["hand_no"],
        "hands_total": state["hands_total"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "order": list(order),
        "roles": roles,
        "hand_sizes": [len(h) for h in state["hands"]],
        "deck_size": state["deck_size"],
        "discards": state["discards"],
        "trick": None if trick is None else {**trick, "cards": list(trick["cards"])},
        "passes": state["passes"],
        "turn": state["turn"] if state["phase"] == "play" else None,
        "to_act": to_act(state),
        "pending": {
            "revolution": to_act(state) if state["phase"] == "revolution" else [],
            "taxes": list(state["tax_pending"]) if state["phase"] == "taxes" else [],
            "taxes_chosen": sorted(int(k) for k in state["tax_chosen"]),
            "exchange": state["exchange_seat"],
            "placing": order[0] if state["phase"] == "placing" else None,
        },
        "out_order": list(state["out_order"]),
        "hand_points": list(state["hand_points"]),
        "scores": list(state["scores"]),
        "revolution": None if state["revolution"] is None else dict(state["revolution"]),
        "exchange": None if state["exchange"] is None else dict(state["exchange"]),
        "newcomers": list(state["newcomers"]),
        "seating_draw": [[list(p) for p in rnd] for rnd in state["seating_draw"]],
        "last_hand": None if state["last_hand"] is None else dict(state["last_hand"]),
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["role"] = roles[viewer]
        v["hand"] = list(state["hands"][viewer])
        v["transfers"] = [dict(t) for t in state["transfers"].get(str(viewer), [])]
        v["must"] = _must(state, viewer)
        v["tax"] = _tax_info(state, viewer)
        if state["phase"] == "revolution" and not _v1(state):
            v["revolution_answer"] = state["revolution_answers"].get(str(viewer))
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["transfers_all"] = {k: [dict(t) for t in ts] for k, ts in state["transfers"].items()}
        v["tax_chosen"] = {k: list(c) for k, c in state["tax_chosen"].items()}
        v["revolution_answers"] = dict(state.get("revolution_answers") or {})
    return v
