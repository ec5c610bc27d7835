"""Webhooks: signed POSTs to an integrator's URL, delivered by RQ jobs.

Keys:

``naipes:webhooks``                    hash: webhook id -> JSON record
                                       (``id``, ``key_id``, ``scopes``, ``url``,
                                       ``events``, ``secret``, ``created_at``)
``naipes:webhooks:<id>:deliveries``    list, newest first: one entry per attempt
``naipes:webhooks:sent:<delivery>``    marker: this event was handed to this
                                       webhook already (an emit repeated after
                                       a crash enqueues nothing twice)
``naipes:webhooks:attempts:<delivery>`` attempts made so far

A delivery is an RQ job on the default queue; a failed attempt (no answer,
or a status other than 2xx) raises, and RQ retries it after 1, 2, 4, 8, 16
and 32 seconds.  Every attempt is logged.

Private destinations: unless ``NAIPES_WEBHOOK_PRIVATE=allow``, a URL whose
host is a loopback, private, link-local or otherwise non-public address (or
``localhost``) is refused at registration, and a delivery whose host name
resolves to such an address is refused without a retry (logged as such), so
that a webhook cannot make naipes' workers call into the network they run
in.

The body is JSON ``{"id", "type", "created_at", "data"}``; ``id`` names the
event (``game.finished:<game>``...), the same for every webhook and every
attempt.  Headers: ``Naipes-Event``, ``Naipes-Delivery`` (one per event and
webhook; a receiver can drop repeats by it) and ``Naipes-Signature:
t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by the
webhook's secret>``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import os
import secrets
import socket
import time
from urllib.parse import urlsplit

import redis
from rq import Queue, Retry

from events.envelope import dumps, loads, now_iso

from .application import ProblemError, Viewer
from .timers import DEFAULT

log = logging.getLogger("naipes.webhooks")

EVENTS = ("game.finished", "round.paired", "tournament.finished", "result.corrected")
HOOKS = "naipes:webhooks"
RETRY_INTERVALS = [1, 2, 4, 8, 16, 32]
TIMEOUT_SECONDS = 5.0
LOG_LENGTH = 500
MARK_SECONDS = 7 * 24 * 3600
MAX_HOOKS_PER_KEY = 20
SIGNATURE_HEADER = "Naipes-Signature"
PRIVATE_SETTING = "NAIPES_WEBHOOK_PRIVATE"


def private_allowed() -> bool:
    """Whether webhooks may point at non-public addresses (``NAIPES_WEBHOOK_PRIVATE=allow``)."""
    return os.environ.get(PRIVATE_SETTING, "deny").strip().lower() == "allow"


def _non_public(ip: str) -> bool:
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return not addr.is_global or addr.is_multicast


def check_destination(url: str) -> None:
    """Registration: refuse a URL naming a non-public address or ``localhost``
    (a host name is checked again, resolved, at each delivery)."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    try:
        private = _non_public(host)
    except ValueError:  # a name, not an address
        private = host == "localhost" or host.endswith(".localhost")
    if private:
        raise ProblemError(422, "Private webhook address",
                           f"'{host}' is not a public address; webhooks are delivered to public hosts only "
                           f"(set {PRIVATE_SETTING}=allow to deliver inside your own network)", "private-address")


def refused_destination(url: str) -> str | None:
    """Delivery: why the URL's host may not be called (it resolves to a
    non-public address), or None."""
    parts = urlsplit(url)
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                                   proto=socket.IPPROTO_TCP)
    except OSError:
        return None  # unresolvable: the attempt fails on its own and is retried
    for info in infos:
        ip = info[4][0]
        if _non_public(ip):
            return f"refused: {parts.hostname} resolves to the non-public address {ip}"
    return None


