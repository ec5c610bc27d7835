"""The jobs RQ runs.  Each one calls the same application code as the routes."""

from __future__ import annotations

import os
import time

from events.connect import connect, data_url, queue_url
from service.application import Naipes

_service: Naipes | None = None


def service() -> Naipes:
    """One application object per worker process, over the worker's Redis."""
    global _service
    if _service is None:
        from service.timers import attach_scheduler

        keys = [k for k in os.environ.get("NAIPES_API_KEYS", "").split(",") if k]
        _service = Naipes(connect(data_url()), api_keys=keys, cache_size=256, queue_client=connect(queue_url()))
        attach_scheduler(_service)
        from service.metrics import timeout_fired

        _service.on_timeout.append(timeout_fired)
        from service.tournaments import attach_tournaments

        attach_tournaments(_service)
    return _service


def enforce_deadline(game_id: str, version: int, seat: int, deadline: float) -> bool:
    """Time the seat out if the game still stands at ``version``.

    RQ's scheduler works in whole seconds, so a job may arrive up to a
    second early: it then waits for the real deadline.
    """
    early = deadline - time.time()
    if early > 0:
        time.sleep(min(early, 2.0))
    from service.logs import game_context

    with game_context(game_id, version):
        return service().enforce_deadline(game_id, version, seat)


def advance_tournament(tournament_id: str) -> dict:
    """Record finished tables, pair the next round, create its games (idempotent)."""
    from service.tournaments import attach_tournaments

    return attach_tournaments(service()).run_job(tournament_id)


def deliver_webhook(webhook_id: str, delivery: str, event_type: str, body: str) -> dict:
    """One signed POST of an event; raises on failure so that RQ retries with backoff."""
    from service.tournaments import attach_tournaments

    return attach_tournaments(service()).webhooks.deliver(webhook_id, delivery, event_type, body)
