"""El Gran Dalmuti: the play (sets of one rank, each beating the last, or pass)."""

from __future__ import annotations

from collections import Counter

from domain.base import RuleViolation, event
from domain.dalmuti.cards import JESTER, _cards, _next_holder, _require_in_hand, set_rank
from domain.dalmuti.deal import _finish_hand
from domain.dalmuti.evolve import _Out
from domain.dalmuti.state import _seat_in_phase


def _d_play(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "play")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn to play", "turn")
    cards = _cards(command)
    hand = state["hands"][seat]
    _require_in_hand(hand, cards)
    rank = set_rank(cards)
    if rank is None:
        raise RuleViolation("mixed-ranks", "a set must be cards of one rank (jesters may join any set)")
    trick = state["trick"]
    if trick is not None:
        if len(cards) != trick["count"]:
            raise RuleViolation(
                "must-match-count", f"you must play exactly {trick['count']} card(s), as many as the last play"
            )
        if rank >= trick["rank"]:
            raise RuleViolation("must-beat-rank", f"you must play a better (lower) rank than {trick['rank']}, or pass")
    order = state["order"]
    hands = state["hands"]
    out_now = len(cards) == len(hand)
    holders = [s for s in order if hands[s]]
    points = len(holders) - 1 if out_now else 0
    left = [s for s in holders if s != seat or not out_now]
    nxt = None
    if len(left) > 1:
        n = len(order)
        pos = order.index(seat)
        for i in range(1, n + 1):
            s = order[(pos + i) % n]
            if hands[s] and s in left:
                nxt = s
                break
    out = _Out(state)
    out.emit(
        event(
            "Played",
            {
                "seat": seat,
                "cards": cards,
                "rank": rank,
                "count": len(cards),
                "out": out_now,
                "points": points,
                "next": nxt,
            },
        )
    )
    if nxt is None:
        _finish_hand(out, command)
    return out.events


def _d_pass(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "play")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn to play", "turn")
    trick = state["trick"]
    if trick is None:
        raise RuleViolation("cannot-pass-on-lead", "you lead a new trick: you must play a set")
    order = state["order"]
    hands = state["hands"]
    others = sum(1 for s in order if hands[s] and s != trick["seat"])
    out = _Out(state)
    if state["passes"] + 1 >= others:
        leader = trick["seat"] if hands[trick["seat"]] else _next_holder(order, hands, trick["seat"])
        out.emit(event("Passed", {"seat": seat, "next": None}))
        out.emit(event("TrickEnded", {"winner": trick["seat"], "leader": leader}))
    else:
        out.emit(event("Passed", {"seat": seat, "next": _next_holder(order, hands, seat)}))
    return out.events


def _play_moves(hand: list[int], trick: dict | None) -> list[dict]:
    counts = Counter(hand)
    jesters = counts.pop(JESTER, 0)
    moves = []
    for r in sorted(counts):
        for k in range(1, counts[r] + 1):
            for j in range(jesters + 1):
                if trick is None or (k + j == trick["count"] and r < trick["rank"]):
                    moves.append({"type": "play", "cards": [r] * k + [JESTER] * j})
    if trick is None:
        for j in range(1, jesters + 1):
            moves.append({"type": "play", "cards": [JESTER] * j})
    else:
        moves.append({"type": "pass"})
    return moves
