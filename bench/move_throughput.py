"""Move throughput: naipes against the bare Flask + Redis endpoint, in the same run.

Concurrent clients play complete Dalmuti matches through gunicorn (the start
command's configuration) and real Redis, two ways: ``naipes``, where every
move is a real ``POST /games/{id}/moves`` preceded by
``GET /games/{id}/legal-moves`` for the acting seat; and ``push``, where a
client is a table whose every seat follows its own event stream with
``?view=every`` (its view and legal moves pushed after each batch of events)
and posts a move whenever it is offered some: one request per move; ``turn``
is the same loop with ``?view=turn`` (a state only when the seat must act), and ``states`` with
``?view=turn&events=none`` (that state and nothing else: one message per turn); ``states-node`` is
the ``states`` loop driven from Node (``bench/push/load.js``, no package to install), as the peer's
load generator drives boardgame.io, so that the two push loops are measured with clients alike
(its CPU counts the Node client's whole run, its start and play-out included, as the peer's does).  The bare
app answers the same two requests (one Redis GET, then JSON parsing and one
XADD) on the same gunicorn configuration; ``bare-push`` is the floor of the push loops on this stack:
the bare app's tables played one request per move, each seat on a stream of its own pushed its turn
(a read and one pipeline of XADD, SET and PUBLISH per move, one subscription per web process), with no
rules, hashes or views; ``bare-push-wsgi`` is the same loop on a raw WSGI callable (``bench/bare_wsgi.py``,
no Flask) with the same gunicorn configuration, and ``bare-push-asgi`` on a raw ASGI app
(``bench/bare_asgi.py``, redis.asyncio) served by gunicorn with uvicorn's worker (uvloop, httptools), run
when uvicorn-worker, uvloop and httptools are installed (``pip install uvicorn-worker 'uvicorn[standard]'``).
The peer (``bench/peer``, run when
Node.js is there) is boardgame.io with a shedding game of secret hands, as
many tables as clients, every seat a socket.io client pushed its state.
Latency is of the POSTs (of the peer's moves); moves per second count moves
over the whole run; CPU per move is over every process of the loop, and apart, the servers' (web
workers and Redis; the peer's Node server) and the load generator's.  For the two-request loops, a
line below gives the latency of the moves that ended a game, and of the games' creations, apart (the
POSTs' figures count the former, not the latter).

    .venv/bin/python bench/move_throughput.py [--clients 8 16] [--seconds 15] [--rounds 3] [--loops naipes bare peer]
    .venv/bin/python bench/move_throughput.py --loops bare-push bare-push-wsgi bare-push-asgi peer --clients 8 16

Each loop runs ``--rounds`` times for a slice of ``--seconds``, taking turns with the others (in one
order, then the reverse), and its figures are over all its slices: the machine's speed drifting
during the run (a shared machine's neighbours) then weighs on every loop alike.  Every server is
warmed up first (two seconds of its loop, not counted).
"""

from __future__ import annotations

import argparse
import functools
import http.client
import importlib.util
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import API_KEY, cpu_delta, cpu_of, gunicorn, machine, percentile
from bench.peer import run_peer
from events.embedded import EmbeddedRedis

REFUSED: list[int] = []  # 429s met (the client address's budget), counted per load
ENDS: list[float] = []  # the two-request loops: latencies of the moves that ended a game, per load
CREATIONS: list[float] = []  # and of the games' creations


