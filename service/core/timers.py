"""Turn deadlines: one schedule in Redis, claimed in batches and enforced many to a job.

**The schedule** is the sorted set ``naipes:deadlines`` on RQ's Redis: an entry for every seat
with a running clock, ``d:<deadline ms>:<game>:<version>:<seat>`` (:func:`entry_id`), scored at
its deadline.  An entry names the version its deadline was set at: enforced at any other version
it does nothing, so a stale or repeated entry is harmless.

**Writing it.**  A game's append writes the entries of its new version and drops those of the
version it leaves.  When the games and the queues share one Redis this happens in the append's
own round trip (:meth:`DeadlineScheduler.in_append`, a script behind the append's in the same
pipeline): it adds only if the append made the game's head (or is still to come: the store runs
its script again when Redis had not loaded it), and drops only once the game has left the old
version, so a refused or raced append writes nothing wrong.  No entry can make a deadline early
anyway: the table's clock decides when a seat is timed out.  With a queues' Redis of
their own (games on a Redis Cluster) it is a second call after the append
(:meth:`DeadlineScheduler.after_append`).  Either way the append of a timed game marks the game
in ``naipes:games:due`` at the time of the append (same round trip), and writing the entries moves
the mark to the game's earliest entry.  The workers' reconcile pass (:func:`reconcile`) reads the
marks due by now: a mark left at an append's time is a move whose deadlines were never written
(a web worker killed between the two calls, Redis failing between them).  It never reads every
running game.

**Enforcing it.**  The scheduler of the worker holding the timers' queue polls every 0.1 s
(:class:`Dispatcher`): one script moves up to CLAIM entries due within LEAD_SECONDS to
``naipes:deadlines:inflight``, scored at the end of a lease, and the scheduler queues ONE job per
batch of up to BATCH entries (a game's entries together) on the timers' queue.  The job
(:func:`enforce_batch`) reads the batch's tables in one round trip, waits for each game's
deadline (a deadline is never enforced before its time), and times out every seat of the game
that is due in one append (:meth:`service.core.deadlines.Deadlines.enforce_due`), BATCH_THREADS
games at a time (one's round trip overlaps another's folding); then it clears its entries from
the in-flight set.  Enforcing is CPU work (each timeout is decided, sealed and folded): the
timers' role runs two worker processes by default (``workers.__main__``), which share the jobs.

A lease that runs out (the worker died mid-batch, or RQ lost the job with a worker killed or
Redis restarting) puts its entries in the next claim, and a worker that starts writes every
running game's entries again (:meth:`~service.core.deadlines.Deadlines.rearm_deadlines`).
Claims wait while WAITING_BATCHES batches are queued, so a burst waits in the schedule rather
than in leases running out in the queue.  An entry FORGET_AFTER seconds overdue is dropped.

**Bots.**  A bot's turn is due at once (``domain.table``): after the append its job is queued at
once on the bots' queue, which the start command gives a worker of its own, so a bot's thinking
never holds up a deadline.  Its entry (``b:...``) is scored BOT_GRACE seconds later, so that the
scheduler hands the turn out again (on the bots' queue) only if it was lost.

**Continuations.**  An append moves for absent seats at most ``Appender.MAX_AUTO_MOVES`` times;
when the game owes more, a continuation job is queued at once (:func:`enqueue_continuation`)
behind the batches already queued, so a game whose seats are all absent plays on without
holding up other games.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import redis
from redis.cluster import RedisCluster
from rq import Queue

from domain import table as tables
from events.store import key
from service.core.appending import Appender
from service.core.listing import DUE
from service.core.naipes import Naipes

log = logging.getLogger("naipes.timers")

TIMERS = "naipes-timers"
DEFAULT = "naipes-default"
BOTS = "naipes-bots"  # bots' turns: the start command runs a worker of their own for them
QUEUES = [TIMERS, DEFAULT, BOTS]  # in the order a worker of every queue takes them
DEADLINES = "naipes:deadlines"  # the schedule: entry -> deadline (a bot's turn: deadline + BOT_GRACE)
INFLIGHT = "naipes:deadlines:inflight"  # entries handed to a worker: entry -> end of the lease

LEAD_SECONDS = 0.1  # how long before its deadline an entry is claimed (its job waits for the deadline)
BATCH = 200  # entries of one job
CLAIM = 2 * BATCH  # entries one claim takes at most
WAITING_BATCHES = 2  # claims wait while this many jobs wait in the timers' queue
LEASE_SECONDS = 5.0  # a batch not done this long after its claim is claimed again
BOT_GRACE = 30.0  # a bot's turn not played this long after it came is handed out again
BOT_LEASE_SECONDS = 30.0  # the lease of a bot's turn handed out again (a bot thinks for seconds)
BATCH_THREADS = 4  # games of a batch enforced at once
EARLY_LIMIT = 1.0  # an entry handed out more than this early (another host's clock) goes back to the schedule
FORGET_AFTER = 3600.0  # seconds past its deadline after which an entry is dropped


# ------------------------------------------------------------------ entries


def entry_id(game_id: str, version: int, seat: int | str, deadline: float, *, bot: bool = False) -> str:
    """The schedule's entry of one deadline: unique to (game, version, seat); it carries the
    deadline (milliseconds), so a lease that runs out knows when it was due."""
    return f"{'b' if bot else 'd'}:{round(deadline * 1000)}:{game_id}:{version}:{seat}"


def parse_entry(entry: str | bytes) -> tuple[bool, str, int, int, float] | None:
    """(bot, game id, version, seat, deadline) of an entry, or None."""
    if isinstance(entry, bytes):
        entry = entry.decode()
    try:
        kind, ms, game_id, version, seat = entry.split(":")
        if kind not in ("d", "b"):
            return None
        return kind == "b", game_id, int(version), int(seat), int(ms) / 1000
    except ValueError:
        return None


def score(entry: str, deadline: float) -> float:
    """When the scheduler hands an entry out: at its deadline; a bot's turn (queued at once on the
    bots' queue) BOT_GRACE later, should it have been lost."""
    return deadline + BOT_GRACE if entry.startswith("b:") else deadline


