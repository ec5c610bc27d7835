"""Concurrent timed games over HTTP while workers and Redis are killed.

Starts the service as ``./naipes start`` does (embedded Redis, gunicorn,
RQ worker with its scheduler), or several gunicorn instances and several RQ
workers on the one Redis, and has bots play games of all four types at once
through the API with short turn times, a few of their turns left to run out
so that the deadline worker acts.  Meanwhile it SIGKILLs gunicorn workers,
kills and restarts RQ workers, and kills and restarts Redis on its data
folder.  Then it checks every game and prints its figures:

* every game finished or resumable (someone to act and a legal move or a
  pending deadline), every log gapless with a verifying chain (audit);
* moves lost: events of a 2xx answer that are not in the log at their version;
* duplicates: a move applied twice (an Idempotency-Key answered with two
  versions, or a seat's event in the log that no 2xx answer accounts for);
* deadlines missed: a seat whose deadline passed more than ``--tolerance``
  seconds before the next event of its game (or before the end of the run);
* ends untold: a finished game neither listed finished nor still marked in
  ``naipes:games:finishing`` (where the workers find an end its process did
  not live to tell).

    .venv/bin/python bench/load_faults.py [--games 200] [--seconds 120] [--web 2] [--rq 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
import requests  # noqa: E402

from domain import table as tables  # noqa: E402
from events.embedded import EmbeddedRedis, free_port  # noqa: E402
from events.envelope import parse_time  # noqa: E402
from service.core.listing import FINISHING, INDEX_INFO  # noqa: E402

API_KEY = "nk_load_faults"
SETUPS = {
    "dalmuti": (4, {"hands": 1}),
    "cego": (4, {}),
    "muerte": (6, {}),
    "onion": (4, {}),
}


# ------------------------------------------------------------------ the service
class Service:
    def __init__(self, folder: Path, web: int, rq: int, appendfsync: str, web_workers: int = 2):
        self.folder = folder
        self.redis = EmbeddedRedis(folder / "redis", appendfsync=appendfsync).start()
        self.env = {
            **os.environ,
            "REDIS_URL": self.redis.url,
            "NAIPES_API_KEYS": API_KEY,
            "PYTHONPATH": str(ROOT),
            "NAIPES_RATE_LIMIT": "off",
            "NAIPES_LOG_LEVEL": "ERROR",
            "NAIPES_WEB_WORKERS": str(web_workers),
            "NAIPES_WEB_THREADS": "8",
        }
        self.web: list[tuple[subprocess.Popen, str]] = [self._gunicorn() for _ in range(web)]
        self.rq: list[subprocess.Popen] = [self._worker() for _ in range(rq)]
        for _, base in self.web:
            _wait_http(base)

    def _gunicorn(self) -> tuple[subprocess.Popen, str]:
        port = free_port()
        env = {**self.env, "NAIPES_BIND": f"127.0.0.1:{port}"}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "service" / "web" / "gunicorn_conf.py"),
                "service.web.app:create_app()",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return proc, f"http://127.0.0.1:{port}"

    def _worker(self) -> subprocess.Popen:
        logs = os.environ.get("NAIPES_LOAD_LOGS")  # a folder: each RQ worker's log (INFO) lands there
        if logs:
            Path(logs).mkdir(parents=True, exist_ok=True)
            out = open(Path(logs) / f"worker-{time.time():.3f}.log", "wb")  # the child keeps it
            env = {**self.env, "NAIPES_LOG_LEVEL": "INFO"}
        else:
            out, env = subprocess.DEVNULL, self.env
        return subprocess.Popen(
            [sys.executable, "-m", "workers"], cwd=ROOT, env=env, start_new_session=True, stdout=out, stderr=out
        )

    @property
    def bases(self) -> list[str]:
        return [base for _, base in self.web]

    # -- faults
    def kill_web_worker(self, rng: random.Random) -> bool:
        master, _ = rng.choice(self.web)
        children = _children(master.pid)
        if not children:
            return False
        os.kill(rng.choice(children), signal.SIGKILL)  # gunicorn's master starts a new one
        return True

    def restart_rq_worker(self, rng: random.Random) -> None:
        i = rng.randrange(len(self.rq))
        _killpg(self.rq[i])
        self.rq[i] = self._worker()

    def restart_redis(self) -> None:
        port = self.redis.port
        self.redis.kill()
        self.redis = EmbeddedRedis(self.folder / "redis", port=port, appendfsync=self.redis.appendfsync).start()

    def stop(self) -> None:
        for proc in self.rq:
            _killpg(proc)
        for proc, _ in self.web:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc, _ in self.web:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                _killpg(proc)
        self.redis.stop()


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _killpg(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _wait_http(base: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if requests.get(base + "/health", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{base} did not come up")


# ------------------------------------------------------------------ the bots
@dataclass
class Record:
    game: str = ""
    gid: str = ""
    acked: dict = field(default_factory=dict)  # idempotency key -> set of (version, (event hashes...))
    moves: int = 0
    stalls: int = 0
    errors: int = 0


class Bot(threading.Thread):
    def __init__(
        self, game: str, bases: list[str], until: float, turn: float, stall: float, seed: int, tolerance: float = 6.0
    ):
        super().__init__(daemon=True)
        self.game, self.bases, self.until, self.turn, self.stall = game, bases, until, turn, stall
        self.tolerance = tolerance
        self.rng = random.Random(seed)
        self.http = requests.Session()
        self.rec = Record(game=game)

    def call(self, method: str, path: str, *, retry_until: float | None = None, **kw) -> requests.Response | None:
        """One request, retried on other instances while the service is down (5xx, resets)."""
        end = retry_until or (time.monotonic() + 60)
        while True:
            base = self.rng.choice(self.bases)
            try:
                r = self.http.request(method, base + path, timeout=15, **kw)
                if r.status_code < 500:
                    return r
            except requests.RequestException:
                pass
            self.rec.errors += 1
            if time.monotonic() > end:
                return None
            time.sleep(0.2 + self.rng.random() * 0.3)

    def run(self) -> None:
        players, options = SETUPS[self.game]
        body = {
            "game": self.game,
            "players": [f"p{i}" for i in range(players)],
            "options": {**options, "turn_seconds": self.turn},
        }
        auth = {"Authorization": f"Bearer {API_KEY}"}
        r = self.call("POST", "/games", json=body, headers=auth)
        if r is None or r.status_code != 201:
            return
        created = r.json()
        self.rec.gid = gid = created["id"]
        toks = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}
        while time.monotonic() < self.until:
            r = self.call("GET", f"/games/{gid}")
            if r is None:
                continue
            view = r.json()
            if view["finished"]:
                return
            if not view["to_act"]:
                time.sleep(0.2)
                continue
            seat = self.rng.choice(view["to_act"])
            if self.rng.random() < self.stall:  # leave this turn to the deadline worker
                # and wait for the game to move on (longer than the tolerance: a deadline the worker does
                # not enforce in time shows up as missed, not hidden by this bot moving after all)
                self.rec.stalls += 1
                give_up = time.monotonic() + self.turn + self.tolerance + 1.0
                while time.monotonic() < give_up:
                    time.sleep(0.25)
                    r = self.call("GET", f"/games/{gid}")
                    if r is not None and r.json()["version"] != view["version"]:
                        break
                continue
            r = self.call("GET", f"/games/{gid}/legal-moves", headers=toks[seat])
            if r is None or r.status_code != 200 or not r.json()["moves"]:
                continue
            move = self.rng.choice(r.json()["moves"])
            key = uuid.uuid4().hex
            headers = {**toks[seat], "Idempotency-Key": key}
            r = self.call("POST", f"/games/{gid}/moves", json=move, headers=headers)
            if r is not None and r.status_code == 201:
                out = r.json()
                self.rec.acked.setdefault(key, set()).add((out["version"], tuple(e["hash"] for e in out["events"])))
                self.rec.moves += 1
            time.sleep(self.rng.uniform(0.05, 0.3))


# ------------------------------------------------------------------ checks
MISSES: list[str] = []  # what each missed deadline was, for the report
FAULTS: list[tuple[float, str]] = []  # (time, kind) of every fault injected
LATE: list[tuple[float, float]] = []  # (lateness, deadline) of every deadline enforced


def _overdue(table: dict | None, at: float, tolerance: float) -> list[tuple[str, float]]:
    """The seats of a running, unfrozen table whose deadline passed more than
    ``tolerance`` seconds before ``at``, with their deadlines."""
    if table is None or table.get("frozen") or tables.outcome(table) is not None:
        return []
    return [
        (seat, clock["deadline"])
        for seat, clock in table["clock"].items()
        if clock.get("deadline") is not None and at > clock["deadline"] + tolerance
    ]


def _after_fault(at: float) -> str:
    """Which fault came last before ``at`` (the missed deadline), and how long before."""
    before = [(t, kind) for t, kind in FAULTS if t <= at]
    if not before:
        return ""
    t, kind = before[-1]
    return f" (last fault before it: {kind}, {at - t:.1f} s earlier)"


def deadline_overruns(events: list[dict], end_time: float, tolerance: float) -> tuple[int, list[float], int]:
    """Seats whose deadline passed more than ``tolerance`` before the next event
    (or before ``end_time``); the lateness of every enforced deadline; and the seats' moves stamped
    after their seat's deadline (refused by the service: none may be stored)."""
    table = None
    missed = 0
    lateness = []
    moved_late = 0
    for env in events:
        t = parse_time(env["time"])
        actor = env.get("actor", "")
        if table is not None and actor.startswith("seat:"):
            d = table["clock"].get(actor[5:], {}).get("deadline")
            if d is not None and t > d:
                moved_late += 1
                MISSES.append(f"game {env['game_id']} {actor}: moved at version {env['version']}, {t - d:.3f} s late")
        for seat, d in _overdue(table, t, tolerance):
            missed += 1
            MISSES.append(
                f"game {env['game_id']} seat {seat}: deadline {d:.3f} passed, next event "
                f"{env['version']} {env['type']} {t - d:.3f} s later{_after_fault(d)}"
            )
        if env["type"] == tables.TURN_TIMED_OUT and env["data"].get("reason") == "deadline":
            d = table["clock"].get(str(env["data"]["seat"]), {}).get("deadline")
            if d is not None:
                lateness.append(t - d)
                LATE.append((t - d, d))
        table = tables.evolve(table, env)
    for seat, d in _overdue(table, end_time, tolerance):
        missed += 1
        MISSES.append(
            f"game {events[-1]['game_id']} seat {seat}: deadline {d:.3f} passed, no event after "
            f"version {events[-1]['version']} by the end of the run"
        )
    return missed, lateness, moved_late


