"""The random bot: a legal move chosen uniformly with ``random.Random(seed)``.

It reads nothing but the list of its seat's legal moves, so it cannot peek.
"""

from __future__ import annotations

import random


def choose(moves: list[dict], seed: int) -> dict:
    if not moves:
        raise ValueError("no legal move to choose from")
    return moves[random.Random(seed).randrange(len(moves))]
