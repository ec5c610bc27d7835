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

An integrator key may carry limits of its own (``naipes keys limit``), which
replace ``NAIPES_RATE_LIMIT`` for that key.

Every limited response says where its caller stands, in the fields of
draft-ietf-httpapi-ratelimit-headers (revision 10): ``RateLimit-Policy``
(``"credential";q=100;w=1``, and ``"address";q=300;w=1`` when the address
budget applies too) and ``RateLimit`` (``"credential";r=97;t=1``).  The
numbers are the ones the limiter's own counting returned for this request
(one Lua call per limit returns the count and the window's time to live), so
they cost no further round trip.  A request over a limit gets 429
problem+json with ``Retry-After``, the seconds until the exhausted window
resets.  Health, metrics and the spec are never limited and carry no
``RateLimit`` fields.  See docs/rate-limits.md.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass, field

import redis
from apispec import BasePlugin
from flask import Flask, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter
from limits import RateLimitItem
from limits.strategies import FixedWindowRateLimiter
from werkzeug.middleware.proxy_fix import ProxyFix

from service.core.ids import is_game_id

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
    limits: str | None = None  # a key's own limits (replacing NAIPES_RATE_LIMIT), if it has some


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
            return Client("key", rec.id, address, limits=rec.rate_limit)
        game_id = (request.view_args or {}).get("game_id")
        if game_id is None and request.path == "/me":  # GET /me names the game of a seat token in its query
            game_id = request.args.get("game_id") if is_game_id(request.args.get("game_id") or "") else None
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


# ------------------------------------------------------------ what the limiter counted, told to the caller
# INCRBY as limits' own fixed window does (the window starts at the first request), returning the key's
# time to live with the count: one round trip per limit, as before
_COUNT = """
local current = redis.call("incrby", KEYS[1], ARGV[2])
if tonumber(current) == tonumber(ARGV[2]) then
    redis.call("expire", KEYS[1], ARGV[1])
end
local ttl = redis.call("pttl", KEYS[1])
if ttl < 0 then
    redis.call("expire", KEYS[1], ARGV[1])
    ttl = tonumber(ARGV[1]) * 1000
end
return {current, ttl}
"""


@dataclass(frozen=True)
class Window:
    """One limit as this request left it: ``kind`` credential or address, ``quota`` requests per
    ``window`` seconds, ``used`` of them counted so far (this request included), ``reset`` seconds
    until the window starts afresh."""

    kind: str
    quota: int
    window: int
    used: int
    reset: int

    @property
    def remaining(self) -> int:
        return max(0, self.quota - self.used)

    @property
    def exceeded(self) -> bool:
        return self.used > self.quota


@dataclass
class _Counted:
    windows: list[Window] = field(default_factory=list)


class CountingFixedWindow(FixedWindowRateLimiter):
    """limits' fixed window whose hit keeps, for the request, the count and the time to live it read."""

    def __init__(self, storage):
        super().__init__(storage)
        self._script = storage.get_connection().register_script(_COUNT)

    def hit(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        key = self.storage.prefixed_key(item.key_for(*identifiers))
        used, ttl_ms = self._script([key], [item.get_expiry(), cost])
        used = int(used)
        counted = g.get("naipes_rate")
        if counted is None:
            counted = g.naipes_rate = _Counted()
        kind = "address" if any(str(i).startswith("addr:") for i in identifiers) else "credential"
        counted.windows.append(
            Window(kind, item.amount, item.get_expiry(), used, max(0, math.ceil(int(ttl_ms) / 1000)))
        )
        return used <= item.amount


def counted_windows() -> list[Window]:
    """The limits this request was counted against, credential first, shortest window first."""
    counted = g.get("naipes_rate")
    if counted is None:
        return []
    order = {"credential": 0, "address": 1}
    return sorted(counted.windows, key=lambda w: (order[w.kind], w.window))


def policy_names(windows: list[Window]) -> list[str]:
    """Each window's policy name: its kind, with its window in seconds when the kind has several."""
    kinds = [w.kind for w in windows]
    return [w.kind if kinds.count(w.kind) == 1 else f"{w.kind}-{w.window}s" for w in windows]


def header_values(windows: list[Window]) -> dict[str, str]:
    """``RateLimit-Policy`` and ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers-10: Lists of
    structured-field items, a quoted policy name with parameters q and w, or r and t)."""
    if not windows:
        return {}
    names = policy_names(windows)
    return {
        "RateLimit-Policy": ", ".join(f'"{n}";q={w.quota};w={w.window}' for n, w in zip(names, windows)),
        "RateLimit": ", ".join(f'"{n}";r={w.remaining};t={w.reset}' for n, w in zip(names, windows)),
    }


def _rate_limit_headers(response):
    """The caller's budget on every limited response; the seconds to wait on a refused one."""
    windows = counted_windows()
    for name, value in header_values(windows).items():
        response.headers[name] = value
    if response.status_code == 429:
        exceeded = [w.reset for w in windows if w.exceeded]
        if exceeded:
            response.headers["Retry-After"] = str(max(1, *exceeded))
    return response


class CountingLimiter(Limiter):
    """Flask-Limiter counting through :class:`CountingFixedWindow`."""

    def init_app(self, app: Flask) -> None:
        super().init_app(app)
        if not isinstance(self._limiter, FixedWindowRateLimiter):
            raise ValueError("the rate limits count in fixed windows")
        self._limiter = CountingFixedWindow(self._storage)


def attach_rate_limits(
    app: Flask, connection_pool, limits: str | None = None, address_limits: str | None = None
) -> Limiter | None:
    """The client address behind trusted proxies, the refusal of revoked keys and the rate limits."""
    hops = trusted_proxies()
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops)
    spec = limits if limits is not None else os.environ.get("NAIPES_RATE_LIMIT", DEFAULT_LIMITS)
    per_client = _limits(spec)
    app.extensions["naipes_rate_limits"] = per_client
    if not per_client:
        app.before_request(refuse_revoked)
        return None
    per_address = _limits(
        address_limits
        if address_limits is not None
        else os.environ.get("NAIPES_RATE_LIMIT_ADDRESS", DEFAULT_ADDRESS_LIMITS)
    )
    app.extensions["naipes_rate_limits_address"] = per_address
    default = ";".join(per_client)

    def per_credential() -> str:
        """A key's own limits, else the service's."""
        return client().limits or default

    limiter = CountingLimiter(
        credential_key,
        app=app,
        default_limits=[per_credential],
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
        # Flask-Limiter's X-RateLimit headers would cost a Redis round trip per limit on every request;
        # the RateLimit fields come from the counts the limiter read (see CountingFixedWindow)
        headers_enabled=False,
        strategy="fixed-window",
        **_storage(connection_pool),
        key_prefix="naipes:rate",
        swallow_errors=True,  # a Redis hiccup must not turn into refused moves
    )
    app.before_request(refuse_revoked)  # after the limits: a revoked key's requests count by address
    app.after_request(_rate_limit_headers)  # registered first: runs last, on the final response
    return limiter


# ------------------------------------------------------------ the fields in the contract
DRAFT = "draft-ietf-httpapi-ratelimit-headers-10"
HEADERS = {
    "RateLimit-Policy": {
        "description": f"The caller's quota policies ({DRAFT}): a List of a quoted policy name with q (requests) "
        "and w (window, seconds); `credential` is this credential on this route (a request without a live "
        "credential is counted by its client address), `address` the client address over all routes, when it "
        "applies; a kind with several windows names each `<kind>-<w>s`. Absent on routes never limited "
        "(health, metrics, the contract) and when the service runs without limits. See docs/rate-limits.md",
        "schema": {"type": "string"},
        "example": '"credential";q=100;w=1, "address";q=300;w=1',
    },
    "RateLimit": {
        "description": f"Where this request left each policy ({DRAFT}): r (requests remaining in the window, "
        "this one counted) and t (seconds until the window starts afresh), for the policies of RateLimit-Policy",
        "schema": {"type": "string"},
        "example": '"credential";r=97;t=1, "address";r=291;t=1',
    },
}
RETRY_AFTER = {
    "description": "Seconds until the exhausted window starts afresh",
    "schema": {"type": "integer", "minimum": 1},
    "example": 1,
}


def document_headers(spec) -> None:
    """The contract's header components (registered lazily: the responses refer to them by name)."""
    for name, header in HEADERS.items():
        spec.components.header(name, header, lazy=True)
    spec.components.header("Retry-After", RETRY_AFTER, lazy=True)


def response_headers(status: str | int) -> dict:
    """The headers a response of this status documents, by component name."""
    headers = {name: name for name in HEADERS}
    if str(status) == "429":
        headers["Retry-After"] = "Retry-After"
    return headers


class RateLimitDocs(BasePlugin):
    """Every operation's responses carry the RateLimit fields; every limited operation may answer 429."""

    def operation_helper(self, path=None, operations=None, **kwargs):
        limited = not (path or "").startswith(EXEMPT_PREFIXES)
        for op in (operations or {}).values():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            responses = op["responses"]
            if limited and "429" not in responses and 429 not in responses:
                responses["429"] = "TOO_MANY_REQUESTS"  # the component, with Retry-After
            for status, response in responses.items():
                if isinstance(response, dict):
                    response["headers"] = {**response_headers(status), **(response.get("headers") or {})}
