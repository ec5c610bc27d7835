"""Cego: the auctions (first auction, Gegensolo, second auction, the Cego
raises, gut/selbst, the Räuber choice).
"""

from __future__ import annotations

from domain.base import RuleViolation, event
from domain.cego.contracts import LEVELS, qualifies, solo_allowed
from domain.cego.evolve import _Out
from domain.cego.state import _ring_from, _seat, rules_of


def _called(out: _Out, seat: int, call: str, **data) -> None:
    out.emit(event("Called", {"seat": seat, "call": call, **data}))


def _to_play(out: _Out, seat: int, call: str, contract: dict, **data) -> None:
    _called(out, seat, call, phase="play", speakers=[], contract=contract, **data)


def _enter_exchange(out: _Out, seat: int, call: str, contract: dict, **data) -> None:
    game = contract["game"]
    step = {"cego": "keep2", "eine": "keep1", "pagat": None}.get(game, "show")
    _called(out, seat, call, phase="exchange", speakers=[], contract=contract, step=step, **data)
    if game == "pagat":  # no choice: trump 1 is shown, the rest set aside
        st = out.state
        ch = contract["challenger"]
        aside = [c for c in st["hands"][ch] if c != 1]
        out.emit(
            event(
                "Exchanged",
                {"seat": ch, "step": "keep", "count": 1, "shown": [1], "discarded": None, "next_step": None},
                {ch: {"kept": [1], "legage": aside}},
            )
        )


def auction_calls(state: dict, seat: int) -> list[str]:
    phase = state["phase"]
    hand = state["hands"][seat]
    if phase == "first_auction":
        calls = ["pass"]
        if solo_allowed(hand):
            calls.append("solo")
        if 1 in hand:
            calls.append("ulti")
        return calls
    if phase == "gegen":
        return ["pass", "gegensolo"]
    if phase == "second_auction":
        return ["pass", "piccolo", "bettel"]
    if phase == "raise":
        lvl = LEVELS.index(state["contract"]["game"])
        if lvl + 1 < len(LEVELS) and qualifies(hand, LEVELS[lvl + 1]):
            return ["pass", "raise"]
        return ["pass"]
    if phase == "gut_selbst":
        nxt = LEVELS[LEVELS.index(state["contract"]["game"]) + 1]
        return ["gut", "selbst"] if qualifies(hand, nxt) else ["gut"]
    if phase == "rauber_choice":
        return ["cego", "rauber"]
    return []


def _d_call(state: dict, command: dict) -> list[dict]:
    seat = _seat(state, command)
    call = command.get("call")
    if not isinstance(call, str):
        raise RuleViolation("invalid-field", "'call' must be a string", "invalid")
    allowed = auction_calls(state, seat)
    if not allowed:
        raise RuleViolation("wrong-phase", f"no auction is running (phase {state['phase']})", "turn")
    if call not in allowed:
        rule = {
            "solo": "solo-needs-trumps",
            "ulti": "ulti-needs-pagat",
            "raise": "cannot-raise",
            "selbst": "cannot-play-selbst",
        }.get(call, "call-not-allowed")
        raise RuleViolation(
            rule,
            f"'{call}' is not allowed now; allowed: {', '.join(allowed)} "
            "(Solo needs 8 trumps, or 7 with two above 17 and two suits; Ulti and Pagat need "
            "trump 1; a raise goes one level up and needs a hand for it)",
        )
    out = _Out(state)
    phase = state["phase"]
    rest = list(state["speakers"][1:])
    con = state["contract"]
    gs = state["gegensolo"] is not None
    if phase == "first_auction":
        if call == "solo":
            _called(out, seat, call, phase="gegen", speakers=_ring_from(state, seat, False), soloist=seat)
        elif call == "ulti":
            _to_play(out, seat, call, {"game": "ulti", "challenger": seat, "gegensolo": False})
        elif rest:
            _called(out, seat, call, phase="first_auction", speakers=rest)
        else:
            _called(out, seat, call, phase="second_auction", speakers=list(state["active"]))
    elif phase == "gegen":
        if call == "gegensolo" and rules_of(state) == "1":
            _called(out, seat, call, phase="second_auction", speakers=_ring_from(state, seat, True), gegensolo=seat)
        elif call == "gegensolo":
            # a Solo was declared: no Piccolo or Bettel; the Gegensolo player declares Cego
            _called(out, seat, call, phase="second_auction", speakers=[], gegensolo=seat)
            _called(
                out,
                seat,
                "cego",
                phase="raise",
                speakers=_ring_from(state, seat, False),
                contract={"game": "cego", "challenger": seat, "gegensolo": True},
            )
        elif rest:
            _called(out, seat, call, phase="gegen", speakers=rest)
        else:
            _to_play(out, seat, call, {"game": "solo", "challenger": state["soloist"], "gegensolo": False})
    elif phase == "second_auction":
        if call in ("piccolo", "bettel"):
            _to_play(out, seat, call, {"game": call, "challenger": seat, "gegensolo": gs})
        elif rest:
            _called(out, seat, call, phase="second_auction", speakers=rest)
        else:
            _called(out, seat, call, phase="second_auction", speakers=[])
            starter = state["gegensolo"] if gs else state["active"][0]
            _called(
                out,
                starter,
                "cego",
                phase="raise",
                speakers=_ring_from(state, starter, False),
                contract={"game": "cego", "challenger": starter, "gegensolo": gs},
            )
    elif phase == "raise":
        if call == "raise":
            new = dict(con, game=LEVELS[LEVELS.index(con["game"]) + 1])
            if state["options"].get("gut_selbst"):
                _called(out, seat, call, phase="gut_selbst", speakers=[], raiser=seat)
            elif LEVELS.index(new["game"]) + 1 < len(LEVELS):
                # after a raise every other player may raise again, in turn from the raiser
                _called(
                    out,
                    seat,
                    call,
                    phase="raise",
                    speakers=_ring_from(state, seat, False),
                    contract=dict(new, challenger=seat),
                )
            else:
                _enter_exchange(out, seat, call, dict(new, challenger=seat))
        elif rest:
            _called(out, seat, call, phase="raise", speakers=rest)
        elif con["game"] == "cego":
            _called(out, seat, call, phase="rauber_choice", speakers=[])
        else:
            _enter_exchange(out, seat, call, con)
    elif phase == "gut_selbst":
        new = dict(con, game=LEVELS[LEVELS.index(con["game"]) + 1])
        if call == "gut":
            new["challenger"] = state["raiser"]
        holder = new["challenger"]
        rest = [s for s in _ring_from(state, state["raiser"], False) if s != holder]
        if holder != state["raiser"]:  # selbst: the refused raiser may speak again after the others
            rest.append(state["raiser"])
        if LEVELS.index(new["game"]) + 1 < len(LEVELS):
            _called(out, seat, call, phase="raise", speakers=rest, contract=new, raiser=None)
        else:
            _enter_exchange(out, seat, call, new, raiser=None)
    else:  # rauber_choice
        if call == "rauber":
            _to_play(out, seat, call, dict(con, game="rauber"))
        else:
            _enter_exchange(out, seat, call, con)
    return out.events
