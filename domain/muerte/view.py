"""¡Muerte al rey!: what a seat, a spectator or a reviewer sees."""

from __future__ import annotations

from typing import Any

from domain.base import REVIEWER, viewer_is_seat
from domain.muerte.about import GAME_ID, RULES_VERSION
from domain.muerte.state import _choosing, duties, must_accuse, outcome, team_of, teammates, to_act


def _must(state: dict, seat: int) -> dict | None:
    if seat not in to_act(state):
        return None
    phase = state["phase"]
    if phase == "turn":
        return {"action": "turn", "must_accuse": must_accuse(state, seat), "teammates": teammates(state, seat)}
    if phase == "giveback":
        return {"action": "give_back", "to": state["exchange"]["seat"]}
    if phase == "discard":
        return {"action": "discard"}
    if phase == "treason":
        giver = next(c[1] for c in state["treason"]["chances"] if c[0] == seat)
        return {"action": "treason", "giver": giver}
    if phase == "swapping":
        return {"action": "swap_identity"}
    team = _choosing(state, seat)
    a = state["assign"][team]
    return {"action": "assign_identity", "team": team, "card": a["cards"][len(a["given"])]}


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    started = bool(state["identity"])
    tr = state["treason"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": RULES_VERSION,
        "phase": state["phase"],
        "game_no": state["game_no"],
        "games_total": state["games_total"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "identity": list(state["identity"]),
        "teams": [team_of(state, s) for s in range(len(state["players"]))] if started else [],
        "order": list(state["order"]),
        "turn": state["turn"],
        "round": state["round"],
        "accused_this_round": dict(state["accused"]),
        "accusation_due": duties(state),
        "to_act": to_act(state),
        "hand_sizes": [len(h) for h in state["hands"]],
        "lost": [list(x) for x in state["lost"]],
        "eliminated": list(state["eliminated"]),
        "exchange": None if state["exchange"] is None else dict(state["exchange"]),
        "accusation": None if state["accusation"] is None else dict(state["accusation"]),
        "treason": None
        if tr is None
        else {
            "pending": list(tr["pending"]),
            "chances": [c[:2] for c in tr["chances"]],
            "denounced": [list(d) for d in tr["denounced"]],
        },
        "reveals": [dict(r, cards=list(r["cards"])) for r in state["reveals"]],
        "swap": None if state["swap"] is None else dict(state["swap"]),
        "assign": None
        if state["assign"] is None
        else {t: {**a, "given": dict(a["given"])} for t, a in state["assign"].items()},
        "game_points": list(state["game_points"]),
        "scores": list(state["scores"]),
        "results": [dict(r) for r in state["results"]],
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["hand"] = list(state["hands"][viewer])
        v["transfers"] = [dict(t) for t in state["transfers"].get(str(viewer), [])]
        v["offer"] = state["offer"] if state["exchange"] and state["exchange"]["seat"] == viewer else None
        v["must"] = _must(state, viewer)
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["transfers_all"] = {k: [dict(t) for t in ts] for k, ts in state["transfers"].items()}
        v["offer"] = state["offer"]
    return v