def deadline_jobs(game_id: str, table: dict) -> list[tuple[int, float, str]]:
    """(seat, deadline, entry) of every running clock of a table."""
    if not table:
        return []
    return [
        (
            int(seat),
            clock["deadline"],
            entry_id(game_id, table["version"], seat, clock["deadline"], bot=tables.bot(table, seat) is not None),
        )
        for seat, clock in (table.get("clock") or {}).items()
        if clock.get("deadline") is not None
    ]


def bot_job_id(game_id: str, version: int, seat: int, again: str = "") -> str:
    return f"bot-{game_id}-{version}-{seat}{again}"


def enqueue_bot_turn(queue: Queue, game_id: str, version: int, seat: int, deadline: float, job: str) -> None:
    """The job in which a bot makes its move (``workers.jobs.enforce_deadline``), queued now."""
    queue.enqueue(
        "workers.jobs.enforce_deadline",
        game_id,
        version,
        seat,
        deadline,
        job_id=job,
        result_ttl=60,
        failure_ttl=24 * 3600,
    )


def enqueue_continuation(queue: Queue, game_id: str, version: int) -> None:
    """The job that goes on moving for a game's absent seats where an append stopped at its cap
    (:meth:`Deadlines.continue_absent`), queued now behind the jobs already queued; its id is
    unique to (game, version)."""
    queue.enqueue(
        "workers.jobs.continue_absent",
        game_id,
        version,
        job_id=f"absent-{game_id}-{version}",
        result_ttl=60,
        failure_ttl=24 * 3600,
    )


# ------------------------------------------------------------------ writing the schedule

