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
    budget = BUDGETS.get(kind, 1)
    move = bots.choose(
        table["game"],
        view,
        seat,
        moves,
        kind=kind,
        seed=bot_seed(table, seat),
        budget=budget,
        max_steps=budget * SEARCH_MOVES_PER_ITERATION,
    )
    return f"bot:{kind}", move


def events(table: dict, seat: int) -> tuple[str, list[dict]]:
    """The events of the bot's move and its actor."""
    actor, move = decide(table, seat)
    decided = registry.get(table["game"]).decide(table["state"], {**move, "seat": seat, "seed": facts.seed(table)})
    return actor, decided
