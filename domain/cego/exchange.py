"""Cego: the challenger's exchange with the blind (keep, show, discard).

The Legage (the cards set aside) is in the challenger's private parts and is
published by ``RoundScored``.
"""

from __future__ import annotations

from itertools import combinations

from domain.base import RuleViolation, event
from domain.cego.cards import _cards, _in_hand, _remove, is_trump, strength
from domain.cego.contracts import show_options
from domain.cego.state import _seat


def exchange_moves(state: dict, seat: int) -> list[dict]:
    hand = state["hands"][seat]
    step = state["step"]
    if step == "keep2":
        return [{"type": "keep", "cards": list(p)} for p in combinations(hand, 2)]
    if step == "keep1":
        return [{"type": "keep", "cards": [c]} for c in hand]
    if step == "discard":
        return [{"type": "discard", "cards": [c]} for c in hand]
    if step == "show":
        return [{"type": "show", "cards": cs} for cs in show_options(hand, state["contract"]["game"])]
    return []


def _d_exchange(state: dict, command: dict) -> list[dict]:
    seat = _seat(state, command)
    if state["phase"] != "exchange":
        raise RuleViolation(
            "wrong-phase", f"'{command['type']}' belongs to the exchange; phase is {state['phase']}", "turn"
        )
    step = state["step"]
    want = {"keep2": "keep", "keep1": "keep", "discard": "discard", "show": "show"}[step]
    if command["type"] != want:
        raise RuleViolation("wrong-step", f"the challenger must now '{want}' (step {step} of the exchange)")
    count = {"keep2": 2, "keep1": 1, "discard": 1}.get(step)
    if step == "show":
        count = 1 if state["contract"]["game"] == "eine_leere" else 2
    cards = _cards(command, count)
    hand = state["hands"][seat]
    _in_hand(hand, cards)
    if step == "discard":
        return [
            event(
                "Exchanged", {"seat": seat, "step": "discard", "count": 1, "next_step": None}, {seat: {"cards": cards}}
            )
        ]
    kept = sorted(cards)
    aside = _remove(hand, kept)
    data = {
        "seat": seat,
        "step": "keep",
        "count": len(kept),
        "discarded": None,
        "next_step": "discard" if step == "keep2" else None,
    }
    if step == "show":
        game = state["contract"]["game"]
        if kept not in [sorted(o) for o in show_options(hand, game)]:
            raise RuleViolation(
                "bad-show",
                {
                    "eine_leere": "Eine Leere shows one numeral (a figure only when you hold no numeral)",
                    "zwei_leere": "Zwei Leere shows two numerals of one suit (figures only without such a pair)",
                    "zwei_verschiedene": "Zwei Verschiedene shows two numerals of different suits "
                    "(figures only without such a pair)",
                }[game],
            )
        data["shown"] = kept
        blind = state["blind"]
        if game == "zwei_leere":
            trumps = [c for c in blind if is_trump(c)]
            data["discarded"] = min(trumps) if trumps else min(blind, key=strength)
        elif game == "zwei_verschiedene":
            data["discarded"] = max(blind, key=strength)
    return [event("Exchanged", data, {seat: {"kept": kept, "legage": aside}})]
