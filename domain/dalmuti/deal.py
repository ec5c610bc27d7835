"""El Gran Dalmuti: the seating draw, the deal, the end of a hand and of the
match, and newcomers joining and being placed.
"""

from __future__ import annotations

from domain.base import RuleViolation, committed, event, int_field, rng, shuffled
from domain.dalmuti.about import MAX_PLAYERS, NAME_MAX
from domain.dalmuti.cards import JESTER, deck_for
from domain.dalmuti.evolve import _Out
from domain.dalmuti.state import _seat_in_phase, _system, _v1, places_anywhere, placing_slots


def _seating_draw(seats: list[int], deck: list[int], seed: int) -> tuple[list, list[int]]:
    """Every seat draws a card; tied seats draw again among themselves."""
    r = rng(f"seating:{seed}")
    pile: list[int] = []
    rounds: list[list[list[int]]] = []

    def draw() -> int:
        nonlocal pile
        if not pile:  # a fresh deck if a long run of ties used it up
            pile = list(deck)
            r.shuffle(pile)
        return pile.pop()

    def rank_group(group: list[int]) -> list[int]:
        drawn = [[s, draw()] for s in group]
        rounds.append(drawn)
        by_card: dict[int, list[int]] = {}
        for s, c in drawn:
            by_card.setdefault(c, []).append(s)
        result: list[int] = []
        for c in sorted(by_card):
            tied = by_card[c]
            result.extend(tied if len(tied) == 1 else rank_group(tied))
        return result

    order = rank_group(list(seats))
    return rounds, order


def _deal(out: _Out, seed: int) -> None:
    st = out.state
    order = st["order"]
    n = len(order)
    deck = shuffled(deck_for(n, bool(st["options"].get("reduced_deck"))), seed)
    hands: dict[int, list[int]] = {s: [] for s in order}
    for i, c in enumerate(deck):  # one at a time, from the Greater Dalmuti clockwise
        hands[order[i % n]].append(c)
    sizes = [0] * len(st["players"])
    for s, h in hands.items():
        h.sort()
        sizes[s] = len(h)
    hand_no = st["hand_no"] + 1
    auto = bool(st["options"].get("first_deal_revolution")) and hand_no == 1
    data = {
        "hand": hand_no,
        "order": list(order),
        "dealer": order[-1],
        "deck_size": len(deck),
        "sizes": sizes,
        "auto_revolution": auto,
    }
    if _v1(st):  # rules 1 named the seat holding both jesters
        holder = next((s for s in order if hands[s].count(JESTER) == 2), None)
        if auto and holder != order[-1]:
            holder = None  # already a revolution; only a greater one is left to declare
        data["jesters_seat"] = holder
    out.emit(committed(event("HandDealt", data, {s: {"hand": h} for s, h in hands.items()}), deck, seed))


def _finish_hand(out: _Out, command: dict) -> None:
    st = out.state
    order = st["order"]
    n = len(order)
    out_order = list(st["out_order"])
    out_order += [s for s in order if s not in out_order]
    points = list(st["hand_points"])
    bonus = [0] * len(st["players"])
    if st["options"].get("philanthropic_scoring"):
        finish = {s: i for i, s in enumerate(out_order)}
        if finish[order[-1]] < n - 1:
            bonus[order[0]] += 1
        if finish[order[-2]] < n - 2:
            bonus[order[1]] += 1
    scores = [sc + b for sc, b in zip(st["scores"], bonus)]
    points = [p + b for p, b in zip(points, bonus)]
    match_over = st["hand_no"] >= st["hands_total"]
    seed = None if match_over or st["newcomers"] else int_field(command, "seed")
    out.emit(
        event(
            "HandEnded",
            {
                "hand": st["hand_no"],
                "out_order": out_order,
                "points": points,
                "bonus": bonus,
                "scores": scores,
                "order": out_order,
                "match_over": match_over,
            },
        )
    )
    if match_over:
        out.emit(event("MatchEnded", _compute_outcome(out.state)))
    elif seed is not None:
        _deal(out, seed)


def _compute_outcome(st: dict) -> dict:
    last = st["order"]
    pos = {s: i for i, s in enumerate(last)}
    seats = range(len(st["players"]))

    def place(s: int) -> int:
        return pos.get(s, len(last) + s)

    scores = st["scores"]
    if st["options"].get("scoring", True):
        ranking = sorted(seats, key=lambda s: (-scores[s], place(s)))
    else:
        ranking = sorted(seats, key=place)
    return {
        "scores": list(scores),
        "ranking": ranking,
        "winners": ranking[:1],
        "hands_played": st["hand_no"],
        "last_order": list(last),
    }


def _d_start(state: dict, command: dict) -> list[dict]:
    _system(command, "start")
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the match has already started", "turn")
    seed = int_field(command, "seed")
    n = len(state["players"])
    out = _Out(state)
    draws, order = _seating_draw(list(range(n)), deck_for(n, bool(state["options"].get("reduced_deck"))), seed)
    out.emit(event("SeatsDrawn", {"draws": draws, "order": order}))
    _deal(out, seed)
    return out.events


def _d_join(state: dict, command: dict) -> list[dict]:
    _system(command, "join")
    if not state["options"].get("allow_joining"):
        raise RuleViolation("joining-disabled", "this match does not allow newcomers (option allow_joining)")
    if state["phase"] == "finished":
        raise RuleViolation("game-over", "the match is over: nobody can join it", "turn")
    name = command.get("player")
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
        raise RuleViolation("invalid-field", f"'player' must be a name of 1 to {NAME_MAX} characters", "invalid")
    if name in state["players"]:
        raise RuleViolation("name-taken", f"a player named {name!r} already sits at this table")
    if len(state["players"]) >= MAX_PLAYERS:
        raise RuleViolation("table-full", f"the table already has the maximum of {MAX_PLAYERS} players")
    return [event("PlayerJoined", {"seat": len(state["players"]), "player": name})]


def _d_place(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "placing")
    order = state["order"]
    if seat != order[0]:
        raise RuleViolation("not-your-turn", "only the Greater Dalmuti places newcomers", "turn")
    newcomer = int_field(command, "newcomer")
    slot = int_field(command, "slot")
    if newcomer not in state["newcomers"]:
        raise RuleViolation("not-a-newcomer", f"seat {newcomer} is not waiting to be placed")
    allowed = placing_slots(state)
    if slot not in allowed:
        if places_anywhere(state):
            detail = (
                f"newcomers sit among the Merchants: slot must be 0..{allowed[-1]} "
                "(0 just after the Lesser Dalmuti, the last just before the Lesser Peon)"
            )
        else:
            detail = (
                "newcomers sit halfway between the Greater Dalmuti and the Greater Peon: slot must be "
                + " or ".join(map(str, allowed))
                + " (0 just after the Lesser Dalmuti)"
            )
        raise RuleViolation("invalid-slot", detail)
    last = len(state["newcomers"]) == 1
    seed = int_field(command, "seed") if last else None
    new_order = order[: 2 + slot] + [newcomer] + order[2 + slot :]
    out = _Out(state)
    out.emit(event("NewcomerPlaced", {"seat": seat, "newcomer": newcomer, "slot": slot, "order": new_order}))
    if seed is not None:
        _deal(out, seed)
    return out.events
