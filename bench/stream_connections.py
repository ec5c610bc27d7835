"""Live streams at scale: what following many games costs Redis, in connections and in work.

Many games, each with a stream open for every seat (``?view=turn&events=none``, as the push loop of
``bench/move_throughput.py`` follows a game), on gunicorn with the start command's settings.  The
bench counts Redis's clients once every stream has shown its first state (``connected_clients``,
``blocked_clients``, the connections subscribed to channels), what Redis does while the games are
quiet, and then what a move costs Redis with all those streams open (commands, ``XREAD``s,
published messages, Redis CPU), and the clients again after the streams are closed.

    .venv/bin/python bench/stream_connections.py [--games 150] [--moves 1500] [--root CHECKOUT]

``--root`` serves another checkout of naipes (a release to compare with) with this bench's client.
"""

from __future__ import annotations

import argparse
import random
import selectors
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import API_KEY, cpu_delta, cpu_of, gunicorn, machine
from events.embedded import EmbeddedRedis

SEATS = 5
QUIET_SECONDS = 10.0


def address(game: int, seat: int | None = None) -> str:
    """A player's own address (127.x.y.z): the per-address budgets count players, not the bench."""
    n = game * (SEATS + 1) + (0 if seat is None else seat + 1)
    return f"127.{n // 62500 % 250 + 1}.{n // 250 % 250}.{n % 250 + 2}"


class Session(requests.Session):
    """HTTP from one source address."""

    def __init__(self, source: str):
        super().__init__()
        adapter = requests.adapters.HTTPAdapter()
        adapter.init_poolmanager(1, 1, source_address=(source, 0))
        self.mount("http://", adapter)


