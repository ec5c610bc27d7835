"""Seats the service plays: a bot's move, decided from its seat's view only.

A table's ``bots`` option names the seats bots play and their kind
(:data:`domain.table.BOT_KINDS`).  A bot's turn is due at once
(:func:`domain.table._run_clocks`), so the workers make its move as they
enforce deadlines (:meth:`service.core.deadlines.Deadlines.enforce_deadline`):
the move survives worker kills and Redis restarts as deadlines do, and a
bot's thinking waits behind the deadlines already due.

A bot is given its seat's view (``view(state, seat)``), its legal moves and
a seed; never the state.  The seed comes from the log's head hash and the
seat, so the same game at the same version always gets the same move.
"""

from __future__ import annotations

import hashlib
import os

from domain import bots, registry
from domain import table as tables
from domain.base import RuleViolation
from domain.bots import search
from service.core import facts

# search iterations per decision (the workers' NAIPES_BOT_SEARCH_BUDGET; see docs/bots.md for what it costs)
BUDGETS = {"random": 1, "heuristic": 1, "search": max(1, int(os.environ.get("NAIPES_BOT_SEARCH_BUDGET", "200")))}
# A search's iteration plays the hand out, so its cost grows with the table: a Dalmuti playout is about 130
# moves at four players and 470 at sixteen.  A decision also stops once it has simulated this many moves per
# iteration of its budget (30,000 at the default: a four-player Dalmuti decision, about two seconds of a core),
# so that a move at a large table costs no more than one at a small table.
SEARCH_MOVES_PER_ITERATION = 150


def bot_seed(table: dict, seat: int) -> int:
    """The seed of a bot's decision: the same at the same version of the same game."""
    digest = hashlib.sha256(f"{table['hash']}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def decide(table: dict, seat: int) -> tuple[str, dict]:
    """The bot's move for ``seat`` (cards as the rules' values) and the actor it moves as."""
    kind = tables.bot(table, seat)
    if kind is None:
        raise ValueError(f"seat {seat} is not a bot's")
    module = registry.get(table["game"])
    view = module.view(table["state"], seat)
    moves = module.legal_moves(table["state"], seat)
    if kind == "search":
        move = think(table["game"], view, seat, moves, seed=bot_seed(table, seat), iterations=BUDGETS["search"])
    else:
        move = bots.choose(table["game"], view, seat, moves, kind=kind, seed=bot_seed(table, seat))
    return f"bot:{kind}", move


class _Counted(search.Search):
    """The domain's search, counting the moves it simulates."""

    simulated = 0

    def step(self, state: dict, seat: int, move: dict) -> tuple[dict, bool]:
        self.simulated += 1
        return super().step(state, seat, move)


def think(game: str, view: dict, seat: int, moves: list[dict], *, seed: int, iterations: int) -> dict:
    """A search bot's move: :func:`domain.bots.search.choose` within a thinking budget of ``iterations``
    iterations and of ``iterations * SEARCH_MOVES_PER_ITERATION`` simulated moves, whichever is spent
    first (checked between iterations).  Counted, not timed: the same view, moves and seed give the same
    move, on any machine and under any load."""
    if len(moves) == 1:
        return moves[0]
    found = _Counted(
        game, view, seat, moves, bots.game_bots(game).determinize, seed, getattr(bots.game_bots(game), "score", None)
    )
    allowance = iterations * SEARCH_MOVES_PER_ITERATION
    for _ in range(iterations):
        if found.simulated >= allowance:
            break
        try:
            found.iterate()
        except RuleViolation:  # a move legal in the view but not in one sampled state: that sample is skipped
            continue
    move = found.best()
    if move not in moves:
        raise ValueError(f"the search bot of {game} chose a move that is not legal: {move}")
    return move


def events(table: dict, seat: int) -> tuple[str, list[dict]]:
    """The events of the bot's move and its actor."""
    actor, move = decide(table, seat)
    decided = registry.get(table["game"]).decide(table["state"], {**move, "seat": seat, "seed": facts.seed(table)})
    return actor, decided
