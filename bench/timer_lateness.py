"""Lateness of turn-deadline enforcement by real workers, set up as the start command sets them up.

Creates N timed Dalmuti games whose seats never move, all at once (one loop, as fast as the store
takes them), so their deadlines come in a burst; the workers run as ``naipes start`` runs them
(``python -m workers timers`` and ``python -m workers bots``) and enforce them.  Prints how late
each timeout was appended after its deadline, and the deadlines missed: those overdue by more
than ``--missed-after`` seconds and still not enforced when the run ends.

    .venv/bin/python bench/timer_lateness.py [--games 200] [--turn 2.0] [--settle 4]
"""

from __future__ import annotations

import argparse
import os
import signal
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

ROLES = ("timers", "bots")  # the workers the start command runs (service/cli/commands.py)


def start_workers(redis_url: str, logs: Path | None) -> list[subprocess.Popen]:
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT)}
    procs = []
    for role in ROLES:
        out = open(logs / f"worker-{role}.log", "wb") if logs else subprocess.DEVNULL  # the child keeps it
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "workers", role],
                cwd=ROOT,
                env=env,
                start_new_session=True,  # a group of its own: the worker and its scheduler stop together
                stdout=out,
                stderr=out,
            )
        )
    return procs


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and of its descendants still running (a worker's scheduler,
    the timers' role's other workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for task in Path("/proc").iterdir():
        if task.name.isdigit():
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(task.name)] = int(fields[1])
            cpu[int(task.name)] = (int(fields[11]) + int(fields[12])) / tick

    def descends(p: int) -> bool:
        while p > 1:
            if p == pid:
                return True
            p = parent.get(p, 0)
        return False

    return sum(seconds for p, seconds in cpu.items() if descends(p))


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--turn", type=float, default=2.0, help="turn seconds (game i adds (i %% 10) / 10)")
    ap.add_argument("--settle", type=float, default=4.0, help="seconds to wait after the last game's deadline")
    ap.add_argument("--missed-after", type=float, default=3.0, help="overdue this long and not enforced: missed")
    ap.add_argument("--timeline", action="store_true", help="lateness by when the deadlines fell, 2 s at a time")
    ap.add_argument("--logs", type=Path, help="a folder for the workers' logs (warnings and errors)")
    args = ap.parse_args()
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        client = redis.Redis.from_url(server.url)
        svc = Naipes(client)
        attach_scheduler(svc)
        workers = start_workers(server.url, args.logs)
        try:
            time.sleep(2.0)  # the workers are up and one of them holds the scheduler
            games = []
            first_deadlines = 0
            started, epoch = time.monotonic(), time.time()
            for i in range(args.games):
                g = svc.games.create_game(
                    "dalmuti",
                    [f"p{j}" for j in range(4 + i % 5)],
                    {"turn_seconds": args.turn + (i % 10) / 10, "hands": 1},
                )
                games.append(g["id"])
                first_deadlines += sum(1 for c in svc.tables.cached(g["id"])["clock"].values() if c.get("deadline"))
            created_in = time.monotonic() - started
            time.sleep(args.turn + 0.9 + args.settle)
            end = time.time()
            cpu = {role: cpu_seconds(w.pid) for role, w in zip(ROLES, workers)}
            cpu["redis"] = cpu_seconds(server.proc.pid)
            cpu["this process"] = time.process_time()
        finally:
            stop_workers(workers)
        lateness: list[float] = []
        timeline: dict[int, list[float]] = {}  # lateness by when the deadline fell (seconds after the first game)
        missed = 0
        for gid in games:
            table = None
            for env_ in svc.store.read(gid):
                if env_["type"] == tables.TURN_TIMED_OUT and env_["data"]["reason"] == "deadline":
                    due = table["clock"][str(env_["data"]["seat"])]["deadline"]
                    lateness.append(parse_time(env_["time"]) - due)
                    timeline.setdefault(int((due - epoch) // 2 * 2), []).append(lateness[-1])
                table = tables.evolve(table, env_)
            missed += sum(
                1 for c in table["clock"].values() if c.get("deadline") and c["deadline"] < end - args.missed_after
            )
    lateness.sort()

    def p(q: float) -> float:
        return lateness[min(len(lateness) - 1, int(q * len(lateness)))] if lateness else float("nan")

    print(
        f"games: {len(games)} created in {created_in:.1f} s, {first_deadlines} deadlines at the start; "
        f"workers: {' + '.join(ROLES)}"
    )
    print("CPU seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()))
    print(f"deadlines enforced: {len(lateness)}  missed (overdue > {args.missed_after:g} s, not enforced): {missed}")
    print(
        f"lateness seconds: p50 {p(0.50):.3f}  p99 {p(0.99):.3f}  max {lateness[-1] if lateness else float('nan'):.3f}"
        f"  mean {statistics.mean(lateness) if lateness else float('nan'):.3f}  "
        f"early (< 0): {sum(1 for x in lateness if x < 0)}"
    )
    if args.timeline:
        for at, late in sorted(timeline.items()):
            late.sort()
            print(
                f"  deadlines at {at:3d}-{at + 2:<3d} s: {len(late):5d}  p50 {late[len(late) // 2]:.3f}  "
                f"p99 {late[int(0.99 * len(late))]:.3f}  max {late[-1]:.3f}"
            )


if __name__ == "__main__":
    main()
