"""Bots: seats that play by themselves, from what their seat may see.

``choose(game, view, seat, moves, kind=..., seed=...)`` picks one of ``moves`` (the seat's legal moves as
``domain.<game>.legal_moves`` lists them) from ``view`` (``domain.<game>.view(state, seat)``) and ``seed``
only: the same inputs give the same move, whatever the other seats hold.

Kinds (``KINDS``):

- ``random``: uniform over the legal moves (``random_bot``);
- ``heuristic``: the game's own strategy (``domain.bots.<game>.heuristic``), ties broken by the seed;
- ``search``: information-set Monte Carlo tree search (``search``) over states sampled by the game's
  ``domain.bots.<game>.determinize``, ``budget`` iterations.

A game's bot module (``domain/bots/<game>.py``) offers ``determinize(view, seat, rng) -> state`` and
``heuristic(view, seat, moves, rng) -> move``; a game without one is refused with a ``ValueError``.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType

from domain.bots import random_bot, search

KINDS = ("random", "heuristic", "search")
GAMES = ("dalmuti", "cego", "muerte", "onion")


def game_bots(game: str) -> ModuleType:
    """The bot module of ``game`` (``domain.bots.<game>``); ValueError when there is none."""
    if game not in GAMES:
        raise ValueError(f"no bots for the game {game!r}")
    name = f"domain.bots.{game}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise ValueError(f"no bots for the game {game!r} yet (no module {name})") from None


def choose(
    game: str,
    view: dict,
    seat: int,
    moves: list[dict],
    *,
    kind: str,
    seed: int,
    budget: int = 200,
    max_steps: int | None = None,
) -> dict:
    """One of ``moves`` for ``seat``, decided from ``view`` and ``seed`` only (a search: at most
    ``budget`` iterations and, given, ``max_steps`` simulated commands)."""
    if kind not in KINDS:
        raise ValueError(f"unknown bot kind {kind!r} (one of {', '.join(KINDS)})")
    if not moves:
        raise ValueError("no legal move to choose from")
    if kind == "random":
        game_bots(game)  # the same games for every kind
        return random_bot.choose(moves, seed)
    bots = game_bots(game)
    if kind == "heuristic":
        move = bots.heuristic(view, seat, moves, random.Random(seed))
    else:
        move = search.choose(
            game, view, seat, moves, determinize=bots.determinize, seed=seed, budget=budget,
            score=getattr(bots, "score", None), max_steps=max_steps,
        )  # fmt: skip
    if move not in moves:
        raise ValueError(f"the {kind} bot of {game} chose a move that is not legal: {move}")
    return move


__all__ = ["GAMES", "KINDS", "choose", "game_bots"]
