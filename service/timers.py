"""Turn deadlines: an RQ job at the deadline of every seat that must act.

After each append the application calls :func:`schedule`: every seat with a
running clock gets a job at its deadline, with the id
``deadline-<ms>-<game>-<version>-<seat>``, unique to (game, version, seat); the
jobs of the previous version are removed.  A job that fires for a version
the game has left meets a version conflict and does nothing.
"""

from __future__ import annotations

from datetime import datetime, timezone

from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from .application import Naipes

TIMERS = "naipes-timers"
DEFAULT = "naipes-default"
QUEUES = [TIMERS, DEFAULT]


def job_id(game_id: str, version: int, seat: int | str, deadline: float) -> str:
    """Unique to (game, version, seat); it starts with the deadline's milliseconds
    so that jobs due in the same second (RQ schedules in whole seconds) run in
    the order of their deadlines."""
    return f"deadline-{int(deadline * 1000) % 1000:03d}-{game_id}-{version}-{seat}"


def due_at(job: str, score: float) -> float:
    """When a scheduled job is due: RQ's registry ``score`` is the whole
    second; a deadline job's id adds the milliseconds (see :func:`job_id`)."""
    if job.startswith("deadline-") and job[9:12].isdigit():
        return int(score) + int(job[9:12]) / 1000
    return score


def attach_scheduler(service: Naipes) -> None:
    queue = Queue(TIMERS, connection=service.queue_redis)
    registry = ScheduledJobRegistry(queue=queue)

    def schedule(old: dict, new: dict, game_id: str) -> None:
        old_clock = old.get("clock") or {}
        new_clock = new.get("clock") or {}
        if not old_clock and not new_clock:
            return
        pipe = service.queue_redis.pipeline(transaction=False)
        for seat, entry in old_clock.items():
            if entry.get("deadline") is None:
                continue
            stale = job_id(game_id, old["version"], seat, entry["deadline"])
            pipe.zrem(registry.key, stale)
            pipe.delete(Job.key_for(stale))
        for seat, entry in new_clock.items():
            deadline = entry.get("deadline")
            if deadline is None:
                continue
            queue.enqueue_at(
                datetime.fromtimestamp(deadline, timezone.utc),
                "workers.jobs.enforce_deadline",
                game_id, new["version"], int(seat), deadline,
                job_id=job_id(game_id, new["version"], seat, deadline),
                result_ttl=60, failure_ttl=24 * 3600, pipeline=pipe,
            )
        pipe.execute()

    service.scheduler = schedule
