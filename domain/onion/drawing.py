"""Cripple Mr Onion: the draw (discard and replace, or fold) and the second
deal (buy cards, or stand and take the rest face up).
"""

from __future__ import annotations

from domain.base import RuleViolation, event, int_field, int_list
from domain.onion import hands as H
from domain.onion.outbox import _Out
from domain.onion.rounds import _lone_winner, _open_part
from domain.onion.state import _acting, _after_dealer, _next_in


def _cards(command: dict, hand: list[int], max_len: int) -> list[int]:
    cards = int_list(command.get("cards"), "cards", min_len=0, max_len=max_len)
    if len(set(cards)) != len(cards):
        raise RuleViolation("invalid-card", "'cards' names a card twice", "invalid")
    for c in cards:
        if not 0 <= c < H.DECK_SIZE:
            raise RuleViolation("invalid-card", f"'cards' holds {c}: cards are 0..103", "invalid")
        if c not in hand:
            raise RuleViolation("cards-not-in-hand", "you may only discard cards you hold")
    return sorted(cards)


def _d_discard(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("draw",))
    dealer = state["order"][0]
    hand = state["hands"][seat]
    fold = command["type"] == "fold"
    if fold:
        if seat == dealer:
            raise RuleViolation(
                "dealer-cannot-fold-in-draw", "the Dealer discards and replaces; it does not fold in the draw"
            )
        cards = list(hand)
    else:
        cards = _cards(command, hand, 5)
        if len(cards) > 4:
            raise RuleViolation("discard-at-most-four", "discard at most four cards, or fold by discarding all five")
    order = _after_dealer(state) + [dealer]
    nxt = _next_in(order, seat)
    to = {"phase": "draw", "turn": nxt} if nxt is not None else _open_part(state, 1, 1)
    drawn = [] if fold else state["deck"][: len(cards)]
    out = _Out(state)
    out.emit(
        event(
            "Discarded",
            {"seat": seat, "count": len(cards), "fold": fold, "to": to},
            {seat: {"discarded": cards, "drawn": sorted(drawn)}},
        )
    )
    if fold:
        _lone_winner(out, command)
    return out.events


def _d_buy(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("buy",))
    stake = state["options"]["stake"]
    left = 5 - state["bought"]
    out = _Out(state)
    if command["type"] == "buy":
        k = int_field(command, "count")
        if not 1 <= k <= left:
            raise RuleViolation("buy-at-most-five", f"you may buy 1 to {left} more card(s)")
        if state["bankrolls"][seat] < k * stake:
            raise RuleViolation("cannot-cover", f"{k} card(s) cost {k * stake}: more than you hold")
        to = {"phase": "buy", "turn": seat} if k < left else {"phase": "extra", "turn": seat}
        out.emit(
            event(
                "Bought",
                {"seat": seat, "count": k, "paid": k * stake, "to": to},
                {seat: {"cards": sorted(state["deck"][:k])}},
            )
        )
        if k == left:
            out.emit(event("Stood", {"seat": seat, "up": [], "to": {"phase": "extra", "turn": seat}}))
        return out.events
    out.emit(event("Stood", {"seat": seat, "up": sorted(state["deck"][:left]), "to": {"phase": "extra", "turn": seat}}))
    return out.events
