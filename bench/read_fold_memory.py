"""Reads, fold and memory.

1. Read path: p50/p99 of GET /games/{id} and GET /games/{id}/legal-moves through
   gunicorn for a game at about version 100 and one at about version 10,000.
2. Fold: time to rebuild a 10,000-event game from zero (events read from Redis
   first, then folded), and events per second of the fold.
3. Memory: Redis bytes per event and per finished Dalmuti match (MEMORY USAGE
   over every key of a game).

    .venv/bin/python bench/read_fold_memory.py [--requests 500] [--matches 20]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import API_KEY, gunicorn, machine, percentile
from domain import registry, wire
from domain import table as tables
from events.embedded import EmbeddedRedis
from service.core.naipes import Naipes


def play(svc: Naipes, players: int, hands: int, until_version: int | None, rng: random.Random) -> dict:
    g = svc.games.create_game("dalmuti", [f"p{i}" for i in range(players)], {"hands": hands})
    module = registry.get("dalmuti")
    while True:
        t = svc.tables.table(g["id"], trust_cache=True)
        if module.outcome(t["state"]) is not None or (until_version and t["version"] >= until_version):
            return g
        seat = rng.choice(module.to_act(t["state"]))
        move = rng.choice(module.legal_moves(t["state"], seat))
        svc.moves.move(g["id"], seat, wire.encode_move("dalmuti", move))  # posted as a client posts it: in codes


def timed_gets(url: str, headers: dict, n: int) -> list[float]:
    s = requests.Session()
    s.get(url, headers=headers)
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = s.get(url, headers=headers)
        out.append(time.perf_counter() - t0)
        assert r.status_code == 200
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--matches", type=int, default=20)
    args = ap.parse_args()
    rng = random.Random(7)
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        client = redis.Redis.from_url(server.url)
        svc = Naipes(client, api_keys=[API_KEY])
        short = play(svc, 5, 100, 100, rng)
        t0 = time.perf_counter()
        long = play(svc, 5, 100, 10_000, rng)
        print(f"built a {svc.tables.table(long['id'])['version']}-event game in {time.perf_counter() - t0:.1f} s")

        # 1. read path
        # one seat reads as fast as it can, past its rate limit: the limits are off for this measure
        app, base = gunicorn("service.web.app:create_app()", server.url, {"NAIPES_RATE_LIMIT": "off"})
        try:
            results = {}
            for name, g in (("v~100", short), ("v~10000", long)):
                t = svc.tables.table(g["id"])
                seat = registry.get("dalmuti").to_act(t["state"])[0]
                token = {"Authorization": f"Bearer {g['seats'][seat]['token']}"}
                for what, path in (("GET /games/{id}", ""), ("GET legal-moves", "/legal-moves")):
                    lat = timed_gets(f"{base}/games/{g['id']}{path}", token, args.requests)
                    results[(name, what)] = lat
                    print(
                        f"{name:8s} {what:18s} version {t['version']:6d}  p50 {percentile(lat, 0.5) * 1000:6.2f} ms"
                        f"  p99 {percentile(lat, 0.99) * 1000:6.2f} ms"
                    )
            for what in ("GET /games/{id}", "GET legal-moves"):
                a, b = results[("v~100", what)], results[("v~10000", what)]
                print(f"{what}: p50 ratio long/short {percentile(b, 0.5) / percentile(a, 0.5):.2f}")
        finally:
            app.terminate()
            app.wait()

        # 2. fold
        t0 = time.perf_counter()
        events = svc.store.read(long["id"])
        t1 = time.perf_counter()
        folded = tables.fold(events)
        t2 = time.perf_counter()
        print(
            f"fold: {len(events)} events read in {(t1 - t0) * 1000:.1f} ms, folded in {(t2 - t1) * 1000:.1f} ms "
            f"({len(events) / (t2 - t1):,.0f} events/s); from zero in total {(t2 - t0) * 1000:.1f} ms"
        )
        assert folded["version"] == len(events)

        # 3. memory
        total_bytes = total_events = 0
        per_match = []
        for _ in range(args.matches):
            g = play(svc, 4 + rng.randrange(5), 3, None, rng)
            keys = svc.store.game_keys(g["id"])
            size = sum(client.memory_usage(k, samples=0) or 0 for k in keys)
            stream = client.memory_usage(f"naipes:{{{g['id']}}}:events", samples=0)
            n = svc.tables.table(g["id"])["version"]
            per_match.append(size)
            total_bytes += stream
            total_events += n
        print(
            f"memory: {total_bytes / total_events:.0f} bytes per event in the stream; "
            f"{sum(per_match) / len(per_match) / 1024:.1f} KiB per finished 3-hand match with every key "
            f"(stream, head, snapshot, tokens), {total_events / len(per_match):.0f} events per match"
        )


if __name__ == "__main__":
    main()
