"""The capacity model's measurements: what one move costs the web workers and Redis, on one Redis
and on a Redis Cluster of three masters, and what it takes to run many tables.

Each stage starts its own Redis (the embedded one; or three cluster masters with a single Redis for
RQ's queues, as a cluster deployment runs), naipes under gunicorn (default settings) and one RQ
worker with its scheduler, then plays ``--tables`` concurrent Dalmuti tables for ``--seconds`` with
the two-request client loop of ``bench/move_throughput.py`` (``GET legal-moves``, then the
``POST``).  Around that window it reads, from every Redis: ``INFO commandstats`` (the commands
executed, by command; a Lua script's own calls counted as well as the script), the bytes in and out
(``total_net_input_bytes``, ``total_net_output_bytes``, less this script's own ``INFO`` traffic) and
the CPU of the server process (``used_cpu_sys`` + ``used_cpu_user``, its background threads
included); and the CPU of the gunicorn workers and of the RQ worker (their processes' user + system
time).  The background rates of an idle second before the load (the median of ``--idle`` one-second
windows: the worker's scheduler polling, the cluster's own chatter) are taken off, so the figures
are per move, the creation of the games included: every request a move needs counts, the rate
limiter's scripts, the head checks and the deadlines' RQ jobs as well as the append.

A short second window (``--sample``) attaches ``MONITOR`` to every Redis: it splits the commands into
those the processes sent (a pipeline's commands counted one by one) and those a Lua script ran, and
finds the keys naming no game that moves meet often (the listing's and the deadlines' sorted sets):
on a cluster they live on one master whatever the number of shards.

Then every key is measured (``MEMORY USAGE ... SAMPLES 0``): a game's keys (its hash tag), per
finished game and per running one (the tables the client left in the middle of a game), and the keys
shared by all games (the listing, RQ's jobs and registries, the rate limiter's windows).

Games are timed (``--turn-seconds``, 30 by default; 0 for untimed games) so that every move also
schedules its seats' deadline jobs, as a deployment with turn clocks does; no deadline falls inside
a stage.  The model at the end scales the single-Redis figures to ``--target-tables`` tables moving
once every ``--move-every`` seconds and checks its per-shard prediction against the cluster run.

    .venv/bin/python bench/capacity.py [--tables 8] [--seconds 10] [--stages single cluster]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import psutil
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import move_throughput as mt
from bench.common import ROOT, cpu_delta, cpu_of, gunicorn, machine
from events.embedded import EmbeddedRedis
from service.core.listing import INDEX, INDEX_INFO
from tests.cluster import LocalCluster

APP = "service.web.app:create_app()"
SECRET = "capacity-bench-secret-0123456789abcdef"  # one secret for every process, as a deployment has
IGNORED = {"info", "monitor"}  # this script's own commands
GAME_KEY = re.compile(r"^naipes:\{([^}]+)\}:(\w+)")
MONITOR_LINE = re.compile(rb'^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]*)"(?: "([^"]*)")?')
NOT_A_KEY = {"evalsha", "eval", "script", "multi", "exec", "client", "ping", "cluster", "select", "hello", "info"}
HOT = 0.05  # a key without a game's hash tag met this often per move is one that moves share
RATE = "naipes:rate:"  # the rate limiter's windows: one per seat, key or client address, spread by their names


# --------------------------------------------------------------------------- what is measured


@dataclass
class Node:
    """One Redis server of a stage: ``data`` (games), ``queue`` (RQ), or both."""

    name: str
    client: redis.Redis
    role: str

    @property
    def address(self) -> tuple[str, int]:
        kw = self.client.connection_pool.connection_kwargs
        return kw["host"], int(kw["port"])


@dataclass
class RedisFigures:
    commands: dict[str, tuple[float, float]]  # command -> (calls, usec)
    cpu: float  # seconds
    net_in: float  # bytes
    net_out: float
    memory: float  # used_memory
    keys: float

    def minus(self, other: RedisFigures, scale: float = 1.0) -> RedisFigures:
        names = set(self.commands) | set(other.commands)
        commands = {}
        for n in names:
            a, b = self.commands.get(n, (0.0, 0.0)), other.commands.get(n, (0.0, 0.0))
            commands[n] = (max(0.0, a[0] - scale * b[0]), max(0.0, a[1] - scale * b[1]))
        return RedisFigures(
            {n: v for n, v in commands.items() if v[0] > 0},
            max(0.0, self.cpu - scale * other.cpu),
            max(0.0, self.net_in - scale * other.net_in),
            max(0.0, self.net_out - scale * other.net_out),
            self.memory - scale * other.memory,
            self.keys - scale * other.keys,
        )

    def per(self, n: float) -> RedisFigures:
        return RedisFigures(
            {k: (c / n, u / n) for k, (c, u) in self.commands.items()},
            self.cpu / n,
            self.net_in / n,
            self.net_out / n,
            self.memory / n,
            self.keys / n,
        )

    @property
    def calls(self) -> float:
        return sum(c for c, _ in self.commands.values())

    @staticmethod
    def total(many: list[RedisFigures]) -> RedisFigures:
        commands: dict[str, tuple[float, float]] = defaultdict(lambda: (0.0, 0.0))
        for f in many:
            for k, (c, u) in f.commands.items():
                commands[k] = (commands[k][0] + c, commands[k][1] + u)
        return RedisFigures(
            dict(commands),
            sum(f.cpu for f in many),
            sum(f.net_in for f in many),
            sum(f.net_out for f in many),
            sum(f.memory for f in many),
            sum(f.keys for f in many),
        )


INFO_REQUEST = b"*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n"
OWN: Counter = Counter()  # (server, "in" | "out") -> bytes of this script's INFO requests and replies so far


def info_all(address: tuple[str, int]) -> tuple[str, int]:
    """``INFO all`` over a plain socket: the text, and the bytes of the reply on the wire."""
    with socket.create_connection(address, timeout=10) as s:
        s.sendall(INFO_REQUEST)
        f = s.makefile("rb")
        header = f.readline()  # $<length>\r\n
        body = f.read(int(header[1:]) + 2)
    return body[:-2].decode(), len(header) + len(body)


def redis_now(node: Node) -> RedisFigures:
    """A server's counters, less the bytes this script's own INFO calls made (a request is counted
    when read, before the reply is made; its reply when written, after)."""
    text, reply = info_all(node.address)
    info: dict[str, str] = {}
    commands = {}
    keys = 0
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if not sep or line.startswith("#"):
            continue
        if name.startswith("cmdstat_"):
            fields = dict(part.split("=", 1) for part in value.split(","))
            if name[8:] not in IGNORED:
                commands[name[8:]] = (float(fields["calls"]), float(fields["usec"]))
        elif re.fullmatch(r"db\d+", name):
            keys += int(dict(part.split("=", 1) for part in value.split(","))["keys"])
        else:
            info[name] = value
    OWN[node.name, "in"] += len(INFO_REQUEST)
    figures = RedisFigures(
        commands,
        float(info["used_cpu_sys"]) + float(info["used_cpu_user"]),
        float(info["total_net_input_bytes"]) - OWN[node.name, "in"],
        float(info["total_net_output_bytes"]) - OWN[node.name, "out"],
        float(info["used_memory"]),
        float(keys),
    )
    OWN[node.name, "out"] += reply
    return figures


@dataclass
class Snapshot:
    at: float
    redis: dict[str, RedisFigures]
    web: dict[int, float]
    worker: dict[int, float]
    client: float


@dataclass
class Window:
    seconds: float
    redis: dict[str, RedisFigures]
    web: float
    worker: float
    client: float

    def minus(self, idle: Window) -> Window:
        """This window less the idle window's rates over its length."""
        scale = self.seconds / idle.seconds
        return Window(
            self.seconds,
            {n: f.minus(idle.redis[n], scale) for n, f in self.redis.items()},
            max(0.0, self.web - scale * idle.web),
            max(0.0, self.worker - scale * idle.worker),
            self.client,
        )