# In the append's pipeline, after the append's script.  Drops the entries of the version left once the game
# has left it; adds the new version's when the append made the head, or when the game is still at the version
# left: the append comes next (a Redis that had forgotten the scripts runs the append's again, then this one:
# EventStore.beside).
# An entry of an append that never happened is harmless: the table's clock decides, and no deadline is early.
# KEYS: the game's head, DEADLINES, INFLIGHT, DUE
# ARGV: game id, the version the append leaves, the new head hash, DUE score ('' = none),
#       k, the k entries of the version left, then score, entry pairs of the new version
_IN_APPEND = """
local head = redis.call('HMGET', KEYS[1], 'version', 'hash')
local version = head[1] or '0'
local k = tonumber(ARGV[5])
if k > 0 and version ~= ARGV[2] then
  for i = 6, 5 + k do
    redis.call('ZREM', KEYS[2], ARGV[i])
    redis.call('ZREM', KEYS[3], ARGV[i])
  end
end
if head[2] ~= ARGV[3] and version ~= ARGV[2] then return 0 end
for i = 6 + k, #ARGV, 2 do redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i + 1]) end
if ARGV[4] == '' then redis.call('ZREM', KEYS[4], ARGV[1]) else redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1]) end
return 1
"""


class DeadlineScheduler:
    """``service.scheduler``: what an append writes of a game's deadlines, and when.

    Called as ``scheduler(old, new, game_id)`` it writes the entries of ``new`` (and drops those of
    ``old``) in a call of its own: the reconcile pass and the re-arming at a worker's start do.
    """

    def __init__(self, service: Naipes):
        self.service = service
        self.queue = Queue(TIMERS, connection=service.queue_redis)
        self.bot_queue = Queue(BOTS, connection=service.queue_redis)
        # the schedule is written in the append's round trip when it lives in the games' Redis
        self.shared = service.queue_redis is service.redis and not isinstance(service.redis, RedisCluster)
        self._in_append = service.store.beside(_IN_APPEND) if self.shared else None

    def in_append(self, game_id: str, old: dict, new: dict) -> Callable[[Any], None] | None:
        """The writes the append of ``new`` carries in its own round trip (None: nothing to write,
        or the queues have a Redis of their own and :meth:`after_append` writes)."""
        if not self.shared:
            return None
        stale = [entry for _seat, _deadline, entry in deadline_jobs(game_id, old)]
        fresh = [(score(entry, deadline), entry) for _seat, deadline, entry in deadline_jobs(game_id, new)]
        if not stale and not fresh:
            return None
        args: list[Any] = [
            game_id,
            old.get("version", 0),
            new["hash"],
            min(s for s, _ in fresh) if fresh else "",
            len(stale),
            *stale,
        ]
        for pair in fresh:
            args.extend(pair)
        # by its SHA1: a Redis that forgot it answers NoScriptError, and the store runs it after the append
        return lambda pipe: pipe.evalsha(self._in_append, 4, key(game_id, "head"), DEADLINES, INFLIGHT, DUE, *args)

    def after_append(self, old: dict, new: dict, game_id: str) -> None:
        """What follows a stored append: the schedule's writes when the append could not carry
        them, a bot's turn queued, a continuation queued."""
        if not self.shared:
            self.write(old, new, game_id)
        self.queue_now(new, game_id)

    def __call__(self, old: dict, new: dict, game_id: str) -> None:
        self.write(old, new, game_id)
        self.queue_now(new, game_id)

    def write(self, old: dict, new: dict, game_id: str) -> None:
        """Drop the entries of ``old``, add those of ``new``, then move the game's DUE mark to
        its earliest entry: one call to each Redis."""
        stale = [entry for _seat, _deadline, entry in deadline_jobs(game_id, old)]
        fresh = {entry: score(entry, deadline) for _seat, deadline, entry in deadline_jobs(game_id, new)}
        if not stale and not fresh:
            return
        service = self.service
        pipe = service.queue_redis.pipeline(transaction=False)
        if stale:
            pipe.zrem(DEADLINES, *stale)
            pipe.zrem(INFLIGHT, *stale)
        if fresh:
            pipe.zadd(DEADLINES, fresh)
        due = pipe if service.queue_redis is service.redis else service.redis.pipeline(transaction=False)
        if fresh:
            due.zadd(DUE, {game_id: min(fresh.values())})
        else:
            due.zrem(DUE, game_id)
        pipe.execute()
        if due is not pipe:
            due.execute()

    def queue_now(self, new: dict, game_id: str) -> None:
        """The jobs due at once: a continuation for absent seats, a bot's turn."""
        if Appender.owes_absent_moves(new):
            enqueue_continuation(self.queue, game_id, new["version"])
        for seat, deadline, entry in deadline_jobs(game_id, new):
            if entry.startswith("b:"):
                enqueue_bot_turn(
                    self.bot_queue, game_id, new["version"], seat, deadline, bot_job_id(game_id, new["version"], seat)
                )


