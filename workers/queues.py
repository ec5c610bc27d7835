"""The worker class that serves the queues naipes uses."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import UTC

import redis
from rq import SimpleWorker
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, SCHEDULER_LOCKING_KEY_TEMPLATE, RQScheduler
from rq.utils import utcparse

from service.core.appending import finish_pending
from service.core.timers import QUEUES, TIMERS, Dispatcher, reconcile

log = logging.getLogger("naipes.worker")


# How often the scheduler claims the deadlines due.  RQ's scheduler polls once a second and scores
# jobs in whole seconds; deadlines are claimed from naipes' own schedule (LEAD_SECONDS ahead) at
# every poll, and RQ's scheduled jobs (tournaments, webhooks' retries) are looked at as often.
POLL_SECONDS = float(os.environ.get("NAIPES_SCHEDULER_POLL", "0.1"))
RECONCILE_SECONDS = 5  # how often one of the workers looks for running games whose deadlines were never written
RECONCILE_LOCK = "naipes:deadlines:reconcile"


class NaipesScheduler(RQScheduler):
    """RQ's scheduler, polling every POLL_SECONDS (heartbeat still once per interval), handing
    out the deadlines due in batches when it holds the timers' queue
    (:class:`service.core.timers.Dispatcher`), and riding out a restart of Redis: RQ's own
    scheduler process exits at the first connection error, and its worker would start another
    only at its next maintenance, minutes later."""

    def work(self):
        self._install_signal_handlers()
        parent = os.getppid()
        self.register_birth()
        last_beat = 0.0
        dispatch = Dispatcher(self.connection)
        while True:
            if self._stop_requested:
                self.stop()
                break
            if os.getppid() != parent:  # the worker that started this scheduler is gone: so is its duty
                log.warning("scheduler: its worker is gone; stopping")
                break
            try:
                if self.should_reacquire_locks:
                    self.acquire_locks()
                if time.monotonic() - last_beat >= self.interval:
                    self.heartbeat()
                    last_beat = time.monotonic()
                self.enqueue_scheduled_jobs()
                if TIMERS in self._acquired_locks:
                    dispatch()
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                log.warning("scheduler: Redis unreachable (%s); trying again", exc)
            time.sleep(POLL_SECONDS)


WATCH_SECONDS = 1.0  # how often a worker looks after its scheduler


class NaipesWorker(SimpleWorker):
    """RQ's in-process worker (no fork per job) with the faster-polling scheduler.

    Three changes to RQ's defaults keep deadlines on time through faults:

    * after losing Redis the worker tries again every second (RQ doubles
      the wait up to a minute, so a Redis restart of a few seconds could
      leave due deadlines waiting for many more);
    * at every heartbeat (each second) the worker looks whether its
      scheduler runs; if it does not, it frees the lock of a scheduler that
      died (:func:`recover_scheduler_lock`) and takes the lock itself when
      free.  So when the worker holding the scheduler is killed, another
      running worker takes over within seconds, instead of at RQ's
      maintenance ten minutes later;
    * every RECONCILE_SECONDS one worker writes, on a thread of its own,
      the deadlines of running games that have none pending; it finds them
      in the index of games by when they are due a look, so a pass reads
      the games due, not every running game (:func:`service.core.timers.reconcile`);
      and it runs the finished-game listeners (tournament, webhooks) of games
      whose end was appended by a process that died before running them
      (:func:`service.core.appending.finish_pending`).

    The deadlines themselves come as batches the scheduler claimed from
    ``naipes:deadlines`` (:class:`service.core.timers.Dispatcher`), a job each.
    """

    max_connection_wait_time = 1.0

    @property
    def dequeue_timeout(self) -> int:
        # wait for jobs a second at a time, so that the heartbeat between two waits can look after the
        # scheduler (RQ waits about seven minutes)
        return 1

    def heartbeat(self, *args, **kwargs):
        result = super().heartbeat(*args, **kwargs)
        if time.monotonic() - getattr(self, "_last_look", 0.0) >= WATCH_SECONDS:
            self._last_look = time.monotonic()
            self._look_after_scheduler()
        return result

    def _look_after_scheduler(self) -> None:
        """Start this worker's scheduler when none runs (a dead one's lock is
        freed first).  On the main thread: the scheduler is a forked process,
        and forking while another thread holds a lock could leave the child
        stuck on it."""
        scheduler = getattr(self, "scheduler", None)
        if scheduler is None or self._stop_requested or self._shutdown_requested_date is not None:
            return
        process = scheduler._process
        if process is not None and process.is_alive():
            return
        try:
            recover_scheduler_lock(self.connection)
            scheduler.acquire_locks(auto_start=True)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            pass  # Redis is away; the next heartbeat looks again

    def _watch_scheduler(self, done: threading.Event) -> None:
        """The reconcile pass, on its own thread (it reads the games it finds due)."""
        while not done.wait(RECONCILE_SECONDS):
            if self._stop_requested:
                continue
            try:
                self._reconcile()
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                pass  # Redis is away; the next pass tries again
            except Exception:  # the thread must outlive any one failure
                log.exception("could not reconcile the deadlines")

    def _reconcile(self) -> None:
        """One worker at a time: schedule the deadlines a move stored but never scheduled, and tell
        the end of games whose finishing process died before it told it."""
        if not self.connection.set(RECONCILE_LOCK, self.name, nx=True, ex=RECONCILE_SECONDS):
            return
        from .jobs import service

        fixed = reconcile(service())
        if fixed:
            log.warning("deadlines never scheduled, scheduled now for games: %s", ", ".join(fixed))
        finished = finish_pending(service())
        if finished:
            log.warning("games whose end was never told, told now: %s", ", ".join(finished))

    def _start_scheduler(self, burst=False, logging_level=None, *args, **kwargs):
        self.scheduler = NaipesScheduler(
            self.queues,
            connection=self.connection,
            serializer=self.serializer,
            logging_level=logging_level if logging_level is not None else self.log.level,
        )
        self.scheduler.acquire_locks()
        if self.scheduler.acquired_locks:
            if burst:
                try:
                    self.scheduler.register_birth()
                    self.scheduler.enqueue_scheduled_jobs()
                finally:
                    self.scheduler.release_locks()
                    self.scheduler.register_death()
            else:
                self.scheduler.start()
        if not burst and getattr(self, "_watchdog", None) is None:
            self._watch_done = threading.Event()
            self._watchdog = threading.Thread(
                target=self._watch_scheduler, args=(self._watch_done,), name="deadline-reconciler", daemon=True
            )
            self._watchdog.start()

    def teardown(self):
        watchdog = getattr(self, "_watchdog", None)
        if watchdog is not None:  # first stop the reconcile thread, then the scheduler
            self._watch_done.set()
            watchdog.join(5.0)
        super().teardown()


def _alive(pid: int) -> bool:
    """Whether a process of this host runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


