"""The jobs RQ runs.  Each one calls the same application code as the routes."""

from __future__ import annotations

import os
import time

import redis

from service.application import Naipes

_service: Naipes | None = None


def service() -> Naipes:
    """One application object per worker process, over the worker's Redis."""
    global _service
    if _service is None:
        from service.timers import attach_scheduler

        client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
        keys = [k for k in os.environ.get("NAIPES_API_KEYS", "").split(",") if k]
        _service = Naipes(client, api_keys=keys, cache_size=256)
        attach_scheduler(_service)
    return _service


def enforce_deadline(game_id: str, version: int, seat: int, deadline: float) -> bool:
    """Time the seat out if the game still stands at ``version``.

    RQ's scheduler works in whole seconds, so a job may arrive up to a
    second early: it then waits for the real deadline.
    """
    early = deadline - time.time()
    if early > 0:
        time.sleep(min(early, 2.0))
    return service().enforce_deadline(game_id, version, seat)