def attach_scheduler(service: Naipes) -> None:
    service.scheduler = DeadlineScheduler(service)


# ------------------------------------------------------------------ handing it out

# KEYS: DEADLINES, INFLIGHT, the timers' queue (RQ's list)
# ARGV: now, claim horizon, lease end, a bot turn's lease end, most entries, most jobs waiting, forget before
# Returns how many leases ran out, then the entries claimed: those first, then those due, in deadline order.
_CLAIM = """
if redis.call('LLEN', KEYS[3]) >= tonumber(ARGV[6]) then return {0} end
local forget = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[7])
local n = tonumber(ARGV[5])
local out = {0}
local function lease(id)
  if string.sub(id, 1, 1) == 'b' then redis.call('ZADD', KEYS[2], ARGV[4], id)
  else redis.call('ZADD', KEYS[2], ARGV[3], id) end
  out[#out + 1] = id
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, n)) do
  local ms = tonumber(string.match(id, '^%a:(%d+):'))
  if ms == nil or ms / 1000 < forget then redis.call('ZREM', KEYS[2], id) else lease(id) end
end
out[1] = #out - 1
if #out <= n then
  -- up to n in all, and the rest of the last game's (its entries are neighbours), so no game is split
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, n + 1 - #out + 16)
  local take, last = {}, nil
  for _, id in ipairs(due) do
    local game = string.match(id, '^%a:%d+:([^:]+):')
    if #out > n and game ~= last then break end
    lease(id)
    take[#take + 1] = id
    last = game
  end
  for i = 1, #take, 200 do redis.call('ZREM', KEYS[1], unpack(take, i, math.min(i + 199, #take))) end
end
return out
"""


def batches(entries: list[str], size: int = BATCH) -> list[list[str]]:
    """Entries cut into jobs of at most ``size``, the entries of a game in one job."""
    by_game: dict[str, list[str]] = {}
    for entry in entries:
        parsed = parse_entry(entry)
        by_game.setdefault(parsed[1] if parsed else entry, []).append(entry)
    out: list[list[str]] = [[]]
    for group in by_game.values():
        if out[-1] and len(out[-1]) + len(group) > size:
            out.append([])
        out[-1].extend(group)
    return [b for b in out if b]


