"""Bots: the search against the random and the heuristic bots, game by game, and its think time.

For each game with bots (``domain/bots/<game>.py``), complete matches are played by bots only, driven as
``tests/battery.py`` drives a game (``initial_state``, ``start``, a seat's legal move with a seed, ``evolve``):

- solo games (Dalmuti, Cego, Onion): one ``search`` seat against ``n - 1`` seats of the other kind, the
  search's seat rotated from match to match; a win is the search's seat among the outcome's ``winners``.
  A seat of the other kind would win ``1 / n`` of the matches (the baseline column);
- team games (Muerte): a team of ``search`` seats against a team of the other kind, the search's team
  alternating; a win is the search's team winning the game (baseline 1/2);
- the win rate's 95% confidence interval is Wilson's; ``share`` is the search's mean score share
  (its score's rank among the table, 1 for the best, 0 for the worst, ties halved);
- think time: the wall time of every ``search`` decision with more than one legal move, at ``--budget``
  (the interface's default, 200 iterations), p50 and p99.

    .venv/bin/python bench/bots.py [--games N] [--budget 200] [--only dalmuti,muerte]

``--games`` replaces every game's default number of matches per pairing (``SETUPS``; chosen so that the
whole run takes a few minutes on one core).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain import bots, registry

# game -> (players, options, default matches per pairing, team game)
SETUPS = {
    "dalmuti": (4, {"reduced_deck": True, "hands": 1}, 5, False),
    "muerte": (6, {}, 30, True),
    "cego": (4, {}, 5, False),
    "onion": (2, {}, 5, False),
}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share(scores: list[float], seat: int) -> float:
    """The seat's score's rank at the table in [0, 1] (1 the best), ties halved."""
    others = [x for s, x in enumerate(scores) if s != seat]
    if not others:
        return 0.5
    below = sum(1 for x in others if x < scores[seat]) + 0.5 * sum(1 for x in others if x == scores[seat])
    return below / len(others)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def match(game: str, index: int, opponent: str, budget: int, think: list[float]) -> tuple[bool, float]:
    """One match: (the search side won, the search seat's score share)."""
    n, options, _, team = SETUPS[game]
    m = registry.get(game)
    r = random.Random(f"bench:{game}:{opponent}:{index}")
    st = m.initial_state([f"bot{i}" for i in range(n)], options)
    for ev in m.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}):
        st = m.evolve(st, ev)
    if team:
        side = ("espadas", "bastos")[index % 2]
        teams = m.view(st, "spectator")["teams"]
        kinds = ["search" if t == side else opponent for t in teams]
        me = teams.index(side)
    else:
        me = index % n
        kinds = [opponent] * n
        kinds[me] = "search"
    while m.outcome(st) is None:
        acting = m.to_act(st)
        seat = acting[r.randrange(len(acting))]
        legal = m.legal_moves(st, seat)
        view = m.view(st, seat)
        t0 = time.perf_counter()
        move = bots.choose(game, view, seat, legal, kind=kinds[seat], seed=r.getrandbits(63), budget=budget)
        if kinds[seat] == "search" and len(legal) > 1:
            think.append(time.perf_counter() - t0)
        for ev in m.decide(st, {**move, "seat": seat, "seed": r.getrandbits(63)}):
            st = m.evolve(st, ev)
    out = m.outcome(st)
    if team:
        won = out["games"][-1].get("winning_team") == side
    else:
        won = me in out["winners"]
    return won, share(out["scores"], me)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=None, help="matches per pairing (default: per game, SETUPS)")
    ap.add_argument("--budget", type=int, default=200, help="search iterations per decision (default 200)")
    ap.add_argument("--only", default=",".join(SETUPS), help="games to run, comma-separated")
    args = ap.parse_args()
    print(f"search budget {args.budget}; win rates with Wilson 95% intervals")
    print(
        f"{'game':8} {'players':>7} {'against':10} {'matches':>7} {'search wins':>11} {'95% CI':>13} "
        f"{'baseline':>8} {'share':>5} {'think p50':>9} {'think p99':>9} {'decisions':>9} {'wall':>6}"
    )
    for game in args.only.split(","):
        n, _, default_games, team = SETUPS[game]
        try:
            bots.game_bots(game)
        except ValueError as exc:
            print(f"{game:8} skipped: {exc}")
            continue
        games = args.games or default_games
        for opponent in ("random", "heuristic"):
            think: list[float] = []
            wins, shares = 0, []
            t0 = time.perf_counter()
            for i in range(games):
                won, sh = match(game, i, opponent, args.budget, think)
                wins += won
                shares.append(sh)
            low, high = wilson(wins, games)
            base = 0.5 if team else 1 / n
            players = f"{n // 2}v{n // 2}" if team else str(n)
            print(
                f"{game:8} {players:>7} {opponent:10} {games:>7} {wins / games:>11.2f} "
                f"{f'[{low:.2f}, {high:.2f}]':>13} {base:>8.2f} {sum(shares) / len(shares):>5.2f} "
                f"{percentile(think, 0.5) * 1000:>7.0f}ms {percentile(think, 0.99) * 1000:>7.0f}ms "
                f"{len(think):>9} {time.perf_counter() - t0:>5.0f}s",
                flush=True,
            )


if __name__ == "__main__":
    main()