class Streams:
    """Every stream's socket, drained by one thread; each stream's first state is awaited."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.started: set[socket.socket] = set()
        self.count = 0
        self.ended = 0  # streams the server ended (none should: no game here is over)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drain, daemon=True)

    def open(self, host: str, port: int, source: str, path: str, token: str) -> None:
        s = socket.create_connection((host, port), timeout=10, source_address=(source, 0))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        s.setblocking(False)
        self.selector.register(s, selectors.EVENT_READ, bytearray())
        self.count += 1

    def _drain(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.selector.select(0.2):
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if key.fileobj not in self.started:
                    key.data.extend(data)
                    if b"event: state" in key.data:
                        self.started.add(key.fileobj)
                        key.data.clear()
                if not data:
                    self.selector.unregister(key.fileobj)
                    self.ended += 1

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def clients(r: redis.Redis) -> dict:
    info = r.info("clients")
    subscribed = [int(c["sub"]) for c in r.client_list(_type="pubsub") if int(c["sub"])]
    return {
        "connected": info["connected_clients"] - 1,  # this bench's own
        "blocked": info["blocked_clients"],
        "subscribed connections": len(subscribed),
        "channels": sum(subscribed),
    }


def redis_counts(r: redis.Redis) -> dict:
    stats = r.info("commandstats")
    cpu = r.info("cpu")
    return {
        "commands": sum(v["calls"] for v in stats.values()),
        "cpu": cpu["used_cpu_sys"] + cpu["used_cpu_user"],
        **{name.removeprefix("cmdstat_"): v["calls"] for name, v in stats.items()},
    }


def diff(after: dict, before: dict) -> dict:
    return {k: after[k] - before.get(k, 0) for k in after if after[k] - before.get(k, 0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--moves", type=int, default=1500)
    ap.add_argument("--root", help="serve this checkout of naipes instead of this one")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        app, base = gunicorn("service.web.app:create_app()", server.url, root=args.root)
        r = redis.Redis.from_url(server.url)
        host, port = base.removeprefix("http://").split(":")
        streams = Streams()
        try:
            games = []
            for i in range(args.games):
                owner = Session(address(i))
                g = owner.post(
                    f"{base}/games",
                    json={"game": "dalmuti", "players": [f"p{s}" for s in range(SEATS)], "options": {"hands": 1}},
                    headers={"Authorization": f"Bearer {API_KEY}"},
                )
                while g.status_code == 429:  # the key's budget for creating games: wait as the answer says
                    time.sleep(float(g.headers.get("Retry-After", "1")))
                    g = owner.post(
                        f"{base}/games",
                        json={"game": "dalmuti", "players": [f"p{s}" for s in range(SEATS)], "options": {"hands": 1}},
                        headers={"Authorization": f"Bearer {API_KEY}"},
                    )
                if g.status_code != 201:
                    raise RuntimeError(f"creating game {i}: {g.status_code} {g.text[:300]}")
                g = g.json()
                games.append((i, g["id"], {s["seat"]: s["token"] for s in g["seats"]}))
            before = clients(r)
            for i, gid, toks in games:
                for seat, token in toks.items():
                    streams.open(host, int(port), address(i, seat), f"/games/{gid}/stream?view=turn&events=none", token)
            streams.start()
            deadline = time.monotonic() + 120
            while len(streams.started) < streams.count:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{streams.count - len(streams.started)} streams showed no state in 120 s")
                time.sleep(0.1)
            time.sleep(1.0)
            following = clients(r)

            quiet0, web0 = redis_counts(r), cpu_of(app.pid)
            time.sleep(QUIET_SECONDS)
            quiet = diff(redis_counts(r), quiet0)
            quiet_web = cpu_delta(web0, cpu_of(app.pid))

            players = {(i, seat): Session(address(i, seat)) for i, _, toks in games for seat in toks}
            made = 0
            moves0, web0 = redis_counts(r), cpu_of(app.pid)
            t0 = time.monotonic()
            while made < args.moves:
                i, gid, toks = rng.choice(games)
                view = players[(i, 0)].get(f"{base}/games/{gid}").json()
                if not view["to_act"]:
                    continue
                seat = rng.choice(view["to_act"])
                auth = {"Authorization": f"Bearer {toks[seat]}"}
                player = players[(i, seat)]
                listed = player.get(f"{base}/games/{gid}/legal-moves", headers=auth).json()
                answer = player.post(f"{base}/games/{gid}/moves", json=rng.choice(listed["moves"]), headers=auth)
                if answer.status_code == 201:
                    made += 1
            seconds = time.monotonic() - t0
            time.sleep(0.5)
            moved = diff(redis_counts(r), moves0)
            moved_web = cpu_delta(web0, cpu_of(app.pid))
            ended = streams.ended
            streams.close()
            closed = time.monotonic()  # a stream whose client went is noticed at its next write (a heartbeat)
            while time.monotonic() < closed + 60 and clients(r)["channels"] + clients(r)["blocked"]:
                time.sleep(0.25)
            released = time.monotonic() - closed
            after = clients(r)
        finally:
            streams.close()
            app.terminate()
            app.wait()

    print(
        f"{args.games} games, {streams.count} streams open (view=turn&events=none), 2 web workers; "
        f"{ended} of the streams ended by the server before the bench closed them"
    )
    print(f"streams closed: every game's subscription (or blocked read) released {released:.1f} s later")
    print(f"{'Redis clients':34s} {'before the streams':>18s} {'streams open':>14s} {'streams closed':>15s}")
    for k in before:
        print(f"  {k:32s} {before[k]:18d} {following[k]:14d} {after[k]:15d}")

    def top(counts: dict, per: float) -> str:
        named = sorted(((n, c) for n, c in counts.items() if n not in ("commands", "cpu")), key=lambda x: -x[1])
        return ", ".join(f"{n} {c / per:.2f}" for n, c in named[:6])

    print(
        f"quiet for {QUIET_SECONDS:.0f} s, per second: {quiet.get('commands', 0) / QUIET_SECONDS:.1f} Redis commands "
        f"({top(quiet, QUIET_SECONDS)}), Redis CPU {quiet.get('cpu', 0) / QUIET_SECONDS * 1000:.1f} ms, "
        f"web CPU {quiet_web / QUIET_SECONDS * 1000:.1f} ms"
    )
    print(
        f"{made} moves in {seconds:.1f} s (GET state, GET legal-moves, POST; one client), per move: "
        f"{moved['commands'] / made:.2f} Redis commands ({top(moved, made)}), "
        f"Redis CPU {moved['cpu'] / made * 1000:.3f} ms, web CPU {moved_web / made * 1000:.2f} ms"
    )
    print(orjson.dumps({"before": before, "open": following, "closed": after, "quiet": quiet, "moves": moved}).decode())


if __name__ == "__main__":
    main()
