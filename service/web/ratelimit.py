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

Requests are counted in fixed windows shared through the service's own Redis
by every gunicorn worker, without a round trip per request (:class:`Counts`):

* ``NAIPES_RATE_LIMIT``: the limits per client and route (the ``limits``
  library's notation, several separated by ``;``), default ``100 per second``;
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
numbers are the count as this process knows it when it counts the request:
exact near the limit, where every request is added to the shared count at
once.  A request over a limit gets 429
problem+json with ``Retry-After``, the seconds until the exhausted window
resets.  Health, metrics and the spec are never limited and carry no
``RateLimit`` fields.  See docs/rate-limits.md.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import redis
from apispec import BasePlugin
from flask import Flask, current_app, g, request
from limits import parse_many
from werkzeug.middleware.proxy_fix import ProxyFix

from service.core.errors import ProblemError
from service.core.ids import is_game_id

log = logging.getLogger("naipes.ratelimit")

DEFAULT_LIMITS = "100 per second"
DEFAULT_ADDRESS_LIMITS = "300 per second"
EXEMPT_PREFIXES = ("/health", "/metrics", "/openapi", "/replay/", "/static/")


class Client(NamedTuple):
    """Who sent a request: ``kind`` is key, seat or address; ``name`` what it is counted as.  (A
    tuple: one is made for every request.)"""

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


# A page costs its caller one request of its budgets per PAGE_UNIT items it may hold (its ``limit``,
# asked before it is read): what one request may make the service read, label and send is then bounded
# by the budget, whatever the page size (5,000 events, or 500 games listed, are some 15 to 50 ms of a
# worker's CPU).  The paged routes, with the ``limit`` each takes when none is given and its largest.
PAGE_UNIT = 100
PAGED_RULES = {
    "/games/<game_id:game_id>/events": (1000, 5000),
    "/tournaments/<tournament_id:tournament_id>/events": (1000, 5000),
    "/games": (50, 500),
    "/tournaments": (50, 500),
}


def request_cost() -> int:
    """How many requests of its budgets this request counts as: 1, or for a page ceil(limit / PAGE_UNIT),
    with ``limit`` read as the route reads it (every spelling its integer field takes: ``+5000``,
    ``5_000``, `` 5000``, ``0005000``); an unreadable one is refused by the route: counted as the default,
    and one too long to read, as the largest."""
    paged = PAGED_RULES.get(request.url_rule.rule) if request.url_rule is not None else None
    if paged is None or request.method != "GET":
        return 1
    default, most = paged
    raw = request.args.get("limit")
    if raw is None:
        return pages(default)
    if len(raw) > 64:  # the route refuses it (or reads a number past the largest): counted as the largest
        return pages(most)
    try:
        limit = int(raw)
    except ValueError:
        limit = default
    return pages(min(limit, most))


def pages(items: int) -> int:
    """How many requests ``items`` events or rows count as: one per PAGE_UNIT, at least one."""
    return max(1, math.ceil(items / PAGE_UNIT))


def _limiter() -> RateLimits | None:
    """The application's rate limiter, when this request is limited."""
    limiter = current_app.extensions.get("naipes_rate_limiter")
    return None if limiter is None or _exempt() else limiter


def charge(units: int, counted: int = 1) -> None:
    """Count ``units`` more requests of this request's client on its route, for an answer larger than
    its request told (``counted``: what it was counted as), and refuse it (429) past a budget.  The
    request's RateLimit fields then tell the count after it."""
    limiter = _limiter()
    if limiter is None or units <= 0:
        return
    windows = limiter.count(client(), request.endpoint or "unrouted", units, counted=counted)
    g.naipes_rate = windows
    refused = limiter.refusal(windows)
    if refused is not None:
        raise refused


def charge_pages(items: int) -> None:
    """:func:`charge` for an answer of ``items`` events (an export, an audit: the whole log), counted
    as pages of them would be, the request itself being the first."""
    charge(pages(items) - 1)


def pacer() -> Callable[[int], float]:
    """For a stream, made in its request: a function that counts ``units`` (one per PAGE_UNIT events
    it sent) against the request's client on the stream route's budgets, as a page of events is
    counted, and returns the seconds to wait before sending more (0: go on).  So a stream that
    catches up with a long log sends it at the pace the budget allows, as pages would be."""
    limiter = _limiter()
    if limiter is None:
        return lambda _units: 0.0
    who, route = client(), request.endpoint or "unrouted"

    def pay(units: int) -> float:
        over = [w.reset for w in limiter.count(who, route, units) if w.exceeded]
        return float(max(1, *over)) if over else 0.0

    return pay


def _exempt() -> bool:
    return request.path.startswith(EXEMPT_PREFIXES)


def refuse_revoked() -> None:
    """A revoked key is told so, whatever the route."""
    rec = client().revoked
    if rec is not None:
        raise revoked_problem(rec)


def revoked_problem(rec) -> ProblemError:
    """What a revoked key is told (401 ``key-revoked``, naming the key and when)."""
    return ProblemError(
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


# ------------------------------------------------------------ counting: in the process, reconciled with Redis
class Window(NamedTuple):
    """One limit as this request left it: ``kind`` credential or address, ``quota`` requests per
    ``window`` seconds, ``used`` of them counted so far (this request included), ``reset`` seconds
    until the window starts afresh.  (A tuple: two are made for every request.)"""

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
class _Count:
    """One counter of one window, as this process knows it."""

    ends: float  # when the window ends
    window: int  # its length, seconds (the key's expiry)
    known: int = 0  # the shared count as Redis last returned it to this process
    pending: int = 0  # requests this process let through and has not yet added to Redis
    flushing: int = 0  # requests being added by a flush whose reply has not come (counted meanwhile)
    # one add of this count to Redis at a time: a request added there reads back every add of it this
    # process made before, and what is still on its way (``flushing``) is exactly what Redis does not hold
    adding: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)


_process = [os.getpid()]  # this process's id, known without a system call per request
os.register_at_fork(after_in_child=lambda: _process.__setitem__(0, os.getpid()))


class Counts:
    """Fixed windows counted in Redis, shared by every process, at no round trip per request.

    A window is ``window`` seconds aligned on the clock; its shared count is one Redis key
    (``<prefix>:<name>:<quota>:<window>:<index>``, expiring with the window).

    A process lets a request through on its own count while the requests it has not yet added stay
    within its share of what is left of the quota as it last read it (that remainder over twice the
    number of web processes).  Past its share, or near the quota, a request adds itself to the shared
    count at once (one round trip) and is refused if that count is over the quota.  A background
    flush adds every process's pending requests every FLUSH_SECONDS, in one pipeline.

    So a caller far from its limit costs no round trip per request, and a caller at its limit is
    counted exactly by each process; what other processes have not yet flushed is at most their
    shares (together, half of what was left when they last read the count), flushed within
    FLUSH_SECONDS."""

    FLUSH_SECONDS = 0.05

    def __init__(self, client, prefix: str, processes: int):
        self.client = client
        self.prefix = prefix
        self.processes = max(1, processes)
        self._counts: dict[str, _Count] = {}
        self._expiring: set[str] = set()  # keys this process has given their expiry
        self._lock = threading.Lock()  # taken after a count's ``adding``, never before it
        self._flusher_pid: int | None = None

    def hit(self, name: str, quota: int, window: int, kind: str, now: float | None = None, cost: int = 1) -> Window:
        """Count a request of ``cost`` units (a large page of events costs several) in one window."""
        now = time.time() if now is None else now
        index = int(now // window)
        ends = (index + 1) * window
        key = f"{self.prefix}:{name}:{quota}:{window}:{index}"  # new limits count afresh
        reset = max(0, math.ceil(ends - now))
        with self._lock:
            count = self._counts.get(key)
            if count is None:
                count = self._counts[key] = _Count(ends, window)
            if count.pending + count.flushing + cost <= (quota - count.known) // (2 * self.processes):
                count.pending += cost
                self._ensure_flusher()
                return Window(kind, quota, window, count.known + count.flushing + count.pending, reset)
            amount, count.pending = count.pending + cost, 0
        with count.adding:  # a flush's add of this count lands before or after this one, never beside it
            try:
                added = self._add({key: (amount, window)})[key]
            except redis.RedisError:  # a Redis hiccup must not turn into refused requests: count here meanwhile
                with self._lock:
                    count.pending += amount
                    return Window(kind, quota, window, count.known + count.flushing + count.pending, reset)
            with self._lock:
                count.known = max(count.known, added)
                # what this process let through and Redis does not hold yet counts too: a flush waiting
                # for its turn, and the requests let through on the process's share meanwhile
                used = added + count.flushing + count.pending
        return Window(kind, quota, window, used, reset)

    def _add(self, amounts: dict[str, tuple[int, int]]) -> dict[str, int]:
        """Add to shared counts in one round trip; returns each key's new count.  A key is given its
        expiry by each process's first add to it (whichever process creates it, it expires with its
        window; the later adds leave the expiry as it is)."""
        fresh = amounts.keys() - self._expiring
        pipe = self.client.pipeline(transaction=False)
        for key, (amount, window) in amounts.items():
            pipe.incrby(key, amount)
            if key in fresh:
                pipe.expire(key, window + 1)
        replies = iter(pipe.execute())
        found = {}
        for key in amounts:
            found[key] = int(next(replies))
            if key in fresh:
                next(replies)  # the EXPIRE's
        self._expiring |= fresh
        return found

    def flush(self, now: float | None = None) -> None:
        """Add every pending count to Redis, and forget the windows that ended."""
        now = time.time() if now is None else now
        with self._lock:
            for key in [k for k, c in self._counts.items() if c.ends < now and not (c.pending or c.flushing)]:
                del self._counts[key]
                self._expiring.discard(key)
            due = {key: c for key, c in self._counts.items() if c.pending}
            amounts = {key: (c.pending, c.window) for key, c in due.items()}
            for c in due.values():  # still counted while on their way (a request meanwhile sees them)
                c.flushing += c.pending
                c.pending = 0
        if not amounts:
            return
        with contextlib.ExitStack() as held:  # each count's add, in one order: a request takes one of them
            for key in sorted(due):
                held.enter_context(due[key].adding)
            try:
                added = self._add(amounts)
            except redis.RedisError:
                with self._lock:
                    for key, c in due.items():
                        c.flushing -= amounts[key][0]
                        c.pending += amounts[key][0]
                return
            with self._lock:
                for key, c in due.items():
                    c.flushing -= amounts[key][0]
                    c.known = max(c.known, added[key])

    def _ensure_flusher(self) -> None:
        """The flush runs on a thread of each process (started after a fork, by the first request); it
        ends with the counts it flushes (an application dropped, as tests drop theirs)."""
        if self._flusher_pid == _process[0]:
            return
        self._flusher_pid = _process[0]
        threading.Thread(
            target=Counts._flush_forever, args=(weakref.ref(self),), name="rate-limit-flush", daemon=True
        ).start()

    @staticmethod
    def _flush_forever(ref: weakref.ref) -> None:
        while True:
            time.sleep(Counts.FLUSH_SECONDS)
            counts = ref()
            if counts is None:
                return
            try:
                counts.flush()
            except Exception:  # the thread must outlive any one failure
                log.exception("could not flush the rate-limit counts")
            del counts


def web_processes() -> int:
    """How many web processes share the counts: the start command's worker count."""
    raw = os.environ.get("NAIPES_WEB_WORKERS", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else max(2, os.cpu_count() or 1)


def counted_windows() -> list[Window]:
    """The limits this request was counted against, credential first, shortest window first."""
    return ordered(g.get("naipes_rate"))


_ORDER = {"credential": 0, "address": 1}


def ordered(windows: list[Window] | None) -> list[Window]:
    """Windows as the fields list them: credential first, shortest window first."""
    return sorted(windows, key=lambda w: (_ORDER[w.kind], w.window)) if windows else []


def policy_names(windows: list[Window]) -> list[str]:
    """Each window's policy name: its kind, with its window in seconds when the kind has several."""
    kinds = [w.kind for w in windows]
    return [w.kind if kinds.count(w.kind) == 1 else f"{w.kind}-{w.window}s" for w in windows]


def header_values(windows: list[Window]) -> dict[str, str]:
    """``RateLimit-Policy`` and ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers-10: Lists of
    structured-field items, a quoted policy name with parameters q and w, or r and t)."""
    if not windows:
        return {}
    names, policy = _policies(tuple((w.kind, w.quota, w.window) for w in windows))
    return {
        "RateLimit-Policy": policy,
        "RateLimit": ", ".join(f'"{n}";r={w.remaining};t={w.reset}' for n, w in zip(names, windows)),
    }


@functools.lru_cache(maxsize=256)
def _policies(limits: tuple[tuple[str, int, int], ...]) -> tuple[tuple[str, ...], str]:
    """The policy names and the ``RateLimit-Policy`` field of windows of these (kind, quota, window):
    the same for every request counted in the same limits, so written once (and kept unchangeable)."""
    windows = [Window(kind, quota, window, 0, 0) for kind, quota, window in limits]
    names = tuple(policy_names(windows))
    return names, ", ".join(f'"{n}";q={w.quota};w={w.window}' for n, w in zip(names, windows))


def _rate_limit_headers(response):
    """The caller's budget on every limited response; the seconds to wait on a refused one."""
    for name, value in limit_headers(counted_windows(), response.status_code).items():
        response.headers[name] = value
    return response


def limit_headers(windows: list[Window], status: int) -> dict[str, str]:
    """The fields a response of ``status`` carries for the ``windows`` (ordered) its request was counted in."""
    headers = header_values(windows)
    if status == 429:
        exceeded = [w.reset for w in windows if w.exceeded]
        if exceeded:
            headers["Retry-After"] = str(max(1, *exceeded))
    return headers


@functools.lru_cache(maxsize=256)
def parsed(spec: str) -> tuple[tuple[int, int], ...]:
    """(requests, window seconds) of each limit of a spec (``100 per second;2000 per hour``)."""
    return tuple((item.amount, item.get_expiry()) for part in _limits(spec) for item in parse_many(part))


class RateLimits:
    """Counts each request against its caller's limits before the route runs (see the module's doc)."""

    def __init__(self, counts: Counts, per_client: str, per_address: str):
        self.counts = counts
        self.per_client = per_client
        self.per_address = per_address
        parsed(per_client), parsed(per_address)  # a bad spec is named at start

    def check(self) -> None:
        if _exempt():
            return
        g.naipes_rate = windows = []
        windows.extend(self.count(client(), request.endpoint or "unrouted", request_cost()))
        refused = self.refusal(windows)
        if refused is not None:
            raise refused

    def count(self, who: Client, route: str, cost: int = 1, counted: int = 0) -> list[Window]:
        """Count a request of ``who`` to ``route`` (its endpoint's name) in each of its windows, as
        ``cost`` requests more, ``counted`` of it being counted already: with what was counted, at most a
        window's whole quota, so that any request fits a window nothing else was spent in."""
        windows: list[Window] = []
        for quota, window in parsed(who.limits or self.per_client):
            name = f"{who.kind}:{who.name}:{route}"
            windows.append(self.counts.hit(name, quota, window, "credential", cost=min(cost, max(0, quota - counted))))
        if who.kind != "key":
            for quota, window in parsed(self.per_address):
                spent = min(cost, max(0, quota - counted))
                windows.append(self.counts.hit(f"addr:{who.address}", quota, window, "address", cost=spent))
        return windows

    @staticmethod
    def refusal(windows: list[Window]) -> ProblemError | None:
        """The 429 problem of a request that went over one of its ``windows``, or None."""
        over = [w for w in windows if w.exceeded]
        if over:
            w = max(over, key=lambda w: w.reset)
            whose = "from one client address" if w.kind == "address" else "with this credential on this route"
            return ProblemError(  # its Retry-After is written with the RateLimit fields (limit_headers)
                429,
                "Too Many Requests",
                f"too many requests {whose} (limit: {w.quota} per {w.window} s); retry after the seconds in "
                "Retry-After",
                "too-many-requests",
            )
        return None


def attach_rate_limits(app: Flask, client, limits: str | None = None, address_limits: str | None = None) -> None:
    """The refusal of revoked keys and the rate limits
    (``client``: the service's Redis, or its cluster client)."""
    spec = limits if limits is not None else os.environ.get("NAIPES_RATE_LIMIT", DEFAULT_LIMITS)
    per_client = _limits(spec)
    app.extensions["naipes_rate_limits"] = per_client
    if not per_client:
        app.before_request(refuse_revoked)
        return
    per_address = _limits(
        address_limits
        if address_limits is not None
        else os.environ.get("NAIPES_RATE_LIMIT_ADDRESS", DEFAULT_ADDRESS_LIMITS)
    )
    app.extensions["naipes_rate_limits_address"] = per_address
    counts = Counts(client, "naipes:rate", web_processes())
    app.extensions["naipes_rate_counts"] = counts
    limiter = app.extensions["naipes_rate_limiter"] = RateLimits(counts, ";".join(per_client), ";".join(per_address))
    app.before_request(limiter.check)
    app.before_request(refuse_revoked)  # after the limits: a revoked key's requests count by address
    app.after_request(_rate_limit_headers)  # registered first: runs last, on the final response


def trust_proxies(app: Flask) -> None:
    """Behind NAIPES_TRUSTED_PROXIES proxies, the client address is taken that many hops back in
    ``X-Forwarded-For`` (werkzeug's ProxyFix, outermost: every layer of the application sees it)."""
    hops = trusted_proxies()
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops)


# ------------------------------------------------------------ the fields in the contract
DRAFT = "draft-ietf-httpapi-ratelimit-headers-10"
HEADERS = {
    "RateLimit-Policy": {
        "description": f"The caller's quota policies ({DRAFT}): a List of a quoted policy name with q (requests) "
        "and w (window, seconds); `credential` is this credential on this route (a request without a live "
        "credential is counted by its client address), `address` the client address over all routes, when it "
        "applies; a kind with several windows names each `<kind>-<w>s`. Absent on routes never limited "
        "(health, metrics, the contract) and when the service runs without limits",
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