class Conn:
    """A keep-alive HTTP/1.1 connection with little client-side overhead (http.client + orjson)."""

    def __init__(self, base: str, source: str | None = None):
        self.host, port = base.removeprefix("http://").split(":")
        self.port = int(port)
        self.source = (source, 0) if source else None
        self.conn = self._open()

    def _open(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, source_address=self.source)

    def call(self, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, object]:
        h = dict(headers or {})
        data = None
        if body is not None:
            data = orjson.dumps(body)
            h["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=h)
            r = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # the server closed the idle keep-alive connection: open another and send again
            self.conn = self._open()
            self.conn.request(method, path, body=data, headers=h)
            r = self.conn.getresponse()
        raw = r.read()
        return r.status, orjson.loads(raw) if raw else None


_FIRST_ADDRESS = [0]  # each run's clients come from addresses no earlier run used (see drive)


SEATS = 5  # the seats of a benchmark table (five-seat Dalmuti)
PLAY_OUT_SECONDS = 10  # how long a push loop's tables may play their games out after a run (uncounted)


def address(client: int, seat: int | None = None) -> str:
    """Each player comes from an address of its own: a table's owner (``seat`` None) and each of its
    seats, 127.0.0.2, .3, ... (every address of 127.0.0.0/8 is the loopback), as players at a table
    do; the service's per-address budget (NAIPES_RATE_LIMIT_ADDRESS) then counts a player, not a
    table or the whole load."""
    n = client * (SEATS + 1) + (0 if seat is None else seat + 1) + _FIRST_ADDRESS[0]
    return f"127.{n // 62500 % 250}.{n // 250 % 250}.{n % 250 + 2}"


def naipes_client(base: str, stop: float, out: list, seed: int) -> None:
    """A table: its owner creates the game, then each move is made by a seat the game waits for, from
    that seat's own connection and address (the legal moves, then the move)."""
    rng = random.Random(seed)
    c = Conn(base, address(seed))
    players = [Conn(base, address(seed, seat)) for seat in range(SEATS)]
    auth = {"Authorization": f"Bearer {API_KEY}"}
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        _, g = c.call(
            "POST",
            "/games",
            {"game": "dalmuti", "players": [f"p{i}" for i in range(SEATS)], "options": {"hands": 1}},
            auth,
        )
        if time.monotonic() <= stop:
            CREATIONS.append(time.perf_counter() - t0)
        toks = {x["seat"]: {"Authorization": f"Bearer {x['token']}"} for x in g["seats"]}
        to_act = c.call("GET", f"/games/{g['id']}")[1]["to_act"]
        while to_act and time.monotonic() < stop:
            seat = rng.choice(to_act)
            p = players[seat]
            status, listed = p.call("GET", f"/games/{g['id']}/legal-moves", headers=toks[seat])
            if status == 429:  # the client address's budget (NAIPES_RATE_LIMIT_ADDRESS): wait and go on
                REFUSED.append(1)
                time.sleep(0.05)
                continue
            t0 = time.perf_counter()
            status, body = p.call("POST", f"/games/{g['id']}/moves", rng.choice(listed["moves"]), toks[seat])
            if status == 429:
                REFUSED.append(1)
                time.sleep(0.05)
                continue
            out.append(time.perf_counter() - t0)
            assert status == 201, body
            to_act = body["to_act"]
            if not to_act and time.monotonic() <= stop:
                ENDS.append(time.perf_counter() - t0)


def _seat_loop(
    base: str, gid: str, token: str, stop: float, out: list, seed: int, source: str, view: str = "view=every"
) -> None:
    """One seat following its own stream with ``view=every``: it posts a move whenever a state offers
    it moves, and reads nothing else (one request per move).  Past ``stop`` it plays its game out
    (those moves are not counted), so that the game's streams end with it instead of staying open,
    idle, while the next loops are measured."""
    rng = random.Random(seed)
    post = Conn(base, source)
    auth = {"Authorization": f"Bearer {token}"}
    host, port = base.removeprefix("http://").split(":")
    stream = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    stream.request("GET", f"/games/{gid}/stream?{view}", headers=auth)
    lines = stream.getresponse().fp
    event = None
    try:
        while time.monotonic() < stop + PLAY_OUT_SECONDS:
            raw = lines.readline()
            if not raw:
                return  # the stream ended: the game is over
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "state":
                state = orjson.loads(line[6:])
                if state["view"]["finished"]:
                    return
                offered = state["legal_moves"]
                if offered and offered["moves"]:
                    headers = {**auth, "If-Match": f'"{offered["version"]}"'}
                    t0 = time.perf_counter()
                    move = rng.choice(offered["moves"])
                    status, body = post.call("POST", f"/games/{gid}/moves", move, headers)
                    while status == 429 and time.monotonic() < stop + PLAY_OUT_SECONDS:  # the address's budget
                        REFUSED.append(1)
                        time.sleep(0.05)
                        t0 = time.perf_counter()
                        status, body = post.call("POST", f"/games/{gid}/moves", move, headers)
                    if status == 201:
                        out.append(time.perf_counter() - t0)
                    else:
                        assert status in (412, 429), body  # 412: another seat moved first; the next state says
    finally:
        stream.close()


def push_client(base: str, stop: float, out: list, seed: int, view: str = "view=every") -> None:
    """A table played through the push loop: a thread per seat, each on its own stream (``view=every``:
    a state after every batch; ``view=turn``: only when the seat must act)."""
    c = Conn(base, address(seed))
    auth = {"Authorization": f"Bearer {API_KEY}"}
    n = 0
    while time.monotonic() < stop:
        _, g = c.call(
            "POST",
            "/games",
            {"game": "dalmuti", "players": [f"p{i}" for i in range(SEATS)], "options": {"hands": 1}},
            auth,
        )
        seats = [
            threading.Thread(
                target=_seat_loop,
                args=(base, g["id"], x["token"], stop, out, seed * 100 + n * 10 + i, address(seed, x["seat"]), view),
                daemon=True,
            )
            for i, x in enumerate(g["seats"])
        ]
        for t in seats:
            t.start()
        for t in seats:
            t.join(timeout=max(0.0, stop + PLAY_OUT_SECONDS + 1 - time.monotonic()))
        n += 1


def turn_client(base: str, stop: float, out: list, seed: int) -> None:
    push_client(base, stop, out, seed, view="view=turn")


def states_client(base: str, stop: float, out: list, seed: int) -> None:
    push_client(base, stop, out, seed, view="view=turn&events=none")


def bare_client(base: str, stop: float, out: list, seed: int) -> None:
    """A table of the bare stack: each move's two requests from one of its seats' connections, as
    the naipes loop makes them."""
    rng = random.Random(seed)
    players = [Conn(base, address(seed, seat)) for seat in range(SEATS)]
    gid = f"g{seed}"
    while time.monotonic() < stop:
        c = players[rng.randrange(SEATS)]
        c.call("GET", f"/games/{gid}/legal-moves")
        t0 = time.perf_counter()
        status, _ = c.call("POST", f"/games/{gid}/moves", {"type": "play", "cards": [7, 7, 13]})
        out.append(time.perf_counter() - t0)
        assert status == 201


def _bare_seat(base: str, gid: str, seat: int, stop: float, out: list, source: str) -> None:
    """A seat of the bare push loop: it follows its stream and posts when pushed its turn."""
    post = Conn(base, source)
    host, port = base.removeprefix("http://").split(":")
    stream = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    stream.request("GET", f"/push/{gid}/stream?seat={seat}")
    lines = stream.getresponse().fp
    try:
        while time.monotonic() < stop + PLAY_OUT_SECONDS:
            raw = lines.readline()
            if not raw:
                return
            if raw.startswith(b"data: "):
                state = orjson.loads(raw[6:])
                if state["finished"]:
                    return
                t0 = time.perf_counter()
                status, body = post.call("POST", f"/push/{gid}/moves", {"type": "play", "turn": state["turn"]})
                if status == 201:
                    out.append(time.perf_counter() - t0)
                else:
                    assert status == 412, body
    finally:
        stream.close()


def bare_push_client(base: str, stop: float, out: list, seed: int) -> None:
    """A table of the bare push loop: a thread per seat on its own stream and connection, one request per
    move, games played one after another (their end pushed to every seat), as the push loops' tables."""
    n = 0
    while time.monotonic() < stop:
        gid = f"p{_FIRST_ADDRESS[0]}-{seed}-{n}"
        seats = [
            threading.Thread(target=_bare_seat, args=(base, gid, i, stop, out, address(seed, i)), daemon=True)
            for i in range(SEATS)
        ]
        for t in seats:
            t.start()
        for t in seats:
            t.join(timeout=max(0.0, stop + PLAY_OUT_SECONDS + 1 - time.monotonic()))
        n += 1


PUSH_JS = Path(__file__).resolve().parent / "push" / "load.js"


def node_states(base: str, clients: int, seconds: float) -> dict | None:
    """The ``states`` loop driven from Node (``bench/push/load.js``), as the peer's load generator drives
    boardgame.io: its figures and the CPU it spent (``load_cpu_s``), or None without Node.js 18+."""
    node = _node_for_push()
    if node is None:
        return None
    _FIRST_ADDRESS[0] += 1000 * (SEATS + 1)  # addresses no earlier run used
    command = [node, str(PUSH_JS), "--server", base, "--key", API_KEY, "--tables", str(clients)]
    command += ["--seconds", str(seconds), "--first-address", str(_FIRST_ADDRESS[0])]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + PLAY_OUT_SECONDS + 60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"bench/push/load.js exited with {done.returncode}: {done.stderr.strip()[-1500:]}")
    found = orjson.loads(done.stdout.splitlines()[-1])
    found["load_cpu_s"] = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    return found


