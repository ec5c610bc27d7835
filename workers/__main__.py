"""``python -m workers``: one RQ worker with its scheduler, on every queue naipes uses."""

from __future__ import annotations

import logging
import os
import time

import redis
from rq import Queue
from rq.exceptions import StopRequested

from events.connect import connect, queue_url

from .queues import QUEUES, NaipesWorker, recover_scheduler_lock

log = logging.getLogger("naipes.worker")


def run() -> None:
    level = os.environ.get("NAIPES_LOG_LEVEL", "WARNING").upper()
    from service.logs import configure

    configure(level)  # JSON lines
    client = connect(queue_url())  # RQ's Redis; the jobs reach the games through REDIS_URL
    recover_scheduler_lock(client)
    from .jobs import service

    queues = [Queue(name, connection=client) for name in QUEUES]
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