def quietest(windows: list[Window]) -> Window:
    """The idle rates: of each server, and of each process, the window of median CPU (a server's
    occasional housekeeping, an append-only file's rewrite, is not the background of every second)."""

    def median(items, cpu):
        return sorted(items, key=cpu)[len(items) // 2]

    per_second = [
        Window(1.0, {n: f.per(w.seconds) for n, f in w.redis.items()}, w.web / w.seconds, w.worker / w.seconds, 0.0)
        for w in windows
    ]
    return Window(
        1.0,
        {n: median([w.redis[n] for w in per_second], lambda f: f.cpu) for n in per_second[0].redis},
        median([w.web for w in per_second], float),
        median([w.worker for w in per_second], float),
        0.0,
    )


def snapshot(nodes: list[Node], web: int, worker: int) -> Snapshot:
    t = psutil.Process().cpu_times()
    return Snapshot(
        time.monotonic(),
        {n.name: redis_now(n) for n in nodes},
        cpu_of(web),
        cpu_of(worker),
        t.user + t.system,
    )


def window(a: Snapshot, b: Snapshot) -> Window:
    return Window(
        b.at - a.at,
        {n: b.redis[n].minus(a.redis[n]) for n in a.redis},
        cpu_delta(a.web, b.web),
        cpu_delta(a.worker, b.worker),
        b.client - a.client,
    )


# --------------------------------------------------------------------------- MONITOR sample


class Monitor:
    """``MONITOR`` on one Redis: counts the commands processes sent and those Lua scripts ran."""

    def __init__(self, node: Node):
        self.node = node
        self.sent: Counter = Counter()
        self.scripted: Counter = Counter()
        self.keys: Counter = Counter()  # calls per key, of the keys that name no game (no hash tag)
        self.sock = socket.create_connection(node.address)
        self.sock.sendall(b"MONITOR\r\n")
        self.file = self.sock.makefile("rb")
        if not self.file.readline().startswith(b"+OK"):
            raise RuntimeError(f"MONITOR refused by {node.name}")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in self.file:
                m = MONITOR_LINE.match(line)
                if not m:
                    continue
                command = m.group(2).decode().lower()
                if command in IGNORED:
                    continue
                (self.scripted if m.group(1) == b"lua" else self.sent)[command] += 1
                name = m.group(3)
                if name is not None and command not in NOT_A_KEY and b"{" not in name:
                    self.keys[name.decode(errors="replace")] += 1

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(10)
        self.sock.close()


# --------------------------------------------------------------------------- the keys


@dataclass
class Memory:
    games: dict[str, dict] = field(default_factory=dict)  # game id -> {bytes, keys, node, kinds}
    shared: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))  # group -> [b, n]
    status: dict[str, str] = field(default_factory=dict)
    version: dict[str, int] = field(default_factory=dict)
    where: dict[str, set] = field(default_factory=lambda: defaultdict(set))  # shared group -> its servers


