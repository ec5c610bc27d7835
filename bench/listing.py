"""Latency of GET /games?limit=50 with 10, 100 and 100,000 games in the store.

The listing reads a page from the sorted set of its filters and, for each
row, the game's latest event (its current version and time): what a page
costs should not depend on how many games the store holds.  The games are
real (created by the application, so every index is written as in service);
the requests go through the Flask app in process (no HTTP server), so the
figures are the application's and Redis's time.  For reference the script
also times what the listing did before: read every id of the index and every
summary.

    .venv/bin/python bench/listing.py [--games 100000] [--requests 300]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bench.common import machine, percentile  # noqa: E402
from events.embedded import EmbeddedRedis  # noqa: E402
from service.core.identity import Viewer  # noqa: E402
from service.core.listing import INDEX, INDEX_INFO  # noqa: E402
from service.core.naipes import Naipes  # noqa: E402
from service.web.app import create_app  # noqa: E402

API_KEY = "nk_bench_listing"
PLAYERS = {
    "cego": ["ana", "bea", "carl"],
    "dalmuti": ["ana", "bea", "carl", "dani"],
    "muerte": ["ana", "bea", "carl", "dani", "eva", "flor"],
    "onion": ["ana", "bea", "carl"],
}
QUERIES = ["limit=50", "status=active&limit=50", "game=cego&status=active&limit=50", "limit=50&offset=5000"]


def make_games(svc: Naipes, n: int, rng: random.Random, *, moves: int = 0) -> None:
    types = sorted(PLAYERS)
    for i in range(n):
        game = types[i % len(types)]
        g = svc.games.create_game(game, PLAYERS[game], {})
        for _ in range(moves):
            table = svc.tables.table(g["id"])
            seat = next(iter(svc.reads.state_view(g["id"], Viewer("spectator"), table)["to_act"]), None)
            if seat is None:
                break
            svc.moves.move(
                g["id"], seat, rng.choice(svc.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
            )
        if (i + 1) % 10_000 == 0:
            print(f"  {i + 1} games created", file=sys.stderr, flush=True)


def timed(client, query: str, headers: dict, n: int) -> list[float]:
    first = client.get(f"/games?{query}", headers=headers)
    assert first.status_code == 200, first.get_json()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = client.get(f"/games?{query}", headers=headers)
        out.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200
    return out


def full_read(redis_client: redis.Redis, n: int) -> list[float]:
    """What the listing did before: every id of the index, then every summary."""
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        ids = redis_client.zrevrange(INDEX, 0, -1)
        if ids:
            redis_client.hmget(INDEX_INFO, ids)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def measure(client, redis_client, headers: dict, requests: int) -> dict:
    rows = {q: timed(client, q, headers, requests) for q in QUERIES}
    rows["(before: whole index and summaries read)"] = full_read(redis_client, max(5, requests // 20))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        redis_client = redis.Redis.from_url(server.url)
        svc = Naipes(redis_client, api_keys=[API_KEY])
        app = create_app(svc, rate_limit="off")
        client = app.test_client()
        headers = {"Authorization": f"Bearer {API_KEY}"}

        results = {}
        started = time.perf_counter()
        for size in sorted({10, 100, args.games}):
            make_games(svc, size - redis_client.zcard(INDEX), rng, moves=3 if size <= 100 else 0)
            assert redis_client.zcard(INDEX) == size
            results[size] = measure(client, redis_client, headers, args.requests)
        filled = time.perf_counter() - started

    print(
        f"# GET /games latency, in process ({machine()}), {args.requests} requests each; "
        f"{args.games:,} games created in {filled:.0f} s"
    )
    print("# 10 games: pages of 10 rows (or none); 100 and more: full pages of 50 rows")
    print()
    print("| query | " + " | ".join(f"{size:,} games p50 | p99" for size in results) + " |")
    print("|---|" + "---:|---:|" * len(results))
    for q in results[10]:
        cells = [f"{percentile(r[q], 0.5):.2f} ms | {percentile(r[q], 0.99):.2f} ms" for r in results.values()]
        print(f"| `{q}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
