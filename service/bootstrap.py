"""The one composition root: the application as each process runs it.

The web workers (:func:`service.web.app.create_app`), the RQ workers
(:mod:`workers.jobs`) and the command line (:mod:`service.cli`) all get their
:class:`~service.core.naipes.Naipes` from :func:`build`, wired the same way:
the data's Redis (``REDIS_URL``, or what the caller passes), RQ's Redis
(``NAIPES_QUEUE_URL`` when the data is on a cluster), the integrator keys
(``NAIPES_API_KEYS``), the service secret, the deadlines' scheduler, the
tournaments (their hooks on finished games and their part of a game's
context) and, in workers, the timeout metric.
"""

from __future__ import annotations

import os

import redis

from events.connect import connect, data_url, queue_url
from service.core.naipes import Naipes

ROLES = ("web", "worker", "command")
CACHE_SIZES = {"web": 4096, "worker": 256, "command": 256}


def env_api_keys() -> list[str]:
    """The integrator keys given to the service in ``NAIPES_API_KEYS`` (comma-separated)."""
    return [k.strip() for k in os.environ.get("NAIPES_API_KEYS", "").split(",") if k.strip()]


def env_max_search_games() -> int:
    """``NAIPES_MAX_SEARCH_GAMES``: games with search bots one key runs at once (0: no limit)."""
    from service.core.quotas import DEFAULT_MAX_SEARCH_GAMES

    raw = os.environ.get("NAIPES_MAX_SEARCH_GAMES", "").strip() or str(DEFAULT_MAX_SEARCH_GAMES)
    if not raw.isdigit():
        raise SystemExit(f"NAIPES_MAX_SEARCH_GAMES: a number of games, 0 for no limit (not {raw!r})")
    return int(raw)


def build(
    role: str,
    *,
    client: redis.Redis | None = None,
    redis_url: str | None = None,
    api_keys: list[str] | None = None,
    secret: str | bytes | None = None,
    schedule: bool = True,
) -> Naipes:
    """The application for a process of ``role`` (``web``, ``worker`` or ``command``).

    ``client``: the data's Redis (default: a connection to ``redis_url``, else ``REDIS_URL``);
    ``api_keys``: default ``NAIPES_API_KEYS``; ``secret``: default ``NAIPES_SECRET`` (else the
    one kept in Redis); ``schedule``: whether appends schedule turn deadlines."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    queue_client = None
    if client is None:
        url = redis_url or data_url()
        client = connect(url, health_check_interval=30)
        queues = queue_url(url)
        queue_client = connect(queues) if queues != url else None
    naipes = Naipes(
        client,
        api_keys=env_api_keys() if api_keys is None else api_keys,
        cache_size=CACHE_SIZES[role],
        queue_client=queue_client,
        secret=secret,
        max_search_games=env_max_search_games(),
    )
    return wire(naipes, role=role, schedule=schedule)


def wire(naipes: Naipes, *, role: str = "web", schedule: bool = True) -> Naipes:
    """Attach what every process of ``role`` runs beside the application's own services."""
    from service.core.tournaments import attach_tournaments

    if schedule and naipes.scheduler is None:
        from service.core.timers import attach_scheduler

        attach_scheduler(naipes)
    if role == "worker":
        from service.core.metrics import timeout_fired

        if timeout_fired not in naipes.on_timeout:
            naipes.on_timeout.append(timeout_fired)
    attach_tournaments(naipes)
    return naipes