STALE_AFTER = 5.0  # seconds without a heartbeat (the scheduler beats every second)


def recover_scheduler_lock(client: redis.Redis) -> list[str]:
    """Release scheduler locks left by a scheduler that died.

    RQ keeps a scheduler's lock for a minute after its last heartbeat; a
    worker killed with SIGKILL would otherwise leave deadlines unenforced
    for that long.  A lock is released when its holder has not beaten for
    STALE_AFTER seconds, or ran on this host and its process is gone.
    Returns the queues whose lock was freed.
    """
    freed = []
    host = socket.gethostname()
    for queue in QUEUES:
        lock = SCHEDULER_LOCKING_KEY_TEMPLATE % queue
        holder = client.get(lock)
        if holder is None:
            continue
        meta = {k.decode(): v.decode() for k, v in client.hgetall(SCHEDULER_KEY_TEMPLATE % holder.decode()).items()}
        # no metadata: a scheduler that died before it wrote any, unless it took the lock a moment ago
        # and is starting (RQ locks for 60 s more than the scheduler's interval, and beats each interval)
        stale = not meta and client.ttl(lock) < 60 - STALE_AFTER
        if meta.get("last_heartbeat"):
            beat = utcparse(meta["last_heartbeat"]).replace(tzinfo=UTC).timestamp()
            stale = stale or time.time() - beat > STALE_AFTER
        if meta.get("hostname") == host and meta.get("pid", "0").isdigit() and int(meta["pid"]):
            stale = stale or not _alive(int(meta["pid"]))
        if stale and client.get(lock) == holder:
            client.delete(lock)
            freed.append(queue)
    if freed:
        log.warning("released scheduler locks of a dead scheduler: %s", ", ".join(freed))
    return freed
