"""``python -m workers``: one RQ worker with its scheduler, on every queue naipes uses.

``python -m workers timers`` serves the timers' and the default queues only, ``python -m workers
bots`` the bots' queue only: the start command runs one of each, so that a bot's thinking never
holds up a deadline (``NAIPES_WORKER_QUEUES`` names the queues too, comma-separated)."""

from __future__ import annotations

import logging
import os
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


def run() -> None:
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