class Dispatcher:
    """The scheduler's part: claim the entries due and queue them, many to a job."""

    def __init__(self, connection):
        self.connection = connection
        self.claim = connection.register_script(_CLAIM)
        self.timers = Queue(TIMERS, connection=connection)
        self.bots = Queue(BOTS, connection=connection)

    def __call__(self, now: float | None = None) -> int:
        """Claim the entries due (and those whose lease ran out) and queue their jobs; returns how many."""
        now = time.time() if now is None else now
        ran_out, *claimed = self.claim(
            keys=[DEADLINES, INFLIGHT, self.timers.key],
            args=[
                now,
                now + LEAD_SECONDS,
                now + LEASE_SECONDS,
                now + BOT_LEASE_SECONDS,
                CLAIM,
                WAITING_BATCHES,
                now - FORGET_AFTER,
            ],
        )
        claimed = [raw.decode() for raw in claimed]
        if ran_out:
            log.warning("deadlines whose lease ran out, handed out again: %d", ran_out)
        if not claimed:
            return 0
        for batch in batches([e for e in claimed if not e.startswith("b:")]):
            self.timers.enqueue(
                "workers.jobs.enforce_deadlines",
                batch,
                description=f"enforce_deadlines({len(batch)} from {batch[0]})",
                result_ttl=0,
                failure_ttl=24 * 3600,
            )
        for entry in claimed:
            parsed = parse_entry(entry)
            if entry.startswith("b:") and parsed is not None:
                _bot, game_id, version, seat, deadline = parsed
                enqueue_bot_turn(
                    self.bots, game_id, version, seat, deadline, bot_job_id(game_id, version, seat, f"-{int(now)}")
                )
        return len(claimed)


# ------------------------------------------------------------------ enforcing a batch


def enforce_batch(service: Naipes, entries: list[str]) -> int:
    """Enforce a claimed batch of deadlines, a game at a time in deadline order, each game's due
    seats in one append; then clear the batch from the in-flight set.  Returns the seats timed
    out.  Enforcing an entry twice appends nothing the second time (the version decides)."""
    now = time.time()
    plan: dict[str, list[tuple[float, int, int, str]]] = {}
    done: list[str] = []
    later: dict[str, float] = {}
    for entry in entries:
        parsed = parse_entry(entry)
        if parsed is None or parsed[0]:  # a bot's turn is the bots' queue's
            done.append(entry)
            continue
        _bot, game_id, version, seat, deadline = parsed
        if deadline > now + EARLY_LIMIT:  # handed out early by another clock: back to the schedule
            later[entry] = deadline
            continue
        plan.setdefault(game_id, []).append((deadline, version, seat, entry))
    found = service.tables.current(list(plan), lambda g, v: v in {row[1] for row in plan[g]}) if plan else {}

    def enforce(game_id: str) -> tuple[int, list[str]]:
        rows = sorted(plan[game_id])
        while (wait := rows[0][0] + 0.001 - time.time()) > 0:  # never before its time
            time.sleep(wait)
        table = found.get(game_id)
        timed = 0
        if table is not None and table["version"] in {version for _d, version, _s, _e in rows}:
            try:
                timed = service.deadlines.enforce_due(game_id, table["version"], table=table)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                raise  # the job tries the batch again (workers.jobs)
            except Exception:  # one game's failure must not hold up the batch
                log.exception("could not enforce the deadlines of game %s", game_id)
                return 0, []  # its entries stay in flight: the lease's end hands them out again
        return timed, [entry for *_, entry in rows]

    # a few games at a time: one's round trip to Redis overlaps another's folding
    with ThreadPoolExecutor(max_workers=BATCH_THREADS) as pool:
        outcomes = list(pool.map(enforce, plan))
    timed = sum(n for n, _ in outcomes)
    done += [entry for _, cleared in outcomes for entry in cleared]
    pipe = service.queue_redis.pipeline(transaction=False)
    if done:
        pipe.zrem(INFLIGHT, *done)
    if later:
        pipe.zadd(DEADLINES, later)
        pipe.zrem(INFLIGHT, *later)
    pipe.execute()
    return timed


def forget(service: Naipes, game_id: str, version: int, seat: int, deadline: float) -> None:
    """Clear a deadline's entries (either kind) once its job has run."""
    both = [entry_id(game_id, version, seat, deadline, bot=b) for b in (False, True)]
    pipe = service.queue_redis.pipeline(transaction=False)
    pipe.zrem(DEADLINES, *both)
    pipe.zrem(INFLIGHT, *both)
    pipe.execute()


# ------------------------------------------------------------------ the reconcile pass

