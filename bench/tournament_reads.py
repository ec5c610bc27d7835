"""Reads of a long tournament: flat in the length of its log.

Builds a long tournament log (by default 512 Dalmuti players at tables of four, 64 Swiss rounds:
about 17,000 events; the longest, ``--game onion --seats 2``, about 33,000), written as the service
writes it (the tournament's own decisions, sealed and appended; its tables' games are not played,
their results are recorded as outcomes), then times, through the application:

* GET /tournaments/{id}, /standings and /rounds/{n} as anyone reads them (no key), after the
  first read of this process;
* the first read (the whole log read and folded, as every read did before reads were cached);
* the fold itself, ``Tournaments.load``, and the standings computed from it, in the same run: what
  each read would cost without the process's fold (what every read cost before).

    .venv/bin/python bench/tournament_reads.py [--players 512] [--rounds 64] [--requests 300] [--game onion --seats 2]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from bench.common import API_KEY, machine, percentile
from domain import tournament as T
from events.embedded import EmbeddedRedis
from service.core.naipes import Naipes
from service.core.tournaments import attach_tournaments
from service.web.app import create_app


def build(
    svc: Naipes, players: int, rounds: int, rng: random.Random, game: str = "dalmuti", seats: int = 4
) -> tuple[str, int]:
    """A finished Swiss tournament of ``game`` for ``players`` at tables of ``seats`` over ``rounds`` rounds."""
    tournaments = attach_tournaments(svc)
    tid = f"t-{rng.getrandbits(64):016x}"
    create = {
        "type": "create",
        "game": game,
        "options": {"hands": 1} if game == "dalmuti" else {},
        "format": "swiss",
        "rounds": rounds,
        "table_size": {"min": seats, "max": seats},
        "players": [f"player-{i:03d}" for i in range(players)],
        "owner": "bench",
        "seed": str(rng.getrandbits(63)),
    }
    state, envs = T.initial_state(), []

    def apply(events: list[dict]) -> None:
        nonlocal state
        envs.extend(tournaments._append(tid, envs, events, "system"))
        state = T.fold(events, state=state)

    apply(T.decide(state, create))
    while not state["finished"]:
        apply(T.decide(state, {"type": "pair"}))
        rnd = T.current_round(state)
        if state["finished"] or rnd is None:
            break
        for tb in rnd["tables"]:
            gid = f"{rng.getrandbits(64):016x}"
            apply(T.decide(state, {"type": "start_table", "round": rnd["round"], "table": tb["table"], "game_id": gid}))
            scores = [rng.randrange(0, 12) for _ in tb["players"]]
            ranking = sorted(range(len(scores)), key=lambda s: -scores[s])
            outcome = {"scores": scores, "winners": [ranking[0]], "ranking": ranking}
            apply(
                T.decide(
                    state,
                    {"type": "record", "round": rnd["round"], "table": tb["table"], "game_id": gid, "outcome": outcome},
                )
            )
    return tid, len(envs)


def timed(client, path: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = client.get(path)
        out.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.get_json()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=64)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument(
        "--game", default="dalmuti", help="the tournament's game (onion seats two a table: the longest log)"
    )
    ap.add_argument("--seats", type=int, default=4, help="players at a table")
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis").start()
        try:
            svc = Naipes(redis.Redis.from_url(server.url), api_keys=[API_KEY], secret=b"b" * 32)
            t0 = time.perf_counter()
            tid, events = build(svc, args.players, args.rounds, random.Random(7), args.game, args.seats)
            print(
                f"tournament: {args.game}, {args.players} players at tables of {args.seats}, {args.rounds} rounds, "
                f"{events:,} events "
                f"(built in {time.perf_counter() - t0:.0f} s)"
            )
            app = create_app(svc, rate_limit="off")
            client = app.test_client()
            t0 = time.perf_counter()
            first = client.get(f"/tournaments/{tid}")
            cold = time.perf_counter() - t0
            assert first.status_code == 200, first.get_json()
            tournaments = attach_tournaments(svc)
            folds = []
            for _ in range(max(3, args.requests // 30)):
                t0 = time.perf_counter()
                tournaments.load(tid)
                folds.append(time.perf_counter() - t0)
            print(f"{'what':<44} {'p50 ms':>9} {'p99 ms':>9}")
            print(f"{'the whole log read and folded (load)':<44} {percentile(folds, 0.5) * 1e3:>9.1f} {'':>9}")
            state = tournaments.load(tid)[0]
            ranked = []
            for _ in range(3):
                t0 = time.perf_counter()
                T.standings(state)
                ranked.append(time.perf_counter() - t0)
            print(f"{'the standings computed from the fold':<44} {percentile(ranked, 0.5) * 1e3:>9.1f} {'':>9}")
            print(f"{'first GET /tournaments/{id} of the process':<44} {cold * 1e3:>9.1f} {'':>9}")
            for path in (f"/tournaments/{tid}", f"/tournaments/{tid}/standings", f"/tournaments/{tid}/rounds/1"):
                took = timed(client, path, args.requests)
                name = "GET " + path.replace(tid, "{id}")
                print(f"{name:<44} {percentile(took, 0.5) * 1e3:>9.2f} {percentile(took, 0.99) * 1e3:>9.2f}")
            tournaments._folds.clear()  # what one fold keeps: the memory still held after a first read
            gc.collect()
            tracemalloc.start()
            client.get(f"/tournaments/{tid}/standings")
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            print(f"the process keeps of this tournament's fold: {kept / 2**20:.1f} MiB")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
