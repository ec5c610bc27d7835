"""The worker class that serves the queues naipes uses."""

from __future__ import annotations

import logging
import os
import socket

import redis
from rq import SimpleWorker
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, SCHEDULER_LOCKING_KEY_TEMPLATE

from service.timers import QUEUES

log = logging.getLogger("naipes.worker")


class NaipesWorker(SimpleWorker):
    """RQ's in-process worker: no fork per job, so a due deadline runs at once."""


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
