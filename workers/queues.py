"""The worker class that serves the queues naipes uses."""

from __future__ import annotations

import logging
import os
import socket
import time

import redis
from rq import SimpleWorker
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, SCHEDULER_LOCKING_KEY_TEMPLATE, RQScheduler

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
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_scheduler_lock(client: redis.Redis) -> list[str]:
    """Release scheduler locks left by a scheduler that died on this host.

    RQ keeps a scheduler's lock for a minute after its last heartbeat; a
    worker killed with SIGKILL would otherwise leave deadlines unenforced
    for that long.  Only locks whose holder ran on this host and whose
    process is gone are released.  Returns the queues whose lock was freed.
    """
    freed = []
    host = socket.gethostname()
    for queue in QUEUES:
        lock = SCHEDULER_LOCKING_KEY_TEMPLATE % queue
        holder = client.get(lock)
        if holder is None:
            continue
        meta = client.hgetall(SCHEDULER_KEY_TEMPLATE % holder.decode())
        if not meta:
            # no birth record: the holder died before registering, or its record expired
            client.delete(lock)
            freed.append(queue)
            continue
        if meta.get(b"hostname", b"").decode() == host:
            pid = int(meta.get(b"pid", b"0") or 0)
            if pid and not _alive(pid):
                client.delete(lock)
                freed.append(queue)
    if freed:
        log.warning("released scheduler locks of a dead scheduler: %s", ", ".join(freed))
    return freed