def check(bots: list[Bot], base: str, end_time: float, tolerance: float, redis_url: str) -> dict:
    auth = {"Authorization": f"Bearer {API_KEY}"}
    store = redis.Redis.from_url(redis_url)
    figures = {
        "games": 0,
        "finished": 0,
        "resumable": 0,
        "stuck": 0,
        "moves": 0,
        "events": 0,
        "chain_broken": 0,
        "moves_lost": 0,
        "duplicates": 0,
        "deadlines_enforced": 0,
        "deadlines_missed": 0,
        "moves_after_deadline": 0,
        "lateness_max": 0.0,
        "stalls": 0,
        "client_retries": 0,
        "ends_pending": 0,
        "ends_untold": 0,
    }
    for bot in bots:
        rec = bot.rec
        figures["stalls"] += rec.stalls
        figures["client_retries"] += rec.errors
        if not rec.gid:
            figures["stuck"] += 1
            continue
        figures["games"] += 1
        figures["moves"] += rec.moves
        audit = requests.get(f"{base}/games/{rec.gid}/audit", headers=auth, timeout=30).json()
        events = audit["events"]
        figures["events"] += len(events)
        if not audit["chain"]["ok"] or [e["version"] for e in events] != list(range(1, len(events) + 1)):
            figures["chain_broken"] += 1
        by_version = {e["version"]: e["hash"] for e in events}
        accounted = set()
        for _key, answers in rec.acked.items():
            if len(answers) > 1:
                figures["duplicates"] += len(answers) - 1
            for version, hashes in answers:
                first = version - len(hashes) + 1
                for i, h in enumerate(hashes):
                    if by_version.get(first + i) != h:
                        figures["moves_lost"] += 1
                        break
                accounted.update(hashes)
        # every seat's event in the log belongs to a 2xx answer: none was applied twice
        figures["duplicates"] += sum(1 for e in events if e["actor"].startswith("seat:") and e["hash"] not in accounted)
        missed, lateness, moved_late = deadline_overruns(events, end_time, tolerance)
        figures["deadlines_missed"] += missed
        figures["moves_after_deadline"] += moved_late
        figures["deadlines_enforced"] += len(lateness)
        if lateness:
            figures["lateness_max"] = max(figures["lateness_max"], max(lateness))
        view = requests.get(f"{base}/games/{rec.gid}", headers=auth, timeout=30).json()
        if view["finished"]:
            figures["finished"] += 1
            # read in Redis, not through the listing (a listing read tells the pending ends it finds)
            listed = store.hget(INDEX_INFO, rec.gid)
            if store.zscore(FINISHING, rec.gid) is not None:
                figures["ends_pending"] += 1
            elif listed is None or json.loads(listed)["status"] != "finished":
                figures["ends_untold"] += 1
        elif view["to_act"] and (view["deadlines"] or view["frozen"] is False):
            figures["resumable"] += 1
        else:
            figures["stuck"] += 1
    figures["lateness_max"] = round(figures["lateness_max"], 3)
    return figures


