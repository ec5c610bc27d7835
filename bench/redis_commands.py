"""What one Redis command costs a web process's CPU: through redis-py's client, and through the event
store's own connections (``events/lane.py``), under gevent as the web workers run and without it.

Each way sends the same ``EVALSHA`` (a script returning 1) and the same ``GET`` to an embedded Redis,
one after the other, and prints the process's CPU and the wall time per command.  Under gevent the
socket module is monkey-patched first, as gunicorn's gevent worker does (a process of its own).

    .venv/bin/python bench/redis_commands.py [--commands 20000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(url: str, commands: int) -> list[tuple[str, float, float]]:
    import resource
    import time

    import redis

    sys.path.insert(0, str(ROOT))
    from events.lane import Lane

    def cpu() -> float:
        used = resource.getrusage(resource.RUSAGE_SELF)
        return used.ru_utime + used.ru_stime

    client = redis.Redis.from_url(url)
    lane = Lane(client)
    script = client.register_script("return 1")
    ways = [
        ("EVALSHA, redis-py's client", lambda: script(keys=["bench{a}"], args=["x"])),
        ("EVALSHA, the store's own connection", lambda: lane.run(script, ["bench{a}"], ["x"])),
        ("GET, redis-py's client", lambda: client.get("bench{a}")),
        ("GET, the store's own connection", lambda: lane.call("GET", "bench{a}")),
    ]
    rows = []
    for name, send in ways:
        for _ in range(200):  # warm up: the connection made, the script loaded
            send()
        c0, t0 = cpu(), time.perf_counter()
        for _ in range(commands):
            send()
        rows.append((name, (cpu() - c0) / commands * 1e6, (time.perf_counter() - t0) / commands * 1e6))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commands", type=int, default=20000)
    ap.add_argument("--url", help=argparse.SUPPRESS)  # the child's: measure against this Redis
    ap.add_argument("--gevent", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.url:
        if args.gevent:
            from gevent import monkey

            monkey.patch_all()
        for name, cpu_us, wall_us in measure(args.url, args.commands):
            print(f"{name}\t{cpu_us:.1f}\t{wall_us:.1f}")
        return

    sys.path.insert(0, str(ROOT))
    from bench.common import machine
    from events.embedded import EmbeddedRedis

    print(f"machine: {machine()}; {args.commands} commands each way")
    print(f"{'':9s}  {'command, path':38s}  {'CPU µs':>7s}  {'wall µs':>7s}")
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        for gevent in (True, False):
            cmd = [sys.executable, __file__, "--url", server.url, "--commands", str(args.commands)]
            out = subprocess.run([*cmd, "--gevent"] if gevent else cmd, capture_output=True, text=True, check=True)
            for line in out.stdout.splitlines():
                name, cpu_us, wall_us = line.split("\t")
                how = "gevent" if gevent else "no gevent"
                print(f"{how:9s}  {name:38s}  {float(cpu_us):7.1f}  {float(wall_us):7.1f}")


if __name__ == "__main__":
    main()
