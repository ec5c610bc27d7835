"""Prometheus metrics: moves, errors, request latency, timeouts fired, queue depth.

Under gunicorn every worker process (and the RQ worker) writes its samples
to ``PROMETHEUS_MULTIPROC_DIR`` when that is set (the start command sets
it); ``/metrics`` then aggregates the files of every process.  Without the
variable the metrics live in this process's default registry.
"""

from __future__ import annotations

import os
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

MOVES = Counter(
    "naipes_moves_total", "Moves posted, by game type and result (accepted or the problem kind)", ["game", "result"]
)
ERRORS = Counter("naipes_http_errors_total", "Responses with an error status, by status", ["status"])
LATENCY = Histogram(
    "naipes_http_request_duration_seconds",
    "Time to answer a request, by route and method",
    ["route", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
TIMEOUTS = Counter(
    "naipes_timeouts_fired_total", "Turn deadlines enforced (a timeout appended), by game type", ["game"]
)
STREAMS = Counter("naipes_streams_opened_total", "Event streams (SSE) opened")


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir")


def timeout_fired(game_id: str, table: dict, seat: int) -> None:
    """Hook for :attr:`service.core.naipes.Naipes.on_timeout`."""
    TIMEOUTS.labels(game=table.get("game", "unknown")).inc()


class QueueDepth:
    """A collector reading the depth of naipes's RQ queues at scrape time."""

    def __init__(self, client):
        self.client = client

    def collect(self):
        from rq import Queue
        from rq.registry import ScheduledJobRegistry

        from service.core.timers import DEADLINES, INFLIGHT, QUEUES

        waiting = GaugeMetricFamily("naipes_queue_depth", "Jobs waiting in an RQ queue", labels=["queue"])
        scheduled = GaugeMetricFamily(
            "naipes_queue_scheduled",
            "Jobs RQ holds for later (retries of webhooks and tournament jobs); turn deadlines are naipes_deadlines",
            labels=["queue"],
        )
        deadlines = GaugeMetricFamily(
            "naipes_deadlines",
            "Turn deadlines in the schedule: pending (all), due (their time has come, not yet claimed by a "
            "worker), claimed (in a batch being enforced)",
            labels=["state"],
        )
        up = GaugeMetricFamily("naipes_redis_up", "1 when Redis answered the scrape")
        try:
            for name in QUEUES:
                queue = Queue(name, connection=self.client)
                waiting.add_metric([name], queue.count)
                scheduled.add_metric([name], ScheduledJobRegistry(queue=queue).count)
            pipe = self.client.pipeline(transaction=False)
            pipe.zcard(DEADLINES)
            pipe.zcount(DEADLINES, "-inf", time.time())
            pipe.zcard(INFLIGHT)
            for state, count in zip(("pending", "due", "claimed"), pipe.execute()):
                deadlines.add_metric([state], count)
            up.add_metric([], 1)
        except Exception:  # noqa: BLE001 - a scrape must answer even when Redis does not
            up.add_metric([], 0)
        yield waiting
        yield scheduled
        yield deadlines
        yield up


def exposition(client) -> tuple[bytes, str]:
    """The text exposition of every metric, aggregated over processes in multiprocess mode."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(QueueDepth(client))
    else:
        registry = _with_default(client)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def _with_default(client) -> CollectorRegistry:
    """The process's default registry plus the queue collector, without registering it twice."""
    from prometheus_client import REGISTRY

    class _Both:
        def collect(self):
            yield from REGISTRY.collect()
            yield from QueueDepth(client).collect()

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Both())
    return registry