# ------------------------------------------------------------------ the run
def run(
    games: int = 200,
    seconds: float = 120,
    web: int = 2,
    rq: int = 2,
    turn: float = 2.0,
    stall: float = 0.03,
    fault_every: float = 6.0,
    tolerance: float = 6.0,
    appendfsync: str = "always",
    faults: list[str] | None = None,
    seed: int = 1,
    quiet: bool = False,
) -> dict:
    kinds = faults or ["web", "rq", "redis"]
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="naipes-load-") as tmp:
        svc = Service(Path(tmp), web=web, rq=rq, appendfsync=appendfsync)
        injected = {"web": 0, "rq": 0, "redis": 0}
        try:
            time.sleep(1.5)  # the RQ scheduler takes its lock
            until = time.monotonic() + seconds
            bots = [
                Bot(list(SETUPS)[i % len(SETUPS)], svc.bases, until, turn, stall, seed * 100_003 + i, tolerance)
                for i in range(games)
            ]
            for bot in bots:
                bot.start()
            i = 0
            while time.monotonic() < until - fault_every:
                time.sleep(fault_every)
                kind = kinds[i % len(kinds)]
                i += 1
                if kind == "web" and svc.kill_web_worker(rng):
                    injected["web"] += 1
                elif kind == "rq":
                    svc.restart_rq_worker(rng)
                    injected["rq"] += 1
                elif kind == "redis":
                    svc.restart_redis()
                    injected["redis"] += 1
                FAULTS.append((time.time(), kind))
                if not quiet:
                    print(f"  fault {i}: {kind} at {seconds - (until - time.monotonic()):.0f}s", flush=True)
            for bot in bots:
                bot.join(max(0.0, until - time.monotonic()) + 30)
            time.sleep(tolerance)  # deadlines that fell at the very end get their chance
            end_time = time.time() - tolerance
            figures = check(bots, svc.bases[0], end_time, tolerance, svc.redis.url)
        finally:
            svc.stop()
    figures["faults"] = injected
    figures["faults_injected"] = sum(injected.values())
    figures["web_instances"], figures["rq_workers"] = web, rq
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--web", type=int, default=2, help="gunicorn instances")
    ap.add_argument("--rq", type=int, default=2, help="RQ workers (each with a scheduler)")
    ap.add_argument("--turn", type=float, default=2.0, help="turn_seconds of every game")
    ap.add_argument("--stall", type=float, default=0.03, help="share of turns left to the deadline")
    ap.add_argument("--fault-every", type=float, default=6.0, help="seconds between faults")
    ap.add_argument("--tolerance", type=float, default=6.0, help="seconds a deadline may be late")
    ap.add_argument("--appendfsync", default="always", choices=["always", "everysec"])
    args = ap.parse_args()
    figures = run(
        args.games,
        args.seconds,
        args.web,
        args.rq,
        args.turn,
        args.stall,
        args.fault_every,
        args.tolerance,
        args.appendfsync,
    )
    print(
        f"games: {figures['games']} (finished {figures['finished']}, resumable {figures['resumable']}, "
        f"stuck {figures['stuck']})  web instances: {figures['web_instances']}  RQ workers: {figures['rq_workers']}"
    )
    print(
        f"moves acknowledged: {figures['moves']}  events: {figures['events']}  "
        f"client retries: {figures['client_retries']}"
    )
    print(
        f"faults injected: {figures['faults_injected']} (gunicorn workers killed {figures['faults']['web']}, "
        f"RQ worker restarts {figures['faults']['rq']}, Redis restarts {figures['faults']['redis']})"
    )
    print(
        f"moves lost: {figures['moves_lost']}  duplicates: {figures['duplicates']}  "
        f"broken chains: {figures['chain_broken']}"
    )
    print(
        f"games' ends told: {figures['finished'] - figures['ends_pending'] - figures['ends_untold']}  "
        f"pending (marked, for the workers): {figures['ends_pending']}  untold: {figures['ends_untold']}"
    )
    print(
        f"turns left to the deadline worker: {figures['stalls']}  "
        f"deadlines enforced: {figures['deadlines_enforced']}  deadlines missed: {figures['deadlines_missed']}  "
        f"max lateness: {figures['lateness_max']} s (tolerance {args.tolerance} s)  "
        f"moves stored after their seat's deadline: {figures['moves_after_deadline']}"
    )
    if LATE:
        late = sorted(x for x, _ in LATE)
        worst, at = max(LATE)
        print(
            f"deadline lateness: p50 {late[len(late) // 2]:.3f} s  p99 {late[int(len(late) * 0.99)]:.3f} s  "
            f"over 1 s: {sum(1 for x in late if x > 1.0)}  worst {worst:.3f} s{_after_fault(at)}"
        )
    for line in MISSES[:10]:
        print("  missed: " + line)


if __name__ == "__main__":
    main()
