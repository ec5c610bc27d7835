"""``python -m workers``: one RQ worker with its scheduler, on every queue naipes uses."""

from __future__ import annotations

import os

from rq import Queue

from events.connect import connect, queue_url

from .queues import QUEUES, NaipesWorker, recover_scheduler_lock


def run() -> None:
    level = os.environ.get("NAIPES_LOG_LEVEL", "WARNING").upper()
    from service.logs import configure

    configure(level)  # JSON lines
    client = connect(queue_url())  # RQ's Redis; the jobs reach the games through REDIS_URL
    recover_scheduler_lock(client)
    from .jobs import service

    service().rearm_deadlines()  # deadlines lost with the queues' Redis are scheduled again
    queues = [Queue(name, connection=client) for name in QUEUES]
    NaipesWorker(queues, connection=client).work(with_scheduler=True, logging_level=level)


if __name__ == "__main__":
    run()
