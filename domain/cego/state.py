"""Cego: the state before the game, and the readings every part shares.

Seats never change.  Play runs counter-clockwise, written as increasing seat
numbers: the seat after ``s`` is ``s + 1`` (its right-hand neighbour).  Mano is
the seat after the dealer; the deal passes to the mano.
"""

from __future__ import annotations

from domain.base import RuleViolation, check_player_count, settle_options, table_seat
from domain.cego.about import GAME_ID, MAX_PLAYERS, MIN_PLAYERS, OPTIONS, RULES_VERSION, TITLE


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    opts = settle_options(OPTIONS, options)
    n = len(players)
    return {
        "game": GAME_ID,
        "rules": RULES_VERSION,
        "players": players,
        "options": opts,
        "phase": "created",
        "round_no": 0,
        "rounds_total": int(opts["rounds"]),
        "draws": [],
        "dealer": None,
        "active": [],
        "sitting_out": None,
        "hands": [[] for _ in range(n)],
        "blind": [],
        "blind_taken": False,
        "legage": [],
        "auction": [],
        "speakers": [],
        "contract": None,
        "gegensolo": None,
        "soloist": None,
        "raiser": None,
        "step": None,
        "shown": [],
        "shown_left": [],
        "shown_discard": None,
        "trick": [],
        "leader": None,
        "turn": None,
        "trick_no": 0,
        "tricks_won": [0] * n,
        "won": [[] for _ in range(n)],
        "trick_winners": [],
        "last_trick": None,
        "balances": [0] * n,
        "last_round": None,
        "outcome": None,
    }


def rules_of(state: dict) -> str:
    """The rules version the game was started under (a state without it predates versions: "1")."""
    return state.get("rules", "1")


def active_after(state: dict, seat: int) -> int:
    a = state["active"]
    return a[(a.index(seat) + 1) % len(a)]


def _ring_from(state: dict, seat: int, include: bool) -> list[int]:
    a = state["active"]
    i = a.index(seat)
    ring = a[i:] + a[:i]
    return ring if include else ring[1:]


def to_act(state: dict) -> list[int]:
    phase = state["phase"]
    if phase in ("first_auction", "gegen", "second_auction", "raise"):
        return state["speakers"][:1]
    if phase in ("gut_selbst", "rauber_choice", "exchange"):
        return [state["contract"]["challenger"]]
    if phase == "play":  # (no turn between a trick's last card and its end, two events of one append)
        return [] if state["turn"] is None else [state["turn"]]
    return []


def _seat(state: dict, command: dict) -> int:
    seat = table_seat(state, command)
    if state["phase"] == "created":
        raise RuleViolation("not-started", "the match has not started yet", "turn")
    if state["phase"] == "finished":
        raise RuleViolation("game-over", "the match is over: no more moves", "turn")
    if seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} does not act now (to act: {to_act(state)})", "turn")
    return seat


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
