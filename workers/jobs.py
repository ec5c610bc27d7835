"""The jobs RQ runs.  Each one calls the same application code as the routes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import redis

from service.core.naipes import Naipes

_service: Naipes | None = None
T = TypeVar("T")
REDIS_PATIENCE = 30.0  # seconds a deadline job keeps trying while Redis is away


def service() -> Naipes:
    """One application object per worker process, over the worker's Redis."""
    global _service
    if _service is None:
        from service import bootstrap

        _service = bootstrap.build("worker")
    return _service


def _patiently(game_id: str | None, version: int | None, work: Callable[[], T]) -> T:
    """Run ``work`` until it ends, trying again while Redis restarts (or loads its file): a
    deadline job that failed then would be lost to RQ's failed registry; enforcing twice is
    harmless (the version decides)."""
    from service.logs import game_context

    give_up = time.monotonic() + REDIS_PATIENCE
    with game_context(game_id, version):
        while True:
            try:
                return work()
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                if time.monotonic() > give_up:
                    raise
                time.sleep(0.2)


def enforce_deadlines(entries: list[str]) -> int:
    """A batch of deadlines the scheduler claimed from the schedule (``naipes:deadlines``): each
    game's due seats timed out in one append, never before their time
    (:func:`service.core.timers.enforce_batch`).  Returns the seats timed out."""
    from service.core.timers import enforce_batch

    return _patiently(None, None, lambda: enforce_batch(service(), entries))


def enforce_deadline(game_id: str, version: int, seat: int, deadline: float) -> bool:
    """One seat's deadline: a bot's turn (the bot moves), or a person's seat timed out if the
    game still stands at ``version``.

    A call that comes more than a second early (another host's clock, say) puts the deadline
    back in the schedule: a seat is never timed out before its time.
    """
    from service.core.timers import DEADLINES, EARLY_LIMIT, entry_id, forget

    early = deadline - time.time()
    if early > EARLY_LIMIT:
        service().queue_redis.zadd(DEADLINES, {entry_id(game_id, version, seat, deadline): deadline})
        return False
    if early > 0:
        time.sleep(early)

    def enforce() -> bool:
        done = service().deadlines.enforce_deadline(game_id, version, seat)
        forget(service(), game_id, version, seat, deadline)  # done: not handed out again
        return done

    return _patiently(game_id, version, enforce)


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
