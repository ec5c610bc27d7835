"""``python -m workers``: one RQ worker with its scheduler, on every queue naipes uses."""

from __future__ import annotations

import logging
import os

import redis
from rq import Queue

from .queues import QUEUES, NaipesWorker, recover_scheduler_lock


def run() -> None:
    level = os.environ.get("NAIPES_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(level=level)
    client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    recover_scheduler_lock(client)
    queues = [Queue(name, connection=client) for name in QUEUES]
    NaipesWorker(queues, connection=client).work(with_scheduler=True, logging_level=level)


if __name__ == "__main__":
    run()
