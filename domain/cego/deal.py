"""Cego: the draw for the first dealer and the deal of a round.

The blind (``blind``) is secret: the deal puts it in the private part
``"nobody"`` (no seat receives it); ``RoundScored`` publishes it.
"""

from __future__ import annotations

from domain.base import RuleViolation, committed, event, int_field, rng, shuffled
from domain.cego.about import NOBODY
from domain.cego.cards import deck_for, full_deck, strength
from domain.cego.evolve import _Out


def _deal(out: _Out, seed: int, dealer: int) -> None:
    st = out.state
    n = len(st["players"])
    sits = n == 5 or (n == 4 and bool(st["options"].get("dealer_sits_out_with_four")))
    ring = [(dealer + 1 + i) % n for i in range(n)]
    active = [s for s in ring if not (sits and s == dealer)]
    deck = shuffled(deck_for(len(active)), seed)
    b = 10 if len(active) == 4 else 12
    h = (len(deck) - b) // len(active)
    blind = sorted(deck[:b])
    private: dict = {NOBODY: {"blind": blind}}
    for k, s in enumerate(active):
        private[str(s)] = {"hand": sorted(deck[b + k * h : b + (k + 1) * h])}
    out.emit(
        committed(
            event(
                "RoundDealt",
                {
                    "round": st["round_no"] + 1,
                    "dealer": dealer,
                    "cutter": (dealer - 1) % n,
                    "mano": active[0],
                    "active": active,
                    "sitting_out": dealer if sits else None,
                    "blind_size": b,
                    "hand_size": h,
                },
                private,
            ),
            deck,
            seed,
        )
    )


def _d_start(state: dict, command: dict) -> list[dict]:
    if command.get("seat") is not None:
        raise RuleViolation("system-command", "'start' is a system command, not a seat's move", "turn")
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the match has already started", "turn")
    seed = int_field(command, "seed")
    n = len(state["players"])
    pile = full_deck()
    rng(f"dealer:{seed}").shuffle(pile)
    draws = [[s, pile[s]] for s in range(n)]
    dealer = max(draws, key=lambda p: strength(p[1]))[0]
    out = _Out(state)
    out.emit(event("DealerDrawn", {"draws": draws, "dealer": dealer}))
    _deal(out, seed, dealer)
    return out.events