def shared_group(name: str) -> str:
    if name.startswith("rq:"):
        parts = name.split(":")
        return ":".join(parts[:2]) if len(parts) > 2 else name
    if name.startswith("naipes:"):
        return ":".join(name.split(":")[:3])
    return name.split(":")[0] + (":*" if ":" in name else "")


def measure_keys(nodes: list[Node], data: redis.Redis) -> Memory:
    mem = Memory()
    for node in nodes:
        names = [k.decode() for k in node.client.scan_iter(count=1000)]
        for start in range(0, len(names), 500):
            chunk = names[start : start + 500]
            pipe = node.client.pipeline(transaction=False)
            for k in chunk:
                pipe.memory_usage(k, samples=0)
            for k, size in zip(chunk, pipe.execute()):
                size = size or 0
                m = GAME_KEY.match(k)
                if m:
                    g = mem.games.setdefault(m.group(1), {"bytes": 0, "keys": 0, "node": node.name, "kinds": Counter()})
                    g["bytes"] += size
                    g["keys"] += 1
                    g["kinds"][m.group(2)] += 1
                else:
                    mem.shared[shared_group(k)][0] += size
                    mem.shared[shared_group(k)][1] += 1
                    mem.where[shared_group(k)].add(node.name)
    for tag in [t for t, g in mem.games.items() if not g["kinds"]["head"]]:  # a hash tag of no game ({keys})
        g = mem.games.pop(tag)
        group = f"naipes:{{{tag}}}"
        mem.shared[group][0] += g["bytes"]
        mem.shared[group][1] += g["keys"]
        mem.where[group].add(g["node"])
    for gid, raw in data.hgetall(INDEX_INFO).items():
        mem.status[gid.decode()] = orjson.loads(raw).get("status", "?")
    ids = list(mem.games)
    pipe = data.pipeline(transaction=False)
    for gid in ids:
        pipe.hget(f"naipes:{{{gid}}}:head", "version")
    for gid, v in zip(ids, pipe.execute()):
        mem.version[gid] = int(v or 0)
    return mem


# --------------------------------------------------------------------------- one stage


class TimedConn(mt.Conn):
    """The client loop's connection: it adds the stage's timing options to the games it creates, and
    keeps each game's seat tokens (with the connection) so that the stage can finish a game later."""

    options: dict = {}
    created: dict[str, tuple[mt.Conn, dict[int, str]]] = {}

    def call(self, method: str, path: str, body=None, headers: dict | None = None):
        if method == "POST" and path == "/games" and body is not None and self.options:
            body = {**body, "options": {**body.get("options", {}), **self.options}}
        status, answer = super().call(method, path, body, headers)
        if method == "POST" and path == "/games" and status == 201:
            TimedConn.created[answer["id"]] = (self, {x["seat"]: x["token"] for x in answer["seats"]})
        return status, answer


