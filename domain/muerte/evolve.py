"""¡Muerte al rey!: ``evolve``, the fold of one event into the state."""

from __future__ import annotations

from domain.base import Outbox, match_ended, seat_parts
from domain.muerte.cards import _card_key
from domain.muerte.state import team_of


def _ev_game_dealt(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    p = len(state["players"])
    hands: list[list[str]] = [[] for _ in range(p)]
    for seat, part in seat_parts(ev.get("private")):
        hands[seat] = list(part["hand"])
    st["hands"] = hands
    st["identity"] = list(d["identity"])
    st["order"] = list(d["order"])
    st["game_no"] = d["game"]
    st["lost"] = [[] for _ in range(p)]
    st["eliminated"] = []
    st["turn"] = d["order"][0]
    st["pos"] = 0
    st["round"] = 1
    st["accused"] = {"espadas": False, "bastos": False}
    st["exchange"] = None
    st["offer"] = None
    st["accusation"] = None
    st["treason"] = None
    st["transfers"] = {}
    st["swap"] = None
    st["assign"] = None
    if d.get("teams_fixed") is not None:
        st["teams_fixed"] = list(d["teams_fixed"])
    st["phase"] = "turn"
    return st


def _ev_exchange_offered(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    part = (ev.get("private") or {}).get(str(d["seat"]))
    st["offer"] = part["card"] if part else None
    st["exchange"] = {"seat": d["seat"], "with": d["with"]}
    st["phase"] = "giveback"
    return st


def _ev_cards_exchanged(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    hands = list(state["hands"])
    transfers = dict(state["transfers"])
    for key, part in (ev.get("private") or {}).items():
        s = int(key)
        h = list(hands[s])
        h.remove(part["gave"])
        h.append(part["received"])
        h.sort(key=_card_key)
        hands[s] = h
        transfers[key] = transfers.get(key, []) + [dict(part)]
    st["hands"] = hands
    st["transfers"] = transfers
    st["offer"] = None
    st["exchange"] = None
    if d["treason_chances"]:
        st["phase"] = "treason"
        st["treason"] = {
            "pending": [c[0] for c in d["treason_chances"]],
            "chances": [list(c) for c in d["treason_chances"]],
            "denounced": [],
        }
    return st


def _ev_treason_answered(state: dict, ev: dict) -> dict:
    """TreasonDenounced and TreasonIgnored: the seat has answered; a denunciation is recorded."""
    d = ev["data"]
    t = state["treason"]
    denounced = t["denounced"]
    if ev["type"] == "TreasonDenounced":
        denounced = denounced + [[d["seat"], d["traitor"], d["card"]]]
    return {
        **state,
        "treason": {
            "pending": [s for s in t["pending"] if s != d["seat"]],
            "chances": t["chances"],
            "denounced": denounced,
        },
    }


def _ev_accused(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    accused = dict(state["accused"])
    accused[team_of(state, d["seat"])] = True
    st["accused"] = accused
    st["reveals"] = state["reveals"] + [
        {
            "game": state["game_no"],
            "round": state["round"],
            "seat": d["seat"],
            "target": d["target"],
            "cards": list(d["cards"]),
            "king": d["king"],
        }
    ]
    if not d["king"]:
        st["phase"] = "discard"
        st["accusation"] = {"seat": d["seat"], "target": d["target"]}
    return st


def _ev_card_lost(state: dict, ev: dict) -> dict:
    d = ev["data"]
    s = d["seat"]
    st = dict(state)
    hands = list(state["hands"])
    h = list(hands[s])
    h.remove(d["card"])
    hands[s] = h
    st["hands"] = hands
    lost = list(state["lost"])
    lost[s] = lost[s] + [d["card"]]
    st["lost"] = lost
    if d["eliminated"]:
        st["eliminated"] = state["eliminated"] + [s]
    st["accusation"] = None
    return st


def _ev_turn_began(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["phase"] = "turn"
    st["turn"] = d["seat"]
    st["pos"] = d["pos"]
    st["treason"] = None
    if d["round"] != state["round"]:
        st["round"] = d["round"]
        st["accused"] = {"espadas": False, "bastos": False}
    return st


def _ev_game_ended(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["game_points"] = list(d["points"])
    st["scores"] = list(d["scores"])
    st["results"] = state["results"] + [{k: v for k, v in d.items() if k != "scores"}]
    st["turn"] = None
    st["exchange"] = None
    st["offer"] = None
    st["accusation"] = None
    st["treason"] = None
    st["phase"] = "finished" if d["match_over"] else "between_games"
    return st


def _ev_swaps_began(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["phase"] = "swapping"
    st["swap"] = {"sequence": list(ev["data"]["sequence"]), "index": 0}
    return st


def _ev_identity_swapped(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    ident = list(state["identity"])
    a, b = d["seat"], d["with"]
    ident[a], ident[b] = ident[b], ident[a]
    st["identity"] = ident
    st["swap"] = {"sequence": state["swap"]["sequence"], "index": state["swap"]["index"] + 1}
    return st


def _ev_assignment_began(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["phase"] = "assigning"
    st["assign"] = {
        t: {"chooser": a["chooser"], "cards": list(a["cards"]), "seats": list(a["seats"]), "given": {}}
        for t, a in ev["data"]["teams"].items()
    }
    st["teams_fixed"] = list(ev["data"]["teams_fixed"])
    return st


def _ev_identity_assigned(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    assign = dict(state["assign"])
    a = assign[d["team"]]
    given = dict(a["given"])
    given[str(d["to"])] = d["card"]
    assign[d["team"]] = {**a, "given": given}
    st["assign"] = assign
    return st


_EVOLVERS = {
    "GameDealt": _ev_game_dealt,
    "ExchangeOffered": _ev_exchange_offered,
    "CardsExchanged": _ev_cards_exchanged,
    "TreasonDenounced": _ev_treason_answered,
    "TreasonIgnored": _ev_treason_answered,
    "Accused": _ev_accused,
    "CardLost": _ev_card_lost,
    "TurnBegan": _ev_turn_began,
    "GameEnded": _ev_game_ended,
    "IdentitySwapsBegan": _ev_swaps_began,
    "IdentitySwapped": _ev_identity_swapped,
    "IdentityAssignmentBegan": _ev_assignment_began,
    "IdentityAssigned": _ev_identity_assigned,
    "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"muerte: unknown event type {ev['type']!r}")
    # a stored envelope names the rules version its game started under; the state keeps it, so that the
    # game's end is decided as under that version (domain.muerte.about.FOLDS_RULES)
    rules = ev.get("rules")
    if rules is not None and rules != state.get("rules"):
        state = {**state, "rules": rules}
    return fn(state, ev)


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)
