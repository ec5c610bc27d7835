"""``python -m workers``: one RQ worker with its scheduler, on every queue naipes uses."""

from __future__ import annotations

import logging
import os

import redis
from rq import Queue, SimpleWorker

from .queues import QUEUES


def run() -> None:
    logging.basicConfig(level=os.environ.get("NAIPES_LOG_LEVEL", "WARNING").upper())
    client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    from .queues import recover_scheduler_lock

    recover_scheduler_lock(client)
    queues = [Queue(name, connection=client) for name in QUEUES]
    SimpleWorker(queues, connection=client).work(with_scheduler=True,
                                                 logging_level=os.environ.get("NAIPES_LOG_LEVEL", "WARNING"))


if __name__ == "__main__":
    run()
