"""¡Muerte al rey!: a turn (section 2.3): exchange with a teammate (and the
card given back, and treason), or accuse an opponent (and lose a card when
wrong).
"""

from __future__ import annotations

from domain.base import RuleViolation, event
from domain.muerte.cards import KINGS, _card, number
from domain.muerte.evolve import _Out
from domain.muerte.scoring import _end_game
from domain.muerte.state import _alive, _in_phase, _members, _target, must_accuse, team_of, teammates, treason_found


def _begin_next_turn(out: _Out, after_pos: int) -> None:
    st = out.state
    order = st["order"]
    m = len(order)
    for i in range(1, m + 1):
        p = (after_pos + i) % m
        if _alive(st, order[p]):
            rnd = st["round"] + (1 if after_pos + i >= m else 0)
            out.emit(event("TurnBegan", {"seat": order[p], "pos": p, "round": rnd}))
            return
    raise AssertionError("nobody left to play")  # pragma: no cover (a team wins before)


def _d_exchange(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "turn", "a player's turn")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn", "turn")
    mate = _target(state, command, "with")
    card = _card(state, command)
    if must_accuse(state, seat):
        if teammates(state, seat):
            raise RuleViolation(
                "must-accuse",
                "your team has not accused in this full round and you are its last player in it: you must accuse",
            )
        raise RuleViolation("must-accuse", "you have no active teammate to exchange with: you must accuse")
    if mate == seat or team_of(state, mate) != team_of(state, seat):
        raise RuleViolation("not-a-teammate", "you exchange a card with one of your companions")
    if not _alive(state, mate):
        raise RuleViolation("eliminated", f"seat {mate} has been eliminated")
    if card not in state["hands"][seat]:
        raise RuleViolation("card-not-in-hand", f"you do not hold {card}")
    return [event("ExchangeOffered", {"seat": seat, "with": mate}, {seat: {"card": card}})]


def _d_give_back(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "giveback", "the teammate giving a card back in an exchange")
    ex = state["exchange"]
    if seat != ex["with"]:
        raise RuleViolation("not-your-turn", f"seat {ex['with']} must give a card back to seat {ex['seat']}", "turn")
    card = _card(state, command)
    if card not in state["hands"][seat]:
        raise RuleViolation("card-not-in-hand", f"you do not hold {card}")
    giver = ex["seat"]
    offered = state["offer"]
    chances = []
    if state["options"]["treason"]:
        if state["options"].get("treason_prompt", "match") == "every":  # both asked: nobody learns which may denounce
            chances = [[seat, giver], [giver, seat]]
        else:  # section 3.1: only a player who received a card of their identity card's number
            if number(offered) == number(state["identity"][seat]):
                chances.append([seat, giver])
            if number(card) == number(state["identity"][giver]):
                chances.append([giver, seat])
    out = _Out(state)
    out.emit(
        event(
            "CardsExchanged",
            {"seat": giver, "with": seat, "treason_chances": chances},
            {
                giver: {"with": seat, "gave": offered, "received": card},
                seat: {"with": giver, "gave": card, "received": offered},
            },
        )
    )
    if not chances:
        _begin_next_turn(out, state["pos"])
    return out.events


def _d_treason(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "treason", "a treason just discovered in an exchange")
    t = state["treason"]
    if seat not in t["pending"]:
        raise RuleViolation(
            "not-your-turn",
            "only a player who has just received a card of their identity number may denounce, once",
            "turn",
        )
    if command["type"] == "denounce" and not treason_found(state, seat):
        raise RuleViolation(
            "no-treason",
            "the card you just received is not of your identity card's number: there is no treason to denounce",
        )
    out = _Out(state)
    if command["type"] == "denounce":
        received = state["transfers"][str(seat)][-1]["received"]
        giver = next(c[1] for c in t["chances"] if c[0] == seat)
        out.emit(event("TreasonDenounced", {"seat": seat, "traitor": giver, "card": received}))
    else:
        out.emit(event("TreasonIgnored", {"seat": seat}))
    st = out.state
    if st["treason"]["pending"]:
        return out.events
    if st["treason"]["denounced"]:
        _end_game(out, command, "treason", seat)
    else:
        _begin_next_turn(out, st["pos"])
    return out.events


def _d_accuse(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "turn", "a player's turn")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn", "turn")
    target = _target(state, command, "target")
    if team_of(state, target) == team_of(state, seat):
        raise RuleViolation("not-an-opponent", "you accuse a player of the other team")
    if not _alive(state, target):
        raise RuleViolation("eliminated", f"seat {target} has been eliminated")
    cards = list(state["hands"][target])
    king = KINGS[team_of(state, target)] in cards
    out = _Out(state)
    out.emit(event("Accused", {"seat": seat, "target": target, "cards": cards, "king": king}))
    if king:
        _end_game(out, command, "king_found", seat)
    return out.events


def _d_discard(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "discard", "an accuser who accused wrongly")
    acc = state["accusation"]
    if seat != acc["seat"]:
        raise RuleViolation("not-your-turn", f"seat {acc['seat']} must lose a card", "turn")
    card = _card(state, command)
    hand = state["hands"][seat]
    if card not in hand:
        raise RuleViolation("card-not-in-hand", f"you do not hold {card}")
    king = card == KINGS[team_of(state, seat)]
    out = _Out(state)
    out.emit(event("CardLost", {"seat": seat, "card": card, "king": king, "eliminated": len(hand) == 1}))
    st = out.state
    team = team_of(st, seat)
    if king:
        _end_game(out, command, "king_lost", seat)
    elif not any(_alive(st, s) for s in _members(st, team)):
        _end_game(out, command, "team_eliminated", seat)  # cannot happen while the king is held; kept for safety
    else:
        _begin_next_turn(out, st["pos"])
    return out.events
