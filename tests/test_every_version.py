"""Every past state can be shown: a replay may stop between two events of one
move, and there every game must still answer ``view``, ``to_act`` and
``legal_moves`` for every viewer (dispute review replays any version)."""

from __future__ import annotations

import random

import pytest

from domain import registry
from domain.base import REVIEWER, SPECTATOR

from .helpers import SHORT

GAMES = 30


def _players(module, rng: random.Random) -> int:
    n = rng.randint(module.MIN_PLAYERS, min(module.MAX_PLAYERS, module.MIN_PLAYERS + 4))
    return n + (n % 2 if module.GAME_ID == "muerte" else 0)


@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_every_intermediate_state_answers_every_viewer(game):
    module = registry.get(game)
    rng = random.Random(f"versions-{game}")
    states = 0
    for _ in range(GAMES):
        n = _players(module, rng)
        options = dict(SHORT[game])
        if game == "onion" and rng.random() < 0.5:  # the modifiers' Showdown too
            options.update(dict.fromkeys(getattr(module, "MODIFIERS", ()), True))
        state = module.initial_state([f"p{i}" for i in range(n)], options)
        pending = module.decide(state, {"type": "start", "seat": None, "seed": rng.getrandbits(63)})
        for _move in range(20000):
            for ev in pending:
                state = module.evolve(state, ev)
                states += 1
                acting = [s for s in module.to_act(state) if s is not None]
                for viewer in (SPECTATOR, REVIEWER, *range(n)):
                    module.view(state, viewer)
                for seat in range(n):
                    module.legal_moves(state, seat)
            if module.outcome(state) is not None:
                break
            acting = module.to_act(state)
            assert acting, "a running game with nobody to act"
            seat = rng.choice(acting)
            moves = module.legal_moves(state, seat)
            assert moves, f"seat {seat} must act but has no legal move"
            assert module.timeout_move(state, seat) in moves, "a timed-out seat makes one of its legal moves"
            pending = module.decide(state, {**rng.choice(moves), "seat": seat, "seed": rng.getrandbits(63)})
        else:
            raise AssertionError("the game did not finish")
    assert states > GAMES * 10
