"""``python -m workers``: one RQ worker with its scheduler, on every queue naipes uses.

``python -m workers timers`` serves the timers' and the default queues only, ``python -m workers
bots`` the bots' queue only: the start command runs one of each, so that a bot's thinking never
holds up a deadline (``NAIPES_WORKER_QUEUES`` names the queues too, comma-separated).

Enforcing deadlines is CPU work (each timeout is decided, sealed and folded), so the timers' role
runs ``NAIPES_TIMER_WORKERS`` worker processes (default 2: one per core of a small machine); they
share the batches of deadlines the scheduler queues.  The extra ones are children of the first:
stopping it (SIGTERM, SIGINT) stops them, and they stop should it die."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time

import redis
from rq import Queue
from rq.exceptions import StopRequested

from events.connect import connect, queue_url
from service.core.timers import BOTS, DEFAULT, QUEUES, TIMERS

from .queues import NaipesWorker, recover_scheduler_lock

log = logging.getLogger("naipes.worker")


ROLES = {"timers": [TIMERS, DEFAULT], "bots": [BOTS], "all": QUEUES}
TIMER_WORKERS = "NAIPES_TIMER_WORKERS"  # worker processes of the timers' role (default 2)


def served(args: list[str]) -> list[str]:
    """The queues this worker serves: a role (``timers``, ``bots``, ``all``) or NAIPES_WORKER_QUEUES."""
    if args:
        if args[0] not in ROLES:
            raise SystemExit(f"python -m workers [{'|'.join(ROLES)}]: no role {args[0]!r}")
        return ROLES[args[0]]
    named = [q.strip() for q in os.environ.get("NAIPES_WORKER_QUEUES", "").split(",") if q.strip()]
    unknown = [q for q in named if q not in QUEUES]
    if unknown:
        raise SystemExit(f"NAIPES_WORKER_QUEUES: no queue {unknown[0]!r} (queues: {', '.join(QUEUES)})")
    return named or QUEUES


def processes(args: list[str]) -> int:
    """How many worker processes this command runs: NAIPES_TIMER_WORKERS for the timers' role, else one."""
    if args[:1] != ["timers"]:
        return 1
    raw = os.environ.get(TIMER_WORKERS, "2")
    if not raw.isdigit() or int(raw) < 1:
        raise SystemExit(f"{TIMER_WORKERS}: a number of worker processes, 1 or more (not {raw!r})")
    return int(raw)


def _die_with_parent() -> None:
    """In a child worker: SIGTERM when the first worker dies (Linux), so that none is left behind."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def start_children(count: int) -> list[subprocess.Popen]:
    env = {**os.environ, TIMER_WORKERS: "1"}
    return [
        subprocess.Popen([sys.executable, "-m", "workers", *sys.argv[1:]], env=env, preexec_fn=_die_with_parent)
        for _ in range(count - 1)
    ]


def stop_children(children: list[subprocess.Popen]) -> None:
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def run() -> None:
    children = start_children(processes(sys.argv[1:]))
    try:
        run_worker()
    finally:
        stop_children(children)


def run_worker() -> None:
    level = os.environ.get("NAIPES_LOG_LEVEL", "WARNING").upper()
    from service.logs import configure

    configure(level)  # JSON lines
    client = connect(queue_url())  # RQ's Redis; the jobs reach the games through REDIS_URL
    recover_scheduler_lock(client)
    from .jobs import service

    queues = [Queue(name, connection=client) for name in served(sys.argv[1:])]
    while True:
        worker = None
        try:
            # deadlines whose jobs were lost (with the queues' Redis, or with a worker killed mid-job)
            # are scheduled again
            service().deadlines.rearm_deadlines()
            worker = NaipesWorker(queues, connection=client)
            worker.work(with_scheduler=True, logging_level=level)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            # RQ's worker quits when Redis fails under a job; this process starts it again
            log.warning("Redis unreachable (%s)", exc)
        except StopRequested:
            return
        if worker is not None and (worker._stop_requested or worker._shutdown_requested_date is not None):
            return  # a shutdown was asked for (SIGTERM, SIGINT), whatever Redis did meanwhile
        log.warning("the worker stopped on an error; starting it again in a second")
        try:
            time.sleep(1.0)
        except StopRequested:  # a signal to the worker just ended
            return


if __name__ == "__main__":
    run()