def finish(games: list[str], seconds: float) -> int:
    """Plays games the client loop left running to their end (the same two requests a move), one
    thread a game (each on the connection that created it: give games of different connections), for
    at most ``seconds``; returns how many ended."""
    ended = []

    def one(gid: str, seed: int) -> None:
        rng = random.Random(seed)
        conn, tokens = TimedConn.created[gid]
        stop = time.monotonic() + seconds
        to_act = conn.call("GET", f"/games/{gid}")[1]["to_act"]
        while to_act and time.monotonic() < stop:
            auth = {"Authorization": f"Bearer {tokens[rng.choice(to_act)]}"}
            status, listed = conn.call("GET", f"/games/{gid}/legal-moves", headers=auth)
            if status == 200 and listed["moves"]:
                status, _ = conn.call("POST", f"/games/{gid}/moves", rng.choice(listed["moves"]), auth)
            if status == 429:
                time.sleep(0.05)
            to_act = conn.call("GET", f"/games/{gid}")[1]["to_act"]
        if not to_act:
            ended.append(gid)

    threads = [threading.Thread(target=one, args=(gid, i)) for i, gid in enumerate(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(ended)


@contextlib.contextmanager
def timed_games(options: dict):
    """``naipes_client`` as it is, its games created with ``options`` added."""
    TimedConn.options = options
    plain, mt.Conn = mt.Conn, TimedConn
    try:
        yield
    finally:
        mt.Conn = plain


def play(base: str, tables: int, seconds: float, options: dict) -> tuple[int, int]:
    """(moves, 429s) of ``tables`` concurrent tables played for ``seconds``."""
    with timed_games(options):
        _, samples = mt.drive(mt.naipes_client, base, tables, seconds)
    return len(samples), len(mt.REFUSED)


def start_worker(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "workers"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop_process(proc: subprocess.Popen, group: bool = False) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if group:  # the worker's scheduler, in the session started for it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


@dataclass
class Stage:
    name: str
    nodes: list[Node]
    moves: int
    refused: int
    games: int
    load: Window
    idle: Window
    sample_moves: int
    sent: dict[str, Counter]
    scripted: dict[str, Counter]
    keys: dict[str, Counter]  # server -> calls per key naming no game (MONITOR sample)
    memory: Memory
    memory_delta: float  # used_memory after the stage less before it, all nodes
    games_in_stage: int

    def lua_share(self, command: str) -> float:
        """The share of a command's calls that Lua scripts made, over every server (the MONITOR sample:
        the code path is the same whichever server a game is on)."""
        sent = sum(c[command] for c in self.sent.values())
        lua = sum(c[command] for c in self.scripted.values())
        return lua / (sent + lua) if sent + lua else 0.0

    def split(self, node: str) -> dict[str, tuple[float, float]]:
        """Per move on a server: command -> (sent by processes, run inside Lua scripts), the load
        window's executed calls split by the MONITOR sample's shares."""
        per = self.load.redis[node].per(self.moves)
        return {
            cmd: (calls * (1 - self.lua_share(cmd)), calls * self.lua_share(cmd))
            for cmd, (calls, _) in per.commands.items()
        }

    def sent_per_move(self, node: str | None = None) -> tuple[float, float]:
        """(sent, in Lua) commands per move, on one server or on all."""
        parts = [v for n in self.nodes if node in (None, n.name) for v in self.split(n.name).values()]
        return sum(a for a, _ in parts), sum(b for _, b in parts)

    def events_share(self, node: str) -> float:
        """A server's share of the events appended (its XADDs): the share of the moves its games got."""
        xadd = {n.name: self.load.redis[n.name].commands.get("xadd", (0.0, 0.0))[0] for n in self.nodes}
        return xadd[node] / max(1.0, sum(xadd.values()))

    def hot_keys(self) -> list[tuple[str, str, float]]:
        """(key, server, calls per move) of the keys naming no game that moves meet often (MONITOR sample)."""
        found = [
            (k, node, calls / max(1, self.sample_moves))
            for node, counted in self.keys.items()
            for k, calls in counted.items()
            if calls / max(1, self.sample_moves) >= HOT and not k.startswith(RATE)
        ]
        return sorted(found, key=lambda t: -t[2])

    def limiter_calls(self, node: str) -> tuple[int, float]:
        """(keys, calls per move) of the rate limiter's windows on a server (MONITOR sample)."""
        counted = {k: c for k, c in self.keys.get(node, Counter()).items() if k.startswith(RATE)}
        return len(counted), sum(counted.values()) / max(1, self.sample_moves)

    def unspread(self, node: str) -> float:
        """Redis CPU per move a server spends on the keys every move shares (the hot keys but the rate
        limiter's, whose windows are one per seat, key or address): its CPU per move times those keys'
        share of its calls in the MONITOR sample (an estimate: every call weighs the same)."""
        calls = sum(self.sent.get(node, Counter()).values()) + sum(self.scripted.get(node, Counter()).values())
        hot = sum(c * self.sample_moves for _, n, c in self.hot_keys() if n == node)
        return self.load.redis[node].cpu / self.moves * hot / calls if calls else 0.0

    def data(self) -> list[Node]:
        return [n for n in self.nodes if "data" in n.role]

    def redis_total(self, role: str | None = None) -> RedisFigures:
        return RedisFigures.total([self.load.redis[n.name] for n in self.nodes if role is None or role in n.role])


def run_stage(name: str, nodes: list[Node], data_url: str, data: redis.Redis, queue: redis.Redis, env: dict, args):
    TimedConn.created.clear()
    web, base = gunicorn(APP, data_url, env)
    worker = start_worker({"REDIS_URL": data_url, **env})
    try:
        deadline = time.monotonic() + 30
        while not queue.scard("rq:workers"):
            if time.monotonic() > deadline or worker.poll() is not None:
                raise RuntimeError("the RQ worker did not start")
            time.sleep(0.1)
        options = {"turn_seconds": args.turn_seconds} if args.turn_seconds else {}
        before_all = {n.name: redis_now(n) for n in nodes}
        games_before = data.zcard(INDEX)
        if args.warmup:
            play(base, args.tables, args.warmup, options)
        time.sleep(0.5)  # the warm-up's last requests settle
        marks = [snapshot(nodes, web.pid, worker.pid)]
        for _ in range(max(1, round(args.idle))):
            time.sleep(args.idle / max(1, round(args.idle)))
            marks.append(snapshot(nodes, web.pid, worker.pid))
        b = marks[-1]
        idle = quietest([window(x, y) for x, y in zip(marks, marks[1:])])
        start_ms = time.time() * 1000
        moves, refused = play(base, args.tables, args.seconds, options)
        c = snapshot(nodes, web.pid, worker.pid)
        end_ms = time.time() * 1000
        load = window(b, c).minus(idle)
        games = data.zcount(INDEX, start_ms, end_ms)
        sent: dict[str, Counter] = {}
        scripted: dict[str, Counter] = {}
        keys: dict[str, Counter] = {}
        sample_moves = 0
        if args.sample:
            monitors = [Monitor(n) for n in nodes]
            sample_moves, _ = play(base, args.tables, args.sample, options)
            for m in monitors:
                m.stop()
                sent[m.node.name], scripted[m.node.name], keys[m.node.name] = m.sent, m.scripted, m.keys
        if args.finish:  # a few finished tables to measure, when the load ended fewer
            status = {k.decode(): orjson.loads(v).get("status") for k, v in data.hgetall(INDEX_INFO).items()}
            done = sum(1 for v in status.values() if v == "finished")
            by_conn = {id(TimedConn.created[g][0]): g for g in TimedConn.created if status.get(g) == "active"}
            if done < args.finish and by_conn:
                finish(list(by_conn.values())[: args.finish - done], 60)
        after_all = {n.name: redis_now(n) for n in nodes}
        memory = measure_keys(nodes, data)
        return Stage(
            name,
            nodes,
            moves,
            refused,
            games,
            load,
            idle,
            sample_moves,
            sent,
            scripted,
            keys,
            memory,
            sum(after_all[n].memory - before_all[n].memory for n in after_all),
            data.zcard(INDEX) - games_before,
        )
    finally:
        stop_process(web)
        stop_process(worker, group=True)


# --------------------------------------------------------------------------- printing


def num(x: float, digits: int = 1) -> str:
    return f"{x:,.{digits}f}"


def size(b: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(b) >= scale:
            return f"{b / scale:,.1f} {unit}"
    return f"{b:,.0f} B"


def table(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for j, r in enumerate(rows):
        print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if j == 0:
            print("  " + "  ".join("-" * w for w in widths))


@dataclass
class Figures:
    """A stage's figures per move."""

    redis: RedisFigures  # every Redis of the stage
    web: float
    worker: float
    client: float
    moves_per_s: float
    sent: float
    scripted: float
    events: float
    running_bytes: float
    finished_bytes: float
    running_keys: float
    finished_keys: float
    finished_events: float
    per_game_shared: float
    per_running_shared: float
    shared_keys_per_running: float


def figures(s: Stage) -> Figures:
    m = s.moves
    total = s.redis_total()
    per = total.per(m)
    sent, scripted = s.sent_per_move() if s.sample_moves else (float("nan"), float("nan"))
    mem = s.memory
    run = [g for gid, g in mem.games.items() if mem.status.get(gid) == "active"]
    fin = [g for gid, g in mem.games.items() if mem.status.get(gid) == "finished"]
    fin_events = [mem.version[gid] for gid in mem.games if mem.status.get(gid) == "finished"]
    timers = sum(b for k, (b, _) in mem.shared.items() if k.startswith("rq:") or k.startswith("naipes:deadlines"))
    timer_keys = sum(n for k, (_, n) in mem.shared.items() if k.startswith("rq:") or k.startswith("naipes:deadlines"))
    listing = sum(b for k, (b, _) in mem.shared.items() if k.startswith("naipes:games"))

    def mean(xs):
        return sum(xs) / len(xs) if xs else float("nan")

    return Figures(
        per,
        s.load.web / m,
        s.load.worker / m,
        s.load.client / m,
        m / s.load.seconds,
        sent,
        scripted,
        per.commands.get("xadd", (0.0, 0.0))[0],
        mean([g["bytes"] for g in run]),
        mean([g["bytes"] for g in fin]),
        mean([g["keys"] for g in run]),
        mean([g["keys"] for g in fin]),
        mean(fin_events),
        listing / max(1, len(mem.games)),
        timers / max(1, len(run)),
        timer_keys / max(1, len(run)),
    )


def report(stages: list[Stage], args) -> None:
    figs = {s.name: figures(s) for s in stages}
    names = [s.name for s in stages]
    print()
    print(f"Per move ({args.tables} tables, {args.seconds:g} s, idle rates taken off; games' creation included)")
    rows = [["figure", *names]]

    def row(label, fn):
        rows.append([label, *(fn(s, figs[s.name]) for s in stages)])

    row("moves (429s met)", lambda s, f: f"{s.moves:,} ({s.refused:,})")
    row("moves/s", lambda s, f: num(f.moves_per_s))
    row(
        "games created / finished",
        lambda s, f: f"{s.games} / {sum(1 for v in s.memory.status.values() if v == 'finished')}",
    )
    row("events appended per move (XADD)", lambda s, f: num(f.events, 2))
    row("Redis commands executed per move", lambda s, f: num(f.redis.calls, 1))
    row("  sent by the processes (split by MONITOR)", lambda s, f: num(f.sent, 1))
    row("  run inside Lua scripts (split by MONITOR)", lambda s, f: num(f.scripted, 1))
    row("Redis bytes in per move", lambda s, f: num(f.redis.net_in, 0))
    row("Redis bytes out per move", lambda s, f: num(f.redis.net_out, 0))
    row("Redis CPU ms per move", lambda s, f: num(f.redis.cpu * 1000, 3))
    row(
        "  of it in commands (commandstats usec)",
        lambda s, f: num(sum(u for _, u in f.redis.commands.values()) / 1000, 3),
    )
    row("web workers' CPU ms per move", lambda s, f: num(f.web * 1000, 3))
    row("RQ worker's CPU ms per move", lambda s, f: num(f.worker * 1000, 3))
    row("load generator's CPU ms per move", lambda s, f: num(f.client * 1000, 3))
    row("Redis memory per running table", lambda s, f: size(f.running_bytes))
    row("Redis memory per finished table", lambda s, f: size(f.finished_bytes))
    row("  + listing keys per game", lambda s, f: size(f.per_game_shared))
    row("  + RQ/deadline keys per running table", lambda s, f: size(f.per_running_shared))
    row("Redis keys per running / finished game", lambda s, f: f"{f.running_keys:.1f} / {f.finished_keys:.1f}")
    row("  + RQ/deadline keys per running table", lambda s, f: num(f.shared_keys_per_running, 1))
    row("events per finished game", lambda s, f: num(f.finished_events, 0))
    row("used_memory delta per game created", lambda s, f: size(s.memory_delta / max(1, s.games_in_stage)))
    table(rows)

    for s in stages:
        f = figs[s.name]
        print()
        print(
            f"{s.name}: per move by command: calls executed and their usec (commandstats), split into sent and "
            f"run in Lua by the MONITOR sample ({s.sample_moves} moves)"
        )
        sent: Counter = Counter()
        scripted: Counter = Counter()
        for n in s.nodes:
            for cmd, (a, b) in s.split(n.name).items():
                sent[cmd] += a
                scripted[cmd] += b
        rows = [["command", "executed", "usec", "sent", "in Lua"]]
        for cmd, (calls, usec) in sorted(f.redis.commands.items(), key=lambda kv: -kv[1][0]):
            if calls < 0.005:
                continue
            rows.append([cmd, num(calls, 2), num(usec, 1), num(sent[cmd], 2), num(scripted[cmd], 2)])
        table(rows)
        print(
            "  background (idle window, per second): "
            + ", ".join(
                f"{n}: {num(w.calls / s.idle.seconds, 0)} cmds, {num(w.cpu / s.idle.seconds * 1000, 1)} ms CPU"
                for n, w in s.idle.redis.items()
            )
            + f"; RQ worker {num(s.idle.worker / s.idle.seconds * 1000, 1)} ms CPU"
        )
        shared = sorted(s.memory.shared.items(), key=lambda kv: -kv[1][0])
        print(
            "  shared keys: "
            + ", ".join(
                f"{k} {int(n)} keys {size(b)}"
                + (f" on {'+'.join(sorted(s.memory.where[k]))}" if len(s.nodes) > 1 else "")
                for k, (b, n) in shared[:10]
            )
        )
        kinds = Counter()
        for g in s.memory.games.values():
            kinds.update(g["kinds"])
        print("  a game's keys: " + ", ".join(f"{k} {n / max(1, len(s.memory.games)):.2f}" for k, n in kinds.items()))
        if s.sample_moves:
            print(
                f"  keys naming no game met {HOT} times a move or more (MONITOR sample, calls per move): "
                + ", ".join(f"{k}{f' on {n}' if len(s.nodes) > 1 else ''} {c:.2f}" for k, n, c in s.hot_keys())
            )
            print(
                "  the rate limiter's windows (a key per seat, key or address and window), calls per move: "
                + ", ".join(
                    f"{n.name} {s.limiter_calls(n.name)[1]:.2f} over {s.limiter_calls(n.name)[0]} keys" for n in s.nodes
                )
            )

        if len(s.nodes) > 1:
            print()
            print(f"{s.name}: how the moves spread over the Redis servers")
            rows = [
                [
                    "server",
                    "games kept",
                    "events here",
                    "cmds/move",
                    "share",
                    "ms CPU/move",
                    "ms on shared keys",
                    "B in/move",
                    "B out/move",
                    "sent/move",
                ]
            ]
            total = s.redis_total().calls
            for n in s.nodes:
                w = s.load.redis[n.name].per(s.moves)
                held = sum(1 for g in s.memory.games.values() if g["node"] == n.name)
                data_node = "data" in n.role
                rows.append(
                    [
                        f"{n.name} ({n.role})",
                        str(held),
                        f"{s.events_share(n.name):.0%}" if data_node else "-",
                        num(w.calls, 1),
                        f"{100 * w.calls * s.moves / max(1, total):.0f}%",
                        num(w.cpu * 1000, 3),
                        num(s.unspread(n.name) * 1000, 3) if s.sample_moves else "-",
                        num(w.net_in, 0),
                        num(w.net_out, 0),
                        num(s.sent_per_move(n.name)[0], 1),
                    ]
                )
            table(rows)
            for n in s.nodes:
                top = sorted(s.load.redis[n.name].per(s.moves).commands.items(), key=lambda kv: -kv[1][0])[:6]
                print(f"  {n.name}: " + ", ".join(f"{k} {c:.2f}" for k, (c, _) in top))

    model(stages, figs, args)


def model(stages: list[Stage], figs: dict[str, Figures], args) -> None:
    target = args.target_tables / args.move_every
    base = stages[0]
    f = figs[base.name]
    ceiling = args.ceiling
    print()
    print(
        f"Model ({base.name} run): {args.target_tables:,} tables, one move per {args.move_every:g} s each "
        f"= {num(target, 0)} moves/s"
    )
    web_per_core = 1 / f.web
    rows = [["quantity", "per move", f"at {num(target, 0)} moves/s"]]
    rows.append(["web CPU (gunicorn workers)", f"{num(f.web * 1000, 3)} ms", f"{num(target * f.web, 1)} cores busy"])
    rows.append(
        [
            "  moves/s per web core",
            num(web_per_core, 0),
            f"{math.ceil(target * f.web / ceiling)} cores at {ceiling:.0%}",
        ]
    )
    rows.append(["Redis commands executed", num(f.redis.calls, 1), f"{num(target * f.redis.calls, 0)} ops/s"])
    rows.append(["  sent by processes", num(f.sent, 1), f"{num(target * f.sent, 0)} ops/s"])
    rows.append(["Redis bytes in", num(f.redis.net_in, 0), f"{size(target * f.redis.net_in)}/s"])
    rows.append(["Redis bytes out", num(f.redis.net_out, 0), f"{size(target * f.redis.net_out)}/s"])
    redis_cores = target * f.redis.cpu
    shards = math.ceil(redis_cores / ceiling)
    rows.append(["Redis CPU", f"{num(f.redis.cpu * 1000, 3)} ms", f"{num(redis_cores, 1)} cores busy"])
    rows.append(
        [
            f"  shards at {ceiling:.0%} of one core",
            f"{num(ceiling / f.redis.cpu, 0)} moves/s a shard",
            f"{shards} shards",
        ]
    )
    running = f.running_bytes + f.per_game_shared + f.per_running_shared
    rows.append(
        ["memory, running table", size(running), f"{size(args.target_tables * running)} for {args.target_tables:,}"]
    )
    moves_per_game = f.finished_events / f.events if f.events else float("nan")
    finished = f.finished_bytes + f.per_game_shared
    per_day = target / moves_per_game * finished * 86400 if moves_per_game == moves_per_game else float("nan")
    rows.append(
        [
            f"memory, finished table (~{num(moves_per_game, 0)} moves)",
            size(finished),
            f"{size(per_day)} a day kept",
        ]
    )
    table(rows)

    cluster = next((s for s in stages if len(s.nodes) > 1), None)
    if cluster is None:
        return
    masters = cluster.data()
    print()
    print(
        f"Check against the {cluster.name} run: the model spreads the {base.name} run's Redis CPU per move "
        f"({num(f.redis.cpu * 1000, 3)} ms) evenly over {len(masters)} masters"
    )
    predicted = f.redis.cpu / len(masters)
    rows = [["server", "predicted ms/move", "measured ms/move", "measured/predicted", "cmds/move"]]
    for n in cluster.nodes:
        w = cluster.load.redis[n.name].per(cluster.moves)
        p = predicted if "data" in n.role else 0.0
        rows.append(
            [
                f"{n.name} ({n.role})",
                num(p * 1000, 3) if p else "-",
                num(w.cpu * 1000, 3),
                f"{w.cpu / p:.2f}" if p else "-",
                num(w.calls, 1),
            ]
        )
    data = cluster.redis_total("data").per(cluster.moves)
    queue = RedisFigures.total([cluster.load.redis[n.name] for n in cluster.nodes if n.role == "queue"]).per(
        cluster.moves
    )
    every = cluster.redis_total().per(cluster.moves)
    rows.append(
        [
            "masters together",
            num(f.redis.cpu * 1000, 3),
            num(data.cpu * 1000, 3),
            f"{data.cpu / f.redis.cpu:.2f}",
            num(data.calls, 1),
        ]
    )
    rows.append(
        [
            "every server",
            num(f.redis.cpu * 1000, 3),
            num(every.cpu * 1000, 3),
            f"{every.cpu / f.redis.cpu:.2f}",
            num(every.calls, 1),
        ]
    )
    table(rows)
    hot_name, shared = max(((n.name, cluster.unspread(n.name)) for n in masters), key=lambda kv: kv[1])
    spread = data.cpu - shared  # what the games' own keys cost, spread over the shards by hash slot
    print(
        f"  from the cluster run: the masters spend {num(data.cpu * 1000, 3)} ms per move -> "
        f"{math.ceil(target * data.cpu / ceiling)} shards at {ceiling:.0%} if all of it spread evenly"
    )
    if shared:
        room = ceiling - target * shared
        need = f"{math.ceil(target * spread / room)} shards" if room > 0 else "no number of shards"
        print(
            f"  {hot_name} spends about {num(shared * 1000, 3)} ms per move on keys every move shares (listed "
            f"above): that part does not spread over more shards, so that shard tops out at "
            f"{num(ceiling / shared, 0)} moves/s; at {num(target, 0)} moves/s it needs {need} "
            f"({num(spread * 1000, 3)} ms per move spread, {num(shared * 1000, 3)} ms on one shard)"
        )
    if queue.cpu:
        print(
            f"  RQ's single Redis: {num(queue.cpu * 1000, 3)} ms per move, {num(queue.calls, 1)} commands -> "
            f"{num(target * queue.cpu, 2)} cores at {num(target, 0)} moves/s "
            f"(its ceiling, one core at {ceiling:.0%}: {num(ceiling / queue.cpu, 0)} moves/s)"
        )


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=8, help="concurrent tables (client threads)")
    ap.add_argument("--seconds", type=float, default=10, help="measured load per stage")
    ap.add_argument("--warmup", type=float, default=2, help="load before the measures (imports, caches)")
    ap.add_argument("--idle", type=float, default=3, help="idle seconds (median of 1 s windows) taken off")
    ap.add_argument("--sample", type=float, default=3, help="MONITOR sample (0: none)")
    ap.add_argument("--finish", type=int, default=3, help="finished tables to measure: played to the end if fewer")
    ap.add_argument("--turn-seconds", type=float, default=30, help="the games' turn clock (0: untimed games)")
    ap.add_argument("--stages", nargs="+", default=["single", "cluster"], choices=["single", "cluster"])
    ap.add_argument("--env", nargs="*", default=[], metavar="NAME=VALUE", help="settings for gunicorn and the worker")
    ap.add_argument("--target-tables", type=int, default=100_000)
    ap.add_argument("--move-every", type=float, default=5.0, help="seconds between two moves of one table")
    ap.add_argument("--ceiling", type=float, default=0.7, help="share of one core a Redis shard may use")
    args = ap.parse_args()
    env = {"NAIPES_SECRET": SECRET, "NAIPES_LOG_LEVEL": "WARNING", **dict(e.split("=", 1) for e in args.env)}
    print(f"machine: {machine()}")
    print(f"settings: {' '.join(args.env) or 'defaults'}; turn_seconds {args.turn_seconds or 'none'}")
    stages = []
    with tempfile.TemporaryDirectory() as tmp:
        if "single" in args.stages:
            with EmbeddedRedis(Path(tmp) / "single") as server:
                client = redis.Redis.from_url(server.url)
                node = Node("redis", client, "data+queue")
                stages.append(run_stage("single Redis", [node], server.url, client, client, env, args))
                client.close()
        if "cluster" in args.stages:
            cluster = LocalCluster(Path(tmp) / "cluster").start()
            try:
                with EmbeddedRedis(Path(tmp) / "queue") as queue_server:
                    queue = redis.Redis.from_url(queue_server.url)
                    nodes = [
                        Node(f"master {i + 1}", redis.Redis(host="127.0.0.1", port=p), "data")
                        for i, p in enumerate(cluster.ports)
                    ]
                    nodes.append(Node("queue", queue, "queue"))
                    data = cluster.client()
                    url = f"redis+cluster://127.0.0.1:{cluster.ports[0]}/0"
                    stage_env = {**env, "NAIPES_QUEUE_URL": queue_server.url}
                    stages.append(run_stage("3-master cluster", nodes, url, data, queue, stage_env, args))
                    data.close()
                    for n in nodes:
                        n.client.close()
            finally:
                cluster.stop()
    report(stages, args)


if __name__ == "__main__":
    main()
