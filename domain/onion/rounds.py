"""Cripple Mr Onion: the flow of a round (ante and first deal, the start of a
betting part, the end of a round and of the match).
"""

from __future__ import annotations

from typing import Any

from domain.base import committed, event, int_field, shuffled
from domain.onion import hands as H
from domain.onion.outbox import _Out
from domain.onion.state import _bets_in_front, _front, _rotate


def _start_round(out: _Out, seed: int) -> None:
    st = out.state
    n = len(st["players"])
    stake = st["options"]["stake"]
    seating = [s for s in range(n) if st["bankrolls"][s] >= stake]
    dealer = st["dealer"]
    for k in range(n):  # a Dealer who cannot ante hands the Dealership to the left
        if (dealer + k) % n in seating:
            dealer = (dealer + k) % n
            break
    order = _rotate(seating, dealer)
    bankrolls = list(st["bankrolls"])
    pot = st["pot"]
    ante = 0 if st["carry"] else stake
    if ante:
        for s in seating:
            bankrolls[s] -= ante
            pot += ante
    deck = shuffled(list(range(H.DECK_SIZE)), seed)
    hands: dict[int, list[int]] = {s: [] for s in order}
    pos = 0
    for s in order:  # the Dealer two, the others three; the Dealer three, the others two
        k = 2 if s == order[0] else 3
        hands[s] += deck[pos : pos + k]
        pos += k
    for s in order:
        k = 3 if s == order[0] else 2
        hands[s] += deck[pos : pos + k]
        pos += k
    private: dict[Any, Any] = {s: {"hand": sorted(h)} for s, h in hands.items()}
    private["deck"] = {"deck": deck[pos:]}
    out.emit(
        committed(
            event(
                "RoundStarted",
                {
                    "round": st["round_no"] + 1,
                    "dealer": dealer,
                    "seating": seating,
                    "order": order,
                    "ante": ante,
                    "carried": bool(st["carry"]),
                    "bankrolls": bankrolls,
                    "pot": pot,
                    "turn": order[1],
                },
                private,
            ),
            deck,
            seed,
        )
    )


def _end_round(out: _Out, command: dict, winner: int | None, showdown: dict | None, reason: str) -> None:
    st = out.state
    returned = {}
    if _bets_in_front(st):  # extra bets nobody matched go back to their players
        returned = {"returned": {str(s): c for s, c in enumerate(_front(st)) if c}}
    out.emit(
        event(
            "RoundEnded",
            {
                "round": st["round_no"],
                "winner": winner,
                "amount": st["pot"] if winner is not None else 0,
                "reason": reason,
                "showdown": showdown,
                "order": list(st["order"]),
                **returned,
            },
        )
    )
    st = out.state
    stake = st["options"]["stake"]
    able = [s for s in range(len(st["players"])) if st["bankrolls"][s] >= stake]
    if st["round_no"] >= st["options"]["rounds"] or len(able) < 2:
        out.emit(event("MatchEnded", _compute_outcome(st)))
    else:
        _start_round(out, int_field(command, "seed"))


def _compute_outcome(st: dict) -> dict:
    b = st["bankrolls"]
    ranking = sorted(range(len(b)), key=lambda s: (-b[s], s))
    best = b[ranking[0]]
    return {
        "scores": list(b),
        "ranking": ranking,
        "winners": [s for s in ranking if b[s] == best],
        "rounds_played": st["round_no"],
        "pot_left": st["pot"],
    }


def _lone_winner(out: _Out, command: dict) -> bool:
    live = out.state["in_round"]
    if len(live) == 1:
        _end_round(out, command, live[0], None, "last-player-in")
        return True
    return False


def _open_part(st: dict, rnd: int, part: int) -> dict:
    return {
        "phase": "bet_name",
        "turn": st["order"][0],
        "betting": {"round": rnd, "part": part, "bet": None, "raises": {}},
    }
