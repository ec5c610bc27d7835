"""The worker class that serves the queues naipes uses."""

from __future__ import annotations

import logging
import os
import socket
import time
from datetime import timezone

import redis
from rq import SimpleWorker
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, SCHEDULER_LOCKING_KEY_TEMPLATE, RQScheduler

from rq.utils import utcparse

from service.timers import QUEUES

log = logging.getLogger("naipes.worker")


# How often the scheduler looks for due jobs.  RQ's scheduler polls once a
# second and scores jobs in whole seconds; polling more often lets a deadline
# job start at the beginning of its second and wait only for its own moment.
POLL_SECONDS = float(os.environ.get("NAIPES_SCHEDULER_POLL", "0.1"))


class NaipesScheduler(RQScheduler):
    """RQ's scheduler, polling every POLL_SECONDS (heartbeat still once per interval)."""

    def work(self):
        self._install_signal_handlers()
        self.register_birth()
        last_beat = 0.0
        while True:
            if self._stop_requested:
                self.stop()
                break
            if self.should_reacquire_locks:
                self.acquire_locks()
            if time.monotonic() - last_beat >= self.interval:
                self.heartbeat()
                last_beat = time.monotonic()
            self.enqueue_scheduled_jobs()
            time.sleep(POLL_SECONDS)


class NaipesWorker(SimpleWorker):
    """RQ's in-process worker (no fork per job) with the faster-polling scheduler."""

    def _start_scheduler(self, burst=False, logging_level=None, *args, **kwargs):
        self.scheduler = NaipesScheduler(
            self.queues, connection=self.connection, serializer=self.serializer,
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
        stale = not meta
        if meta.get("last_heartbeat"):
            beat = utcparse(meta["last_heartbeat"]).replace(tzinfo=timezone.utc).timestamp()
            stale = stale or time.time() - beat > STALE_AFTER
        if meta.get("hostname") == host and meta.get("pid", "0").isdigit() and int(meta["pid"]):
            stale = stale or not _alive(int(meta["pid"]))
        if stale and client.get(lock) == holder:
            client.delete(lock)
            freed.append(queue)
    if freed:
        log.warning("released scheduler locks of a dead scheduler: %s", ", ".join(freed))
    return freed