def _log_key(hook_id: str) -> str:
    return f"naipes:webhooks:{hook_id}:deliveries"


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """The ``Naipes-Signature`` header value for ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(secret: str, body: bytes, header: str, *, tolerance: float = 300, now: float | None = None) -> bool:
    """Check a ``Naipes-Signature`` header the way a receiver should: the
    HMAC matches (compared in constant time) and the timestamp is recent."""
    try:
        parts = dict(item.split("=", 1) for item in header.split(","))
        stamp = int(parts["t"])
        given = parts["v1"]
    except (ValueError, KeyError):
        return False
    expected = sign(secret, body, stamp).split("v1=", 1)[1]
    fresh = abs((now if now is not None else time.time()) - stamp) <= tolerance
    return fresh and hmac.compare_digest(expected, given)


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProblemError(422, "Bad webhook URL", "the URL must be absolute http:// or https://", "invalid-url")
    return url


class Webhooks:
    def __init__(self, client: redis.Redis, queue_client: redis.Redis | None = None, *,
                 allow_private: bool | None = None):
        self.redis = client
        self.allow_private = private_allowed() if allow_private is None else allow_private
        self.queue = Queue(DEFAULT, connection=queue_client if queue_client is not None else client)

    # ------------------------------------------------------------ registry
    def register(self, viewer: Viewer, url: str, events: list[str]) -> dict:
        check_url(url)
        if not self.allow_private:
            check_destination(url)
        unknown = sorted(set(events) - set(EVENTS))
        if unknown or not events:
            raise ProblemError(422, "Unknown webhook events",
                               f"events must be some of {', '.join(EVENTS)}; got {', '.join(unknown) or 'none'}",
                               "invalid-events")
        if len(self._of(viewer.key_id)) >= MAX_HOOKS_PER_KEY:
            raise ProblemError(409, "Too many webhooks", f"a key may register {MAX_HOOKS_PER_KEY} webhooks",
                               "too-many-webhooks")
        record = {"id": f"wh_{secrets.token_hex(8)}", "key_id": viewer.key_id, "scopes": sorted(viewer.scopes),
                  "url": url, "events": sorted(set(events)), "secret": f"whsec_{secrets.token_urlsafe(32)}",
                  "created_at": now_iso()}
        self.redis.hset(HOOKS, record["id"], dumps(record))
        return record

    def _all(self) -> list[dict]:
        return [loads(v) for v in self.redis.hvals(HOOKS)]

    def _of(self, key_id: str | None) -> list[dict]:
        return sorted((r for r in self._all() if r["key_id"] == key_id), key=lambda r: r["created_at"])

    def list(self, viewer: Viewer) -> list[dict]:
        return [public(r) for r in self._of(viewer.key_id)]

    def get(self, viewer: Viewer, hook_id: str) -> dict:
        raw = self.redis.hget(HOOKS, hook_id)
        record = loads(raw) if raw else None
        if record is None or record["key_id"] != viewer.key_id:
            raise ProblemError(404, "Webhook not found", f"this key has no webhook '{hook_id}'", "webhook-not-found")
        return record

    def delete(self, viewer: Viewer, hook_id: str) -> None:
        self.get(viewer, hook_id)
        self.redis.hdel(HOOKS, hook_id)
        self.redis.delete(_log_key(hook_id))

    def deliveries(self, viewer: Viewer, hook_id: str, limit: int = 100) -> dict:
        record = self.get(viewer, hook_id)
        rows = [loads(r) for r in self.redis.lrange(_log_key(hook_id), 0, limit - 1)]
        return {"webhook": public(record), "deliveries": rows}

    # ------------------------------------------------------------ sending
    def emit(self, event_type: str, event_id: str, data: dict, *, owner: str | None) -> int:
        """Hand an event to every webhook that may receive it; returns how many.

        ``tournament`` events go to the webhooks of the key that owns the
        tournament; ``game.finished`` to those of the owner of the game's
        tournament and to those of keys holding the ``games`` scope (they
        may read every game anyway).
        """
        body = dumps({"id": event_id, "type": event_type, "created_at": now_iso(), "data": data}).decode()
        sent = 0
        for record in self._all():
            if event_type not in record["events"]:
                continue
            allowed = record["key_id"] == owner or (event_type == "game.finished" and "games" in record["scopes"])
            if not allowed:
                continue
            delivery = "whd_" + hashlib.sha256(f"{record['id']}|{event_id}".encode()).hexdigest()[:24]
            if not self.redis.set(f"naipes:webhooks:sent:{delivery}", "1", nx=True, ex=MARK_SECONDS):
                continue
            self.queue.enqueue("workers.jobs.deliver_webhook", record["id"], delivery, event_type, body,
                               job_id=delivery, retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
                               result_ttl=3600, failure_ttl=7 * 24 * 3600)
            sent += 1
        return sent

    def deliver(self, hook_id: str, delivery: str, event_type: str, body: str) -> dict:
        """One attempt; raises :class:`DeliveryFailed` so that RQ retries."""
        import requests

        raw = self.redis.hget(HOOKS, hook_id)
        if raw is None:
            return {"delivered": False, "reason": "the webhook was deleted"}
        record = loads(raw)
        attempt = int(self.redis.incr(f"naipes:webhooks:attempts:{delivery}"))
        self.redis.expire(f"naipes:webhooks:attempts:{delivery}", MARK_SECONDS)
        payload = body.encode()
        stamp = int(time.time())
        headers = {"Content-Type": "application/json", "User-Agent": "naipes-webhooks/1",
                   "Naipes-Event": event_type, "Naipes-Delivery": delivery,
                   SIGNATURE_HEADER: sign(record["secret"], payload, stamp)}
        started = time.monotonic()
        status, error = None, None
        refused = None if self.allow_private else refused_destination(record["url"])
        if refused:
            error = refused
        else:
            try:
                resp = requests.post(record["url"], data=payload, headers=headers, timeout=TIMEOUT_SECONDS,
                                     allow_redirects=False)
                status = resp.status_code
                if not 200 <= status < 300:
                    error = f"the receiver answered {status}"
            except requests.RequestException as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
        ok = error is None
        will_retry = not ok and not refused and attempt <= len(RETRY_INTERVALS)
        entry = {"delivery": delivery, "event": event_type, "event_id": loads(payload)["id"], "attempt": attempt,
                 "at": now_iso(), "status": status, "ok": ok, "error": error,
                 "duration_ms": round((time.monotonic() - started) * 1000, 1),
                 "next_retry_seconds": RETRY_INTERVALS[attempt - 1] if will_retry else None}
        pipe = self.redis.pipeline(transaction=False)
        pipe.lpush(_log_key(hook_id), dumps(entry))
        pipe.ltrim(_log_key(hook_id), 0, LOG_LENGTH - 1)
        pipe.execute()
        if not ok and not refused:  # RQ retries (a refused destination is not tried again)
            raise DeliveryFailed(f"delivery {delivery} attempt {attempt}: {error}")
        return entry


class DeliveryFailed(Exception):
    """An attempt that did not get a 2xx answer (RQ retries the job)."""


def public(record: dict) -> dict:
    return {k: record[k] for k in ("id", "url", "events", "created_at")}
