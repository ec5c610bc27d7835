"""The jobs RQ runs.  Each one calls the same application code as the routes."""

from __future__ import annotations

import time

import redis

from service.core.naipes import Naipes

_service: Naipes | None = None
REDIS_PATIENCE = 30.0  # seconds a deadline job keeps trying while Redis is away


def service() -> Naipes:
    """One application object per worker process, over the worker's Redis."""
    global _service
    if _service is None:
        from service import bootstrap

        _service = bootstrap.build("worker")
    return _service


def enforce_deadline(game_id: str, version: int, seat: int, deadline: float) -> bool:
    """Time the seat out if the game still stands at ``version``.

    The scheduler hands the job out just before its deadline
    (``DeadlineRegistry``) and the job waits for it; one that arrives more
    than a second early (another scheduler's clock, say) is scheduled again
    at its deadline: a seat is never timed out before its time.
    """
    early = deadline - time.time()
    if early > 1.0:
        from rq import Queue

        from service.core.timers import TIMERS, enqueue_deadline, job_id

        enqueue_deadline(
            Queue(TIMERS, connection=service().queue_redis),
            game_id,
            version,
            seat,
            deadline,
            job_id(game_id, version, seat, deadline) + "-again",
            at=deadline,
        )
        return False
    if early > 0:
        time.sleep(early)
    from service.core.timers import DEADLINES, job_id
    from service.logs import game_context

    give_up = time.monotonic() + REDIS_PATIENCE
    with game_context(game_id, version):
        while True:
            try:
                done = service().deadlines.enforce_deadline(game_id, version, seat)
                service().queue_redis.zrem(DEADLINES, job_id(game_id, version, seat, deadline))  # not lost
                return done
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                # Redis restarting (or loading its file): a deadline job that failed now would be lost
                # to RQ's failed registry; enforcing twice is harmless (the version decides)
                if time.monotonic() > give_up:
                    raise
                time.sleep(0.2)


def continue_absent(game_id: str, version: int) -> bool:
    """Go on moving for the absent seats of a game still at ``version``: an
    append moves for them at most ``Appender.MAX_AUTO_MOVES`` times, and this
    job, queued behind the deadlines already due, makes the next append."""
    from service.logs import game_context

    with game_context(game_id, version):
        return service().deadlines.continue_absent(game_id, version)


def advance_tournament(tournament_id: str) -> dict:
    """Record finished tables, pair the next round, create its games (idempotent)."""
    from service.core.tournaments import attach_tournaments

    return attach_tournaments(service()).run_job(tournament_id)


def deliver_webhook(webhook_id: str, delivery: str, event_type: str, body: str) -> dict:
    """One signed POST of an event; raises on failure so that RQ retries with backoff."""
    from service.core.tournaments import attach_tournaments

    return attach_tournaments(service()).webhooks.deliver(webhook_id, delivery, event_type, body)
