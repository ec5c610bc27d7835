"""Lateness of turn-deadline enforcement by a real RQ worker.

Creates N timed Dalmuti games whose seats never move (so every game has one
or two deadlines pending), lets a real worker with its scheduler enforce them,
and prints how late each timeout was appended after its deadline.

    .venv/bin/python bench/timer_lateness.py [--games 200] [--turn 2.0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from domain import table as tables  # noqa: E402
from events.embedded import EmbeddedRedis  # noqa: E402
from events.envelope import parse_time  # noqa: E402
from service.core.naipes import Naipes  # noqa: E402
from service.core.timers import attach_scheduler  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--turn", type=float, default=2.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        client = redis.Redis.from_url(server.url)
        svc = Naipes(client)
        attach_scheduler(svc)
        env = {**os.environ, "REDIS_URL": server.url, "PYTHONPATH": str(ROOT)}
        worker = subprocess.Popen(
            [sys.executable, "-m", "workers"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            time.sleep(1.5)
            deadlines: dict[tuple[str, int], float] = {}
            games = []
            for i in range(args.games):
                g = svc.games.create_game(
                    "dalmuti",
                    [f"p{j}" for j in range(4 + i % 5)],
                    {"turn_seconds": args.turn + (i % 10) / 10, "hands": 1},
                )
                t = svc.tables.table(g["id"])
                for seat, clock in t["clock"].items():
                    deadlines[(g["id"], int(seat))] = clock["deadline"]
                games.append(g["id"])
            time.sleep(args.turn + 4)
            lateness = []
            for gid in games:
                table = None
                for env_ in svc.store.read(gid):
                    if env_["type"] == tables.TURN_TIMED_OUT and env_["data"]["reason"] == "deadline":
                        due = table["clock"][str(env_["data"]["seat"])]["deadline"]
                        lateness.append(parse_time(env_["time"]) - due)
                    table = tables.evolve(table, env_)
                # deadlines still pending and already past count as missed
                now = time.time()
                for clock in table["clock"].values():
                    if clock["deadline"] < now - 3:
                        deadlines[(gid, -1 - len(deadlines))] = clock["deadline"]
        finally:
            worker.kill()
            worker.wait()
    lateness.sort()
    missed = sum(1 for (gid, seat) in deadlines if seat < 0)
    p = lambda q: lateness[min(len(lateness) - 1, int(q * len(lateness)))]  # noqa: E731
    print(f"games: {len(games)}  deadlines enforced: {len(lateness)}  overdue and not enforced: {missed}")
    print(
        f"lateness seconds: p50 {p(0.50):.3f}  p99 {p(0.99):.3f}  max {lateness[-1]:.3f}  "
        f"mean {statistics.mean(lateness):.3f}"
    )


if __name__ == "__main__":
    main()
