"""Turn deadlines: an RQ job at the deadline of every seat that must act.

After each append the application calls :func:`schedule`: every seat with a
running clock gets a job at its deadline, with the id
``deadline-<ms>-<game>-<version>-<seat>``, unique to (game, version, seat); the
jobs of the previous version are removed.  A job that fires for a version
the game has left meets a version conflict and does nothing.

Every pending deadline is also listed in ``naipes:deadlines`` (a sorted set
beside RQ's own keys: job id -> deadline), written in the same pipeline as
the job and removed when the job has run or the game has moved on.  RQ can
lose a job that a worker had taken off the queue when Redis or the worker
died (it sits in RQ's intermediate queue, and RQ's clean-up files it as
failed a minute later); the scheduler process sweeps the set
(:func:`sweep_deadlines`) and enqueues again any deadline left overdue, so
no deadline depends on one job's delivery.

A move's append and its deadline jobs are two writes (two Redis, at times).
The append of a timed game also marks the game in ``naipes:games:due`` at
the time of the append (same round trip); :func:`schedule` then moves the
mark to the game's earliest deadline, after writing the jobs.  The workers'
reconcile pass (:func:`reconcile`) reads the marks due by now: a mark left
at an append's time is a move whose deadlines were never scheduled, and a
deadline overdue is looked at once more.  It never reads every running game.

A bot's turn is a deadline due at once (``domain.table``): its job is queued
at once on the bots' queue.  The start command runs a worker for the timers'
and default queues and another for the bots' queue, so a bot's thinking never
holds up a deadline; a worker started on every queue takes the bots' last.
Its entry in ``naipes:deadlines`` makes the sweep queue it again if it is lost.

An append moves for absent seats at most ``Appender.MAX_AUTO_MOVES`` times;
when the game owes more, :func:`schedule` queues a continuation job at once
(:func:`enqueue_continuation`), behind the deadline jobs already due, so a
game whose seats are all absent plays on without holding up other games.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from domain import table as tables
from service.core.appending import Appender
from service.core.listing import DUE
from service.core.naipes import Naipes

TIMERS = "naipes-timers"
DEFAULT = "naipes-default"
BOTS = "naipes-bots"  # bots' turns: the start command runs a worker of their own for them
QUEUES = [TIMERS, DEFAULT, BOTS]  # in the order a worker of every queue takes them
DEADLINES = "naipes:deadlines"
SWEEP_GRACE = 2.0  # seconds past its deadline before a deadline counts as lost
SWEEP_AGAIN = 5  # seconds before the same lost deadline is enqueued again
FORGET_AFTER = 3600.0  # seconds past its deadline after which an entry is dropped


def job_id(game_id: str, version: int, seat: int | str, deadline: float) -> str:
    """Unique to (game, version, seat); it starts with the deadline's milliseconds
    so that jobs due in the same second (RQ schedules in whole seconds) run in
    the order of their deadlines."""
    return f"deadline-{int(deadline * 1000) % 1000:03d}-{game_id}-{version}-{seat}"


def deadline_jobs(game_id: str, table: dict) -> list[tuple[int, float, str]]:
    """(seat, deadline, job id) of every running clock of a table."""
    return [
        (int(seat), entry["deadline"], job_id(game_id, table["version"], seat, entry["deadline"]))
        for seat, entry in (table.get("clock") or {}).items()
        if entry.get("deadline") is not None
    ]


def enqueue_deadline(
    queue: Queue,
    game_id: str,
    version: int,
    seat: int,
    deadline: float,
    job: str,
    *,
    at: float | None = None,
    pipeline=None,
) -> None:
    """The job that enforces one deadline: scheduled ``at`` a time, or queued now when ``at`` is None."""
    args = ("workers.jobs.enforce_deadline", game_id, version, seat, deadline)
    kwargs = {"job_id": job, "result_ttl": 60, "failure_ttl": 24 * 3600, "pipeline": pipeline}
    if at is None:
        queue.enqueue(*args, **kwargs)
    else:
        queue.enqueue_at(datetime.fromtimestamp(at, UTC), *args, **kwargs)


def enqueue_continuation(queue: Queue, game_id: str, version: int) -> None:
    """The job that goes on moving for a game's absent seats where an append
    stopped at its cap (:meth:`Deadlines.continue_absent`), queued now behind
    the jobs already due; its id is unique to (game, version)."""
    queue.enqueue(
        "workers.jobs.continue_absent",
        game_id,
        version,
        job_id=f"absent-{game_id}-{version}",
        result_ttl=60,
        failure_ttl=24 * 3600,
    )


def parse_job_id(job: str) -> tuple[str, int, int] | None:
    """(game id, version, seat) of a deadline job id, or None."""
    if not job.startswith("deadline-"):
        return None
    try:
        game_id, version, seat = job[13:].rsplit("-", 2)
        return game_id, int(version), int(seat)
    except ValueError:
        return None


def sweep_deadlines(connection, now: float) -> list[str]:
    """Enqueue again the deadlines more than SWEEP_GRACE seconds overdue
    whose job has not run (see the module's doc); returns their job ids.
    A deadline enforced twice appends nothing the second time."""
    connection.zremrangebyscore(DEADLINES, 0, now - FORGET_AFTER)
    overdue = connection.zrangebyscore(
        DEADLINES, now - FORGET_AFTER, now - SWEEP_GRACE, start=0, num=500, withscores=True
    )
    queue = Queue(TIMERS, connection=connection)
    again = []
    for raw, deadline in overdue:
        job = raw.decode()
        parsed = parse_job_id(job)
        if parsed is None:
            connection.zrem(DEADLINES, job)
            continue
        if not connection.set(f"{DEADLINES}:swept:{job}", "1", nx=True, ex=SWEEP_AGAIN):
            continue  # enqueued again a moment ago
        game_id, version, seat = parsed
        enqueue_deadline(queue, game_id, version, seat, deadline, f"{job}-swept-{int(now)}")
        again.append(job)
    return again


RECONCILE_BATCH = 500  # games one reconcile pass looks at (the most overdue first)
RECHECK_SECONDS = 5.0  # an overdue game whose deadline jobs are pending is looked at again this much later

# KEYS: DUE; ARGV: game id, the score read, the new score ('' = remove).  Only if the score is still the
# one read: a mark an append wrote meanwhile stays.
_SETTLE_DUE = """
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current or tonumber(current) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


def reconcile(service: Naipes, now: float | None = None) -> list[str]:
    """Schedule again the deadlines of running timed games that have none
    pending: a move's append and its deadline jobs are two writes, and
    Redis failing between them (or a web worker killed there) leaves the
    move stored and its deadlines unscheduled.  Returns the games re-armed.
    Workers run this every few seconds (one at a time).

    The games come from ``naipes:games:due``, ordered by when each is due a
    look: the append of a timed game marks it there at the time of the
    append (in the append's round trip), and scheduling its deadlines moves
    the mark to the earliest of them.  So a pass reads only the marks due by
    now, at most RECONCILE_BATCH: moves whose deadlines were never scheduled,
    and deadlines overdue; never every running game."""
    if service.scheduler is None:
        return []
    from service.core.errors import ProblemError

    now = time.time() if now is None else now
    settle = service.redis.register_script(_SETTLE_DUE)
    fixed = []
    for raw, score in service.redis.zrangebyscore(DUE, "-inf", now, start=0, num=RECONCILE_BATCH, withscores=True):
        game_id = raw.decode()
        try:
            table = service.tables.table(game_id, fresh=True)
        except ProblemError:
            settle(keys=[DUE], args=[game_id, repr(score), ""])
            continue
        deadlines = [d for _seat, d, _job in deadline_jobs(game_id, table)]
        if tables.outcome(table) is not None or not deadlines:  # over, or frozen: no clock runs
            settle(keys=[DUE], args=[game_id, repr(score), ""])
            continue
        jobs = [job for _seat, _deadline, job in deadline_jobs(game_id, table)]
        pipe = service.queue_redis.pipeline(transaction=False)
        for job in jobs:
            pipe.zscore(DEADLINES, job)
        if any(found is None for found in pipe.execute()):
            service.scheduler({}, table, game_id)  # marks the game at its earliest deadline
            fixed.append(game_id)
            score = min(deadlines)
        # looked at: next at its earliest deadline, or (that one overdue, its job pending) a little later
        settle(keys=[DUE], args=[game_id, repr(score), repr(max(min(deadlines), now + RECHECK_SECONDS))])
    return fixed


def due_at(job: str, score: float) -> float:
    """When a scheduled job is due: RQ's registry ``score`` is the whole
    second; a deadline job's id adds the milliseconds (see :func:`job_id`)."""
    if job.startswith("deadline-") and job[9:12].isdigit():
        return int(score) + int(job[9:12]) / 1000
    return score


def attach_scheduler(service: Naipes) -> None:
    queue = Queue(TIMERS, connection=service.queue_redis)
    bot_queue = Queue(BOTS, connection=service.queue_redis)  # a worker takes the timers' queue first
    registry = ScheduledJobRegistry(queue=queue)

    def schedule(old: dict, new: dict, game_id: str) -> None:
        if Appender.owes_absent_moves(new):
            enqueue_continuation(queue, game_id, new["version"])
        old_clock = old.get("clock") or {}
        new_clock = new.get("clock") or {}
        if not old_clock and not new_clock:
            return
        pipe = service.queue_redis.pipeline(transaction=False)
        for _seat, _deadline, stale in deadline_jobs(game_id, old) if old_clock else ():
            pipe.zrem(registry.key, stale)
            pipe.zrem(DEADLINES, stale)
            pipe.delete(Job.key_for(stale))
        deadlines, bot_turns = [], []
        for seat, deadline, job in deadline_jobs(game_id, new):
            if tables.bot(new, seat) is not None:  # a bot's turn: queued now (below), behind the deadlines due
                bot_turns.append((seat, deadline, job))
            else:
                enqueue_deadline(queue, game_id, new["version"], seat, deadline, job, at=deadline, pipeline=pipe)
            pipe.zadd(DEADLINES, {job: deadline})
            deadlines.append(deadline)
        # the game's mark in DUE (written by its append) moves to its earliest deadline, after the jobs:
        # in the same round trip when the games and the queues share one Redis
        due = pipe if service.queue_redis is service.redis else service.redis.pipeline(transaction=False)
        if deadlines:
            due.zadd(DUE, {game_id: min(deadlines)})
        else:
            due.zrem(DUE, game_id)
        pipe.execute()
        if due is not pipe:
            due.execute()
        for seat, deadline, job in bot_turns:  # RQ queues a job at once in a pipeline of its own
            enqueue_deadline(bot_queue, game_id, new["version"], seat, deadline, job)

    service.scheduler = schedule
