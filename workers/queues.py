"""The queues naipes uses."""

from __future__ import annotations

import redis

TIMERS = "naipes-timers"
DEFAULT = "naipes-default"
QUEUES = [TIMERS, DEFAULT]


def recover_scheduler_lock(client: redis.Redis) -> None:
    """Placeholder until timed turns land: nothing to recover."""
