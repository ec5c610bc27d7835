"""Redis clients from URLs: one Redis, or a Redis Cluster.

``redis://`` / ``rediss://`` give a client of one server;
``redis+cluster://host:port`` (or ``rediss+cluster://``) a cluster client
that finds the other nodes itself.  The store's scripts touch one hash slot
each, so they run the same on both.

RQ keeps its queues, registries and scheduler lock under keys of many hash
slots and needs one server: ``queue_url`` gives the queues' Redis
(``NAIPES_QUEUE_URL``), which defaults to the data's Redis and must be set
when that is a cluster.
"""

from __future__ import annotations

import os

import redis
from redis.cluster import RedisCluster

DEFAULT_URL = "redis://127.0.0.1:6379/0"
# how long a command waits for its reply before it fails (redis-py's own default has been none, then
# 5 s: set here, a Redis that stops answering fails a request instead of holding it; a blocking read
# waits less than this, in turns: events.store.EventStore._blocking_ms)
SOCKET_TIMEOUT = 5.0


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].endswith("+cluster")


def connect(url: str, **options) -> redis.Redis | RedisCluster:
    """A client of the Redis at ``url`` (its commands time out after SOCKET_TIMEOUT unless
    ``options`` say otherwise)."""
    options.setdefault("socket_timeout", SOCKET_TIMEOUT)
    if is_cluster_url(url):
        return RedisCluster.from_url(url.replace("+cluster://", "://", 1), **options)
    return redis.Redis.from_url(url, **options)


def data_url() -> str:
    return os.environ.get("REDIS_URL", DEFAULT_URL)


def queue_url(data: str | None = None) -> str:
    """The Redis of RQ's queues: ``NAIPES_QUEUE_URL``, else the data's Redis
    (``data``, default ``REDIS_URL``), which must then be a single server."""
    url = os.environ.get("NAIPES_QUEUE_URL") or data or data_url()
    if is_cluster_url(url):
        raise RuntimeError(
            "RQ needs one Redis server for its queues: set NAIPES_QUEUE_URL to a non-cluster "
            "Redis when REDIS_URL is a cluster"
        )
    return url
