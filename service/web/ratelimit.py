"""Who a request comes from, and the rate limits per client, kept in Redis.

A request's client is its validated credential: an integrator key (by its
id) or a seat token (by game and seat), resolved through the application's
caches; a request without a credential, or with one that is no key and no
seat token of the game it names, is counted by its client address.  A
revoked key is told so (401 problem, type ``key-revoked``) on every route.

The client address is the peer's, unless ``NAIPES_TRUSTED_PROXIES`` (a
number of proxy hops, default 0) says how many proxies in front of the
service append to ``X-Forwarded-For``: werkzeug's ProxyFix then takes the
address that many hops back.  Without it, ``X-Forwarded-For`` is ignored.

Flask-Limiter counts requests in fixed windows stored in the service's own
Redis, so every gunicorn worker shares one count:

* ``NAIPES_RATE_LIMIT``: the limits per client and route (Flask-Limiter's
  notation, several separated by ``;``), default ``100 per second``;
  ``off`` turns every limit off;
* ``NAIPES_RATE_LIMIT_ADDRESS``: the budget of one client address over
  all routes, default ``300 per second``, whatever seat tokens it sends
  (requests with a live integrator key are counted by their key only);
  ``off`` turns it off.

A request over a limit gets 429 problem+json with ``Retry-After``.  Health,
metrics and the spec are never limited.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

import redis
from flask import Flask, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter
from werkzeug.middleware.proxy_fix import ProxyFix

log = logging.getLogger("naipes.ratelimit")

DEFAULT_LIMITS = "100 per second"
DEFAULT_ADDRESS_LIMITS = "300 per second"
EXEMPT_PREFIXES = ("/health", "/metrics", "/openapi", "/replay/", "/static/")


def _storage(connection_pool) -> dict:
    """Where the counts live: the service's Redis (its connection pool), or
    the cluster when the service runs on Redis Cluster (a cluster client)."""
    if hasattr(connection_pool, "get_nodes"):
        nodes = ",".join(f"{n.host}:{n.port}" for n in connection_pool.get_nodes())
        return {"storage_uri": f"redis+cluster://{nodes}"}
    return {"storage_uri": "redis://", "storage_options": {"connection_pool": connection_pool}}


@dataclass(frozen=True)
class Client:
    """Who sent a request: ``kind`` is key, seat or address; ``name`` what it is counted as."""

    kind: str
    name: str
    address: str
    revoked: object = None  # the KeyRecord of a revoked key the request sent


def trusted_proxies() -> int:
    raw = os.environ.get("NAIPES_TRUSTED_PROXIES", "0").strip() or "0"
    try:
        hops = int(raw)
    except ValueError:
        raise ValueError(f"NAIPES_TRUSTED_PROXIES must be a number of proxy hops, got {raw!r}") from None
    if hops < 0:
        raise ValueError(f"NAIPES_TRUSTED_PROXIES must be 0 or more, got {hops}")
    return hops


def client_address() -> str:
    return request.remote_addr or "unknown"


def request_credential() -> str | None:
    """The credential a request sends: its bearer token, or the stream's ``?token=``."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, value = header.partition(" ")
        return value.strip() if scheme.lower() == "bearer" and value.strip() else None
    rule = request.url_rule.rule if request.url_rule is not None else ""
    if rule.endswith("/stream"):
        return request.args.get("token") or None
    return None


def client() -> Client:
    """The request's client, resolved once per request."""
    found = g.get("naipes_client")
    if found is None:
        found = _resolve()
        g.naipes_client = found
    return found


def _resolve() -> Client:
    address = client_address()
    anonymous = Client("address", address, address)
    credential = request_credential()
    if not credential:
        return anonymous
    svc = current_app.extensions["naipes"]
    try:
        rec = svc.keys.find(credential)
        if rec is not None:
            if rec.revoked:
                return Client("address", address, address, revoked=rec)
            return Client("key", rec.id, address)
        game_id = (request.view_args or {}).get("game_id")
        if game_id is not None:
            seat = svc.identity.seat_for_token(game_id, credential)
            if seat is not None:
                return Client("seat", f"{game_id}:{seat}", address)
    except redis.RedisError:  # the route itself answers 503; count the request by address meanwhile
        pass
    return anonymous


def credential_key() -> str:
    c = client()
    return f"{c.kind}:{c.name}"


def address_key() -> str:
    return f"addr:{client().address}"


def _exempt() -> bool:
    return request.path.startswith(EXEMPT_PREFIXES)


def _address_exempt() -> bool:
    return _exempt() or client().kind == "key"


def refuse_revoked() -> None:
    """A revoked key is told so, whatever the route."""
    rec = client().revoked
    if rec is not None:
        from service.core.errors import ProblemError

        raise ProblemError(
            401,
            "Key revoked",
            f"this integrator key ({rec.id}) was revoked at {rec.revoked_at}; ask the operator for a new key",
            "key-revoked",
            key_id=rec.id,
        )


def _limits(spec: str | None) -> list[str]:
    if not spec or spec.strip().lower() == "off":
        return []
    return [part.strip() for part in spec.split(";") if part.strip()]


def attach_rate_limits(
    app: Flask, connection_pool, limits: str | None = None, address_limits: str | None = None
) -> Limiter | None:
    """The client address behind trusted proxies, the refusal of revoked keys and the rate limits."""
    hops = trusted_proxies()
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops)
    spec = limits if limits is not None else os.environ.get("NAIPES_RATE_LIMIT", DEFAULT_LIMITS)
    per_client = _limits(spec)
    if not per_client:
        app.before_request(refuse_revoked)
        return None
    per_address = _limits(
        address_limits
        if address_limits is not None
        else os.environ.get("NAIPES_RATE_LIMIT_ADDRESS", DEFAULT_ADDRESS_LIMITS)
    )
    limiter = Limiter(
        credential_key,
        app=app,
        default_limits=per_client,
        default_limits_exempt_when=_exempt,
        application_limits=[
            ApplicationLimit(
                limit_provider=part,
                key_function=address_key,
                scope="address",
                exempt_when=_address_exempt,
                error_message=f"{part} from one client address",
            )
            for part in per_address
        ],
        # the X-RateLimit headers would cost a Redis round trip per limit on every request;
        # a refused request gets Retry-After from the problem handler instead
        headers_enabled=False,
        strategy="fixed-window",
        **_storage(connection_pool),
        key_prefix="naipes:rate",
        swallow_errors=True,  # a Redis hiccup must not turn into refused moves
    )
    app.before_request(refuse_revoked)  # after the limits: a revoked key's requests count by address
    return limiter
