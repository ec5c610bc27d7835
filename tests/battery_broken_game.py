"""Deliberately broken copies of the real games, for tests/test_battery.py and
the games' own tests (tests/test_<game>_bots.py).

``broken(game_id, defect)`` is a module with the face of the registered game
``game_id`` (its constants and functions) in which one function breaks one
invariant the battery checks; ``with_events(game_id, change)`` a copy whose
``decide`` changes the events it decides (a broken rule).  The tests register
them under an id of their own, only while they run (``register``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from types import ModuleType

from domain import registry

FACE = (
    "GAME_ID",
    "TITLE",
    "RULES_VERSION",
    "FOLDS_RULES",
    "HAND_OVER_EVENTS",
    "MIN_PLAYERS",
    "MAX_PLAYERS",
    "OPTIONS",
    "initial_state",
    "decide",
    "evolve",
    "to_act",
    "legal_moves",
    "view",
    "timeout_move",
    "outcome",
)


def _first_hand(state: dict) -> int | None:
    return next((s for s, h in enumerate(state.get("hands") or []) if h), None)


def leaky_view(real: ModuleType):
    """A seat also sees the hand of the seat after it."""

    def view(state: dict, viewer):
        v = real.view(state, viewer)
        if isinstance(viewer, int):
            v["neighbour"] = list(state["hands"][(viewer + 1) % len(state["hands"])])
        return v

    return {"view": view}


def unpublished_view_field(real: ModuleType):
    """Every view carries a field the game's published VIEW_SCHEMA does not name (no secret in it)."""

    def view(state: dict, viewer):
        return {**real.view(state, viewer), "mood": "calm"}

    return {"view": view}


def dropping_evolve(real: ModuleType):
    """Dealing loses a card: the first card of the first hand dealt."""

    def evolve(state: dict, ev: dict) -> dict:
        st = real.evolve(state, ev)
        seat = _first_hand(st)
        if "deal" in (ev.get("private") or {}) and seat is not None:
            hands = list(st["hands"])
            hands[seat] = hands[seat][1:]
            st = {**st, "hands": hands}
        return st

    return {"evolve": evolve}


def mutating_evolve(real: ModuleType):
    """The fold writes into the state it is given."""

    def evolve(state: dict, ev: dict) -> dict:
        state.setdefault("folded", []).append(ev["type"])
        return real.evolve(state, ev)

    return {"evolve": evolve}


def counting_evolve(real: ModuleType):
    """The fold depends on how often it has been called (not on the log alone)."""
    calls = itertools.count()

    def evolve(state: dict, ev: dict) -> dict:
        return {**real.evolve(state, ev), "folds": next(calls)}

    return {"evolve": evolve}


def unshuffled_decide(real: ModuleType):
    """The deal draws from the global generator instead of the command's seed."""

    def decide(state: dict, command: dict) -> list[dict]:
        if command.get("type") == "start":
            command = {**command, "seed": random.getrandbits(63)}
        return real.decide(state, command)

    return {"decide": decide}


def tuple_state(real: ModuleType):
    """The state holds a tuple (JSON has none: it comes back as a list)."""

    def evolve(state: dict, ev: dict) -> dict:
        st = real.evolve(state, ev)
        return {**st, "players": tuple(st["players"])}

    return {"evolve": evolve}


def illegal_timeout(real: ModuleType):
    """The timeout move is not one of the legal moves."""

    def timeout_move(state: dict, seat: int) -> dict:
        move = real.timeout_move(state, seat)
        return {**move, "type": "pass_the_time"}

    return {"timeout_move": timeout_move}


def refused_move(real: ModuleType):
    """A listed legal move that ``decide`` refuses."""

    def legal_moves(state: dict, seat: int) -> list[dict]:
        moves = real.legal_moves(state, seat)
        return moves + [{"type": "wave"}] if moves else moves

    return {"legal_moves": legal_moves}


def anyone_acts(real: ModuleType):
    """A seat that does not act may move for the seat that does."""

    def decide(state: dict, command: dict) -> list[dict]:
        acting = real.to_act(state)
        if command.get("seat") is not None and acting and command["seat"] not in acting:
            command = {**command, "seat": acting[0]}
        return real.decide(state, command)

    return {"decide": decide}


def free_money(real: ModuleType):
    """The winner of a round also finds a chip."""

    def evolve(state: dict, ev: dict) -> dict:
        st = real.evolve(state, ev)
        if ev["type"] == "RoundEnded" and ev["data"]["winner"] is not None:
            bankrolls = list(st["bankrolls"])
            bankrolls[ev["data"]["winner"]] += 1
            st = {**st, "bankrolls": bankrolls}
        return st

    return {"evolve": evolve}


def partial_ranking(real: ModuleType):
    """The outcome leaves the last seat out of the ranking."""

    def outcome(state: dict) -> dict | None:
        out = real.outcome(state)
        return out if out is None else {**out, "ranking": out["ranking"][:-1]}

    return {"outcome": outcome}


DEFECTS = {
    f.__name__: f
    for f in (
        leaky_view,
        unpublished_view_field,
        dropping_evolve,
        mutating_evolve,
        counting_evolve,
        unshuffled_decide,
        tuple_state,
        illegal_timeout,
        refused_move,
        anyone_acts,
        free_money,
        partial_ranking,
    )
}


def broken(game_id: str, defect: str | None, game_id_as: str | None = None) -> ModuleType:
    """The registered game ``game_id`` with ``defect`` (None: a faithful copy); ``game_id_as``
    gives it another ``GAME_ID`` (a game the battery has no hooks for)."""
    real = registry.get(game_id)
    module = ModuleType(f"broken_{game_id}_{defect}")
    for name in FACE:
        setattr(module, name, getattr(real, name))
    for name, fn in (DEFECTS[defect](real) if defect else {}).items():
        setattr(module, name, fn)
    if game_id_as is not None:
        module.GAME_ID = game_id_as
    return module


def with_events(game_id: str, change: Callable[[dict, dict], None]) -> ModuleType:
    """A copy of the game whose ``decide`` passes every event it decides, with the state it
    was decided in, to ``change`` (which alters the event in place)."""
    real = registry.get(game_id)
    module = broken(game_id, None)

    def decide(state: dict, command: dict) -> list[dict]:
        events = real.decide(state, command)
        for ev in events:
            change(state, ev)
        return events

    module.decide = decide
    return module


def register(monkeypatch, game_id: str, module: ModuleType) -> None:
    """Register ``module`` under ``game_id`` while the test runs."""
    monkeypatch.setitem(registry.GAME_MODULES, game_id, f"tests.battery_broken_game.{game_id}")
    monkeypatch.setitem(registry._loaded, game_id, module)
