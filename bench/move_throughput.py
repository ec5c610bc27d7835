"""Move throughput: naipes against the bare Flask + Redis endpoint, in the same run.

Concurrent clients play complete Dalmuti matches through gunicorn (the start
command's configuration) and real Redis; every move is a real
``POST /games/{id}/moves`` preceded by ``GET /games/{id}/legal-moves`` for the
acting seat.  The bare app answers the same two requests (one Redis GET, then
JSON parsing and one XADD) on the same gunicorn configuration.  Latency is of
the POSTs; moves per second count POSTs over the whole run.

    .venv/bin/python bench/move_throughput.py [--clients 8] [--seconds 20]
"""

from __future__ import annotations

import argparse
import http.client
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import API_KEY, gunicorn, machine, percentile
from events.embedded import EmbeddedRedis


class Conn:
    """A keep-alive HTTP/1.1 connection with little client-side overhead (http.client + orjson)."""

    def __init__(self, base: str):
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port))

    def call(self, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, object]:
        h = dict(headers or {})
        data = None
        if body is not None:
            data = orjson.dumps(body)
            h["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=h)
        r = self.conn.getresponse()
        raw = r.read()
        return r.status, orjson.loads(raw) if raw else None


def naipes_client(base: str, stop: float, out: list, seed: int) -> None:
    rng = random.Random(seed)
    c = Conn(base)
    auth = {"Authorization": f"Bearer {API_KEY}"}
    while time.monotonic() < stop:
        _, g = c.call(
            "POST", "/games", {"game": "dalmuti", "players": [f"p{i}" for i in range(5)], "options": {"hands": 1}}, auth
        )
        toks = {x["seat"]: {"Authorization": f"Bearer {x['token']}"} for x in g["seats"]}
        to_act = c.call("GET", f"/games/{g['id']}")[1]["to_act"]
        while to_act and time.monotonic() < stop:
            seat = rng.choice(to_act)
            moves = c.call("GET", f"/games/{g['id']}/legal-moves", headers=toks[seat])[1]["moves"]
            t0 = time.perf_counter()
            status, body = c.call("POST", f"/games/{g['id']}/moves", rng.choice(moves), toks[seat])
            out.append(time.perf_counter() - t0)
            assert status == 201, body
            to_act = body["to_act"]


def bare_client(base: str, stop: float, out: list, seed: int) -> None:
    c = Conn(base)
    gid = f"g{seed}"
    while time.monotonic() < stop:
        c.call("GET", f"/games/{gid}/legal-moves")
        t0 = time.perf_counter()
        status, _ = c.call("POST", f"/games/{gid}/moves", {"type": "play", "cards": [7, 7, 13]})
        out.append(time.perf_counter() - t0)
        assert status == 201


def drive(fn, base: str, clients: int, seconds: float) -> tuple[float, list[float]]:
    samples: list[float] = []
    stop = time.monotonic() + seconds
    threads = [threading.Thread(target=fn, args=(base, stop, samples, i)) for i in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(samples) / (time.monotonic() - t0), samples


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, nargs="+", default=[4, 8, 16, 24, 32])
    ap.add_argument("--seconds", type=float, default=15)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        app, app_base = gunicorn("service.web.app:create_app()", server.url)
        bare, bare_base = gunicorn("bench.bare:app", server.url)
        best: dict[str, tuple[float, int, float]] = {}
        try:
            for clients in args.clients:
                rows = {}
                for name, fn, base in (("naipes", naipes_client, app_base), ("bare", bare_client, bare_base)):
                    rate, lat = drive(fn, base, clients, args.seconds)
                    rows[name] = rate
                    if rate > best.get(name, (0.0, 0, 0.0))[0]:
                        best[name] = (rate, clients, percentile(lat, 0.99))
                    print(
                        f"{clients:3d} clients  {name:6s}  {rate:8.1f} moves/s"
                        f"  p50 {percentile(lat, 0.5) * 1000:6.2f} ms"
                        f"  p99 {percentile(lat, 0.99) * 1000:6.2f} ms  ({len(lat)} moves)"
                    )
                print(f"{clients:3d} clients  ratio naipes/bare {rows['naipes'] / rows['bare']:.2f}")
            (n_rate, n_clients, n_p99), (b_rate, b_clients, _) = best["naipes"], best["bare"]
            print(
                f"best: naipes {n_rate:.1f} moves/s at {n_clients} clients (p99 {n_p99 * 1000:.2f} ms), "
                f"bare {b_rate:.1f} moves/s at {b_clients} clients; ratio of bests {n_rate / b_rate:.2f}"
            )
        finally:
            for p in (app, bare):
                p.terminate()
                p.wait()


if __name__ == "__main__":
    main()