RECONCILE_BATCH = 500  # games one reconcile pass looks at (the most overdue first)
RECHECK_SECONDS = 5.0  # an overdue game whose entries are pending is looked at again this much later

# KEYS: DUE; ARGV: game id, the score read, the new score ('' = remove).  Only if the score is still the
# one read: a mark an append wrote meanwhile stays.
_SETTLE_DUE = """
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current or tonumber(current) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


def _missing(service: Naipes, pending: dict[str, list[tuple[int, float, str]]]) -> set[str]:
    """The games with an entry neither in the schedule nor in flight (one round trip)."""
    pipe = service.queue_redis.pipeline(transaction=False)
    for rows in pending.values():
        for _seat, _deadline, entry in rows:
            pipe.zscore(DEADLINES, entry)
            pipe.zscore(INFLIGHT, entry)
    found = iter(pipe.execute())
    missing = set()
    for game_id, rows in pending.items():
        for _row in rows:
            scheduled, in_flight = next(found), next(found)
            if scheduled is None and in_flight is None:
                missing.add(game_id)
    return missing


def reconcile(service: Naipes, now: float | None = None) -> list[str]:
    """Write again the entries of running timed games that have none pending: a move's append and
    its entries can be two writes (the schedule in a Redis of its own), and Redis failing between
    them, or a web worker killed there, leaves the move stored and its deadlines unscheduled.
    Returns the games re-armed.  Workers run this every few seconds (one at a time).

    The games come from ``naipes:games:due``, ordered by when each is due a look: the append of a
    timed game marks it there at the time of the append (in the append's round trip), and writing
    its entries moves the mark to the earliest of them.  So a pass reads only the marks due by
    now, at most RECONCILE_BATCH: moves whose deadlines were never written, and deadlines overdue;
    never every running game.  It reads their tables, and looks for their entries, a few round
    trips for the whole pass."""
    if service.scheduler is None:
        return []
    now = time.time() if now is None else now
    marks = {
        raw.decode(): mark
        for raw, mark in service.redis.zrangebyscore(DUE, "-inf", now, start=0, num=RECONCILE_BATCH, withscores=True)
    }
    if not marks:
        return []
    settles: list[tuple[str, float, str]] = []  # (game, the mark read, its new mark ('' = none))
    pending: dict[str, list[tuple[int, float, str]]] = {}
    found = service.tables.current(list(marks))
    for game_id, mark in marks.items():
        table = found.get(game_id)
        rows = deadline_jobs(game_id, table) if table is not None else []
        if table is None or tables.outcome(table) is not None or not rows:  # gone, over, or frozen: no clock
            settles.append((game_id, mark, ""))
        else:
            pending[game_id] = rows
    missing = _missing(service, pending) if pending else set()
    recent = {g for g in missing if marks[g] > now - 1.0}
    if recent:  # an append of this moment: its entries come right after its mark
        time.sleep(0.05)
        missing = (missing - recent) | _missing(service, {g: pending[g] for g in recent})
    fixed = []
    if missing:
        order = sorted(missing)
        for game_id, head in zip(order, service.store.head_versions(order)):
            if head == found[game_id]["version"]:  # (not: enforced meanwhile)
                service.scheduler({}, found[game_id], game_id)  # marks the game at its earliest entry
                fixed.append(game_id)
    for game_id, rows in pending.items():
        earliest = min(score(entry, deadline) for _seat, deadline, entry in rows)
        mark = earliest if game_id in fixed else marks[game_id]
        # looked at: next at its earliest entry, or (that one overdue, its entry pending) a little later
        settles.append((game_id, mark, repr(max(earliest, now + RECHECK_SECONDS))))
    settle = service.redis.register_script(_SETTLE_DUE)
    pipe = service.redis.pipeline(transaction=False)
    for game_id, mark, new in settles:
        settle(keys=[DUE], args=[game_id, repr(mark), new], client=pipe)
    pipe.execute()
    return fixed
