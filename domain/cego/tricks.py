"""Cego: the play of the tricks (leading the shown cards, following suit)."""

from __future__ import annotations

from domain.base import RuleViolation, event
from domain.cego.cards import SUITS, _cards, _in_hand, is_trump, strength, suit
from domain.cego.evolve import _Out
from domain.cego.scoring import _score
from domain.cego.state import _seat, active_after, rules_of


def playable(state: dict, seat: int) -> list[int]:
    hand = state["hands"][seat]
    trick = state["trick"]
    con = state["contract"]
    if not trick:
        if seat == con["challenger"] and state["trick_no"] < len(state["shown"]):
            if con["game"] == "pagat":
                return [1] if 1 in hand else list(hand)
            suits = _shown_suits_to_lead(state)
            lead = [c for c in hand if not is_trump(c) and suit(c) in suits]
            if lead:
                return lead
        return list(hand)
    led = trick[0][1]
    if is_trump(led):
        return [c for c in hand if is_trump(c)] or list(hand)
    same = [c for c in hand if not is_trump(c) and suit(c) == suit(led)]
    return same or [c for c in hand if is_trump(c)] or list(hand)


def _shown_suits_to_lead(state: dict) -> set[int]:
    """The suits the challenger's lead may take while shown cards bind its leads.

    Each shown card, or another card of its suit, leads one of the first
    tricks: a suit already led in an earlier of those tricks is used up (Zwei
    Verschiedene's two suits lead one trick each).  Rules "1" asked only for the
    suit of a shown card still in hand.
    """
    if rules_of(state) == "1":
        return {suit(c) for c in state["shown_left"]} if state["shown_left"] else set()
    suits = [suit(c) for c in state["shown"]]
    if state["trick_no"] >= 1 and state["last_trick"] is not None:
        led = suit(state["last_trick"]["cards"][0][1])  # the challenger led the first trick
        if led in suits:
            suits.remove(led)
    return set(suits)


def trick_winner(state: dict, trick: list) -> tuple[int, int]:
    """(seat, card) winning ``trick``; a shown card (blank, or Pagat's trump 1) never wins."""
    shown = set(state["shown"])
    ok = [(s, c) for s, c in trick if c not in shown]
    trumps = [p for p in ok if is_trump(p[1])]
    led = trick[0][1]
    cands = trumps or [p for p in ok if not is_trump(led) and not is_trump(p[1]) and suit(p[1]) == suit(led)]
    if not cands:
        return tuple(trick[1])  # nothing eligible: the first player after the leader (reading)
    return tuple(max(cands, key=lambda p: strength(p[1])))


def _round_over(state: dict) -> bool:
    con = state["contract"]
    ch = con["challenger"]
    if con["game"] == "bettel" and state["tricks_won"][ch] >= 1:
        return True
    if con["game"] == "piccolo" and state["tricks_won"][ch] >= 2:
        return True
    return not any(state["hands"][s] for s in state["active"])


def _d_play(state: dict, command: dict) -> list[dict]:
    seat = _seat(state, command)
    if state["phase"] != "play":
        raise RuleViolation("wrong-phase", f"cards are played in the play phase; phase is {state['phase']}", "turn")
    card = _cards(
        {"cards": [command.get("card")]}
        if isinstance(command.get("card"), int) and not isinstance(command.get("card"), bool)
        else {"cards": None},
        1,
    )[0]
    _in_hand(state["hands"][seat], [card])
    legal = playable(state, seat)
    if card not in legal:
        if not state["trick"]:
            if state["contract"]["game"] == "pagat":
                now = "trump 1"
            else:
                now = "a card of " + " or ".join(SUITS[x] for x in sorted(_shown_suits_to_lead(state)))
            raise RuleViolation(
                "must-lead-shown",
                "the challenger must lead the shown card(s) or a card of their "
                "suit in the first trick(s), each shown card (or its suit) one of them "
                f"(Pagat: trump 1 opens the first trick); lead {now} now",
            )
        raise RuleViolation(
            "must-follow", "follow the suit led; without it play a trump; on a trump lead play a trump if you can"
        )
    out = _Out(state)
    done = len(state["trick"]) + 1 == len(state["active"])
    out.emit(event("Played", {"seat": seat, "card": card, "next": None if done else active_after(state, seat)}))
    if done:
        st = out.state
        w, wc = trick_winner(st, st["trick"])
        leader = w
        con = st["contract"]
        if con["game"] in ("zwei_leere", "zwei_verschiedene"):
            if st["trick_no"] == 0:
                leader = con["challenger"]
            elif st["trick_no"] == 1:
                a, b = st["trick_winners"][0], [w, wc]
                leader = a[0] if strength(a[1]) > strength(b[1]) else b[0]
        out.emit(event("TrickTaken", {"winner": w, "winning_card": wc, "leader": leader}))
        if _round_over(out.state):
            _score(out, command)
    return out.events