@functools.cache
def _node_for_push() -> str | None:
    node = shutil.which("node")
    if node is None:
        print("states-node skipped: Node.js (node) not found on PATH", flush=True)
        return None
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < 18:
        print(f"states-node skipped: Node.js {version} is too old (18 or later)", flush=True)
        return None
    return node


ASGI_WORKER = "uvicorn_worker.UvicornWorker"


@functools.cache
def _asgi_missing() -> str | None:
    """Why the ``bare-push-asgi`` loop cannot run (said once), or None: uvicorn's gunicorn worker, with
    uvloop and httptools (without them uvicorn would fall back to asyncio's loop and h11, another floor)."""
    missing = [name for name in ("uvicorn_worker", "uvloop", "httptools") if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    reason = f"{', '.join(missing)} not installed (pip install uvicorn-worker 'uvicorn[standard]')"
    print(f"bare-push-asgi skipped: {reason}", flush=True)
    return reason


class Samples(list):
    """Latencies of the moves made before the run's end: a move answered after it (a seat waiting on a
    stream that a stopped seat will never feed, say) is not counted."""

    def __init__(self, stop: float):
        super().__init__()
        self.stop = stop

    def append(self, latency: float) -> None:
        if time.monotonic() <= self.stop:
            super().append(latency)


def drive(fn, base: str, clients: int, seconds: float) -> tuple[float, list[float]]:
    """Moves per second over the run's ``seconds`` (moves made in it), and their latencies."""
    REFUSED.clear()
    ENDS.clear()
    CREATIONS.clear()
    # new addresses for every run: a client of the run before (a warm-up, another loop) may have spent
    # its address's budget in the window this run starts in
    _FIRST_ADDRESS[0] += 1000 * (SEATS + 1)
    t0 = time.monotonic()
    stop = t0 + seconds
    samples = Samples(stop)
    threads = [threading.Thread(target=fn, args=(base, stop, samples, i), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:  # a client still waiting then is left behind
        t.join(timeout=max(0.0, stop + PLAY_OUT_SECONDS + 2 - time.monotonic()))
    return len(samples) / seconds, list(samples)


def cpu_now(web: int, redis_pid: int) -> dict[int, float]:
    """The CPU seconds, by process, of gunicorn ``web`` with its workers, of Redis and of this load
    generator (not its children: the servers)."""
    return {**cpu_of(web), **cpu_of(redis_pid), **cpu_of(os.getpid(), descendants=False)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, nargs="+", default=[4, 8, 16, 24, 32])
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="each loop runs this many times, taking turns with the others (a slice of --seconds each), so "
        "that a drift of the machine's speed during the run falls on every loop alike",
    )
    ap.add_argument(
        "--loops",
        nargs="+",
        default=["naipes", "push", "turn", "states", "states-node", "bare", "bare-push", "peer"],
        choices=[
            "naipes",
            "push",
            "turn",
            "states",
            "states-node",
            "bare",
            "bare-push",
            "bare-push-wsgi",
            "bare-push-asgi",
            "peer",
        ],
    )
    ap.add_argument(
        "--before",
        metavar="CHECKOUT",
        help="another checkout of naipes (an earlier release): its two-request loop runs too, as 'before', "
        "side by side with this one's on the same Redis",
    )
    args = ap.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        servers = {}  # base URL -> its gunicorn, for the servers the chosen loops use

        def serve(app: str, *loops: str, worker_class: str | None = None) -> str | None:
            if not set(loops) & set(args.loops):
                return None
            proc, base = gunicorn(app, server.url, worker_class=worker_class)
            servers[base] = proc
            return base

        app_base = serve("service.web.app:create_app()", "naipes", "push", "turn", "states", "states-node")
        bare_base = serve("bench.bare:app", "bare", "bare-push")
        wsgi_base = serve("bench.bare_wsgi:app", "bare-push-wsgi")
        asgi_base = None
        if "bare-push-asgi" in args.loops and _asgi_missing() is None:
            asgi_base = serve("bench.bare_asgi:app", "bare-push-asgi", worker_class=ASGI_WORKER)
        before_base = None
        if args.before:
            before, before_base = gunicorn("service.web.app:create_app()", server.url, root=args.before)
            servers[before_base] = before
        best: dict[str, tuple[float, int, float]] = {}
        loops = [
            (name, fn, base)
            for name, fn, base in (
                ("naipes", naipes_client, app_base),
                ("before", naipes_client, before_base),
                ("push", push_client, app_base),
                ("turn", turn_client, app_base),
                ("states", states_client, app_base),
                ("states-node", None, app_base),
                ("bare", bare_client, bare_base),
                ("bare-push", bare_push_client, bare_base),
                ("bare-push-wsgi", bare_push_client, wsgi_base),
                ("bare-push-asgi", bare_push_client, asgi_base),
                ("peer", None, None),
            )
            if (name in args.loops and (base is not None or fn is None))
            or (name == "before" and before_base is not None)
        ]
        slice_ = args.seconds / args.rounds
        try:
            for name, fn, base in loops:  # warm up (not counted): a server's first requests fill its caches
                if fn is not None:
                    drive(fn, base, max(args.clients), 2.0)
                elif name == "states-node":
                    node_states(base, max(args.clients), 2.0)
            for clients in args.clients:
                moves = {name: 0 for name, _, _ in loops}
                cpu = {name: 0.0 for name, _, _ in loops}  # CPU seconds of every process the loop runs on
                load = {name: 0.0 for name, _, _ in loops}  # of them, the load generator's
                latencies: dict[str, list[float]] = {name: [] for name, _, _ in loops}
                refused = {name: 0 for name, _, _ in loops}
                ends: dict[str, list[float]] = {name: [] for name, _, _ in loops}
                creations: dict[str, list[float]] = {name: [] for name, _, _ in loops}
                peer_failed = None
                for r in range(args.rounds):
                    for name, fn, base in loops if r % 2 == 0 else loops[::-1]:
                        if name == "peer":
                            if peer_failed is not None:
                                continue
                            try:
                                found = run_peer(clients, slice_)
                            except RuntimeError as exc:
                                found, peer_failed = None, str(exc)
                            if found is None:
                                peer_failed = peer_failed or "Node.js absent (see above)"
                                continue
                            moves[name] += found["moves"]
                            latencies[name].extend(found["latencies_ms"])
                            cpu[name] += found["server_cpu_s"] + found["load_cpu_s"]
                            load[name] += found["load_cpu_s"]
                            continue
                        web = servers[base].pid
                        if name == "states-node":
                            spent = [cpu_now(web, server.proc.pid)]
                            at_stop = threading.Timer(
                                slice_,
                                lambda: spent.append(cpu_now(web, server.proc.pid)),  # noqa: B023 - joined below
                            )
                            at_stop.start()
                            found = node_states(base, clients, slice_)
                            at_stop.join()
                            if found is None:
                                continue
                            # the web workers and Redis until the slice's end, the Node client all along
                            cpu[name] += cpu_delta(*spent) + found["load_cpu_s"]
                            load[name] += found["load_cpu_s"]
                            moves[name] += found["moves"]
                            latencies[name].extend(ms / 1000 for ms in found["latencies_ms"])
                            refused[name] += found["refused"]
                            continue
                        spent = [cpu_now(web, server.proc.pid)]
                        # read again as the run ends (a push loop's tables then play their games out)
                        at_stop = threading.Timer(
                            slice_,
                            lambda: spent.append(cpu_now(web, server.proc.pid)),  # noqa: B023 - joined below
                        )
                        at_stop.start()
                        rate, lat = drive(fn, base, clients, slice_)
                        at_stop.join()
                        cpu[name] += cpu_delta(*spent)
                        load[name] += spent[1].get(os.getpid(), 0.0) - spent[0].get(os.getpid(), 0.0)
                        moves[name] += round(rate * slice_)
                        latencies[name].extend(lat)
                        refused[name] += len(REFUSED)
                        ends[name] += ENDS
                        creations[name] += CREATIONS
                rows = {}
                for name, _, _ in loops:
                    if name == "peer" and peer_failed is not None:
                        print(f"{clients:3d} clients  peer    failed: {peer_failed}")
                        continue
                    lat = latencies[name] if name != "peer" else [ms / 1000 for ms in latencies[name]]
                    rate = moves[name] / args.seconds
                    rows[name] = rate
                    if rate > best.get(name, (0.0, 0, 0.0))[0]:
                        best[name] = (rate, clients, percentile(lat, 0.99))
                    what = f"boardgame.io, {clients} tables" if name == "peer" else f"{refused[name]} 429s"
                    per_move = cpu[name] / moves[name] * 1000 if moves[name] else float("nan")
                    by_load = load[name] / moves[name] * 1000 if moves[name] else float("nan")
                    print(
                        f"{clients:3d} clients  {name:14s}  {rate:8.1f} moves/s"
                        f"  p50 {percentile(lat, 0.5) * 1000:6.2f} ms"
                        f"  p99 {percentile(lat, 0.99) * 1000:6.2f} ms"
                        f"  CPU {per_move:5.2f} ms/move (servers {per_move - by_load:4.2f}, load {by_load:4.2f})"
                        f"  ({moves[name]} moves, {what})"
                    )
                    if ends[name]:  # the two-request loops: a game's last move, a game's creation
                        print(
                            f"{'':24s}a game's last move: p50 {percentile(ends[name], 0.5) * 1000:6.2f} ms"
                            f"  p99 {percentile(ends[name], 0.99) * 1000:6.2f} ms ({len(ends[name])});"
                            f" creating a game: p50 {percentile(creations[name], 0.5) * 1000:6.2f} ms"
                            f"  p99 {percentile(creations[name], 0.99) * 1000:6.2f} ms ({len(creations[name])})"
                        )
                ratios = [
                    f"{a}/{b} {rows[a] / rows[b]:.2f}"
                    for a in (
                        "naipes",
                        "before",
                        "push",
                        "turn",
                        "states",
                        "states-node",
                        "bare-push",
                        "bare-push-wsgi",
                        "bare-push-asgi",
                    )
                    # the two-request loops against the bare stack's, the push loops against its floor
                    for b in ("bare" if a in ("naipes", "before") else "bare-push", "peer")
                    if a != b
                    if a in rows and b in rows and rows[b]
                ]
                if ratios:
                    print(f"{clients:3d} clients  ratios  " + "  ".join(ratios))
            if "naipes" not in best or "bare" not in best:
                return
            (n_rate, n_clients, n_p99), (b_rate, b_clients, _) = best["naipes"], best["bare"]
            print(
                f"best: naipes {n_rate:.1f} moves/s at {n_clients} clients (p99 {n_p99 * 1000:.2f} ms), "
                f"bare {b_rate:.1f} moves/s at {b_clients} clients; ratio of bests {n_rate / b_rate:.2f}"
            )
        finally:
            for p in servers.values():
                p.terminate()
                p.wait()


if __name__ == "__main__":
    main()
