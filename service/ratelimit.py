"""Rate limits per credential (integrator key or seat token), kept in Redis.

Flask-Limiter counts requests in fixed windows stored in the service's own
Redis, so every gunicorn worker shares one count.  The key of a request is
the SHA-256 of its bearer credential (never the credential itself); a
request without one is counted by its client address.  A request over the
limit gets 429 problem+json with ``Retry-After``.

``NAIPES_RATE_LIMIT`` sets the limits (Flask-Limiter's notation, several
separated by ``;``), default ``100 per second``; ``off``
turns them off.  Health, metrics and the spec are never limited.
"""

from __future__ import annotations

import hashlib
import os

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

DEFAULT_LIMITS = "100 per second"
EXEMPT_PREFIXES = ("/health", "/metrics", "/openapi", "/replay/", "/static/")


def _storage(connection_pool) -> dict:
    """Where the counts live: the service's Redis (its connection pool), or
    the cluster when the service runs on Redis Cluster (a cluster client)."""
    if hasattr(connection_pool, "get_nodes"):
        nodes = ",".join(f"{n.host}:{n.port}" for n in connection_pool.get_nodes())
        return {"storage_uri": f"redis+cluster://{nodes}"}
    return {"storage_uri": "redis://", "storage_options": {"connection_pool": connection_pool}}


def credential_key() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    value = value.strip() or request.args.get("token", "")
    if value:
        return "cred:" + hashlib.sha256(value.encode()).hexdigest()[:32]
    return "addr:" + (get_remote_address() or "unknown")


def attach_rate_limits(app: Flask, connection_pool, limits: str | None = None) -> Limiter | None:
    spec = limits if limits is not None else os.environ.get("NAIPES_RATE_LIMIT", DEFAULT_LIMITS)
    if not spec or spec.strip().lower() == "off":
        return None
    limiter = Limiter(
        credential_key,
        app=app,
        default_limits=[part.strip() for part in spec.split(";") if part.strip()],
        default_limits_exempt_when=lambda: request.path.startswith(EXEMPT_PREFIXES),
        # the X-RateLimit headers would cost a Redis round trip per limit on every request;
        # a refused request gets Retry-After from the problem handler instead
        headers_enabled=False,
        strategy="fixed-window",
        **_storage(connection_pool),
        key_prefix="naipes:rate",
        swallow_errors=True,  # a Redis hiccup must not turn into refused moves
    )
    return limiter
