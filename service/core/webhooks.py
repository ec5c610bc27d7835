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

URLs are parsed strictly (:func:`parse_url`): http or https, a host, a port
in 1-65535, no user name or password, a name IDNA-encoded, an IPv4 address in
any form the resolver reads (``2130706433``, ``0177.0.0.1``, ``0x7f.1``,
``127.1``) normalised; a malformed URL is refused at registration (422
``bad-url``) and, found at delivery, logged as a failure that is not retried.

Private destinations: unless ``NAIPES_WEBHOOK_PRIVATE=allow``, a URL whose
host is ``localhost`` or an address that is not globally routable (loopback,
private, link-local, unique-local, shared, multicast, reserved...; an IPv6
address carrying an IPv4 one -- mapped, compatible, NAT64, 6to4, Teredo -- is
judged by the IPv4 address too) is refused at registration (422
``private-address``).  A delivery resolves a name once, refuses it (logged,
not retried) if any answer is such an address, and connects to the address it
checked, sending the name in ``Host`` and, over https, in SNI and the
certificate check: a resolver answering differently a second time cannot
make naipes' workers call into the network they run in.

Who is told: each event is handed to a webhook only when its key, as it is now
(a revoked key is told nothing), may see what the event tells, by the decision
every route takes (:mod:`service.core.sight`): a ``game.finished`` of a table
under a duplicate round's embargo reaches the other keys' webhooks once the
embargo lifts (see :meth:`Webhooks.emit`).

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
import re
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

import idna
import redis
from rq import Queue, Retry

from events.envelope import dumps, loads, now_iso
from service.core.errors import ProblemError
from service.core.identity import Viewer
from service.core.keys import KeyStore
from service.core.timers import DEFAULT

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


# ------------------------------------------------------------ URLs and addresses
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
DEFAULT_PORTS = {"http": 80, "https": 443}
_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")
_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
_NUMBER = re.compile(r"0x[0-9a-f]*|[0-9]+", re.IGNORECASE)
_IPV4_PART = {16: re.compile(r"[0-9a-f]+", re.IGNORECASE), 8: re.compile(r"[0-7]+"), 10: re.compile(r"[0-9]+")}
_PATH_SAFE = "/%:@!$&'()*+,;=-._~?"
_NAMED_RANGES = [
    (ipaddress.ip_network(net), kind)
    for net, kind in (
        ("10.0.0.0/8", "private"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("100.64.0.0/10", "shared address space of carrier-grade NAT"),
        ("fc00::/7", "unique-local"),
        ("fec0::/10", "site-local"),
    )
]
# special-purpose ranges that not every version of ``ipaddress`` counts as non-global
_NOT_GLOBAL = [
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "64:ff9b:1::/48",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "5f00::/16",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
]
# IPv6 forms whose last 32 bits are an IPv4 address: IPv4-compatible, SIIT-translated, NAT64
_LOW_32_CARRIERS = [ipaddress.ip_network(net) for net in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48")]


class BadURL(ValueError):
    """A webhook URL that cannot be delivered to as written (the message says why)."""


@dataclass(frozen=True)
class Target:
    """A webhook URL parsed strictly: where a delivery connects and what it sends."""

    scheme: str
    host: str  # ASCII: the IDNA-encoded name, or the address in its usual text
    port: int
    path: str  # path and query, as sent in the request line
    address: IPAddress | None  # the host when it is an address, however the URL wrote it

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if isinstance(self.address, ipaddress.IPv6Address) else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


def _inet_aton(text: str) -> ipaddress.IPv4Address:
    """An IPv4 address in any form the C library's ``inet_aton`` reads (and so the resolver and
    every HTTP client): one to four parts, each decimal, octal (``0177``) or hex (``0x7f``), the
    last filling the bytes left (``127.1``, ``2130706433``)."""
    parts = text.split(".")
    if len(parts) > 4:
        raise BadURL(f"'{text}' is neither a host name nor an IPv4 address")
    values = []
    for part in parts:
        if part[:2].lower() == "0x":
            digits, base = part[2:], 16
        elif len(part) > 1 and part.startswith("0"):
            digits, base = part[1:], 8
        else:
            digits, base = part, 10
        if not _IPV4_PART[base].fullmatch(digits):
            raise BadURL(f"'{text}' is neither a host name nor an IPv4 address")
        values.append(int(digits, base))
    *head, last = values
    if any(v > 0xFF for v in head) or last >= 256 ** (5 - len(values)):
        raise BadURL(f"'{text}' is not an IPv4 address (a part is too large)")
    number = last
    for i, v in enumerate(head):
        number |= v << (8 * (3 - i))
    return ipaddress.IPv4Address(number)


def _parse_host(text: str) -> tuple[str, IPAddress | None]:
    if "%" in text:
        raise BadURL("the host must not be percent-encoded")
    if not text:
        raise BadURL("the URL names no host")
    if text.isascii():
        host = text.lower()
    else:
        try:
            host = idna.encode(text, uts46=True).decode("ascii").lower()
        except UnicodeError as exc:
            raise BadURL(f"the host '{text}' is not a valid internationalised domain name ({exc})") from None
    host = host.removesuffix(".")
    labels = host.split(".")
    if _NUMBER.fullmatch(labels[-1]):  # ends in a number: an address, as the resolver reads it
        address = _inet_aton(host)
        return str(address), address
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise BadURL(f"'{text}' is not a valid host name")
    for label in labels:
        if label.startswith("xn--"):
            try:
                idna.decode(label)
            except UnicodeError as exc:
                raise BadURL(f"the host '{text}' is not a valid internationalised domain name ({exc})") from None
    return host, None


def parse_url(url: str) -> Target:
    """Parse a webhook URL strictly: ``http`` or ``https``, a host, a port in 1-65535, no user name
    or password; a name is IDNA-encoded and an address normalised (``0x7f.1`` is 127.0.0.1, the
    address a client would call).  Raises :class:`BadURL` naming what is wrong."""
    if not isinstance(url, str) or not url:
        raise BadURL("the URL is empty")
    if _UNSAFE.search(url):
        raise BadURL("the URL contains a space, a control character or a backslash")
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in DEFAULT_PORTS:
        raise BadURL("the URL must be absolute http:// or https://")
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, rest = rest[:end], rest[end:].split("#", 1)[0]
    if "@" in authority:
        raise BadURL("the URL must not carry a user name or password")
    if authority.startswith("["):
        close = authority.find("]")
        after = authority[close + 1 :] if close >= 0 else ""
        if close < 0 or (after and not after.startswith(":")):
            raise BadURL("the IPv6 address must be written [address] or [address]:port")
        literal, port_text = authority[1:close], after[1:] if after else None
        if "%" in literal:
            raise BadURL("a zone index is not allowed in the host")
        try:
            address: IPAddress | None = ipaddress.IPv6Address(literal)
        except ValueError:
            raise BadURL(f"'{literal}' is not an IPv6 address") from None
        host = str(address)
    else:
        host_text, colon, port_text = authority.partition(":")
        if colon and ":" in port_text:
            raise BadURL("an IPv6 address must be written in brackets")
        host, address = _parse_host(host_text)
        port_text = port_text if colon else None
    if not port_text:
        port = DEFAULT_PORTS[scheme]
    elif not (port_text.isascii() and port_text.isdigit()):
        raise BadURL(f"the port '{port_text}' is not a number")
    else:
        port = int(port_text)
        if not 1 <= port <= 65535:
            raise BadURL(f"the port {port_text} is outside 1-65535")
    path = quote(rest or "/", safe=_PATH_SAFE)
    return Target(scheme, host, port, path if path.startswith("/") else "/" + path, address)


def carried_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, if any (IPv4-mapped and -compatible, SIIT,
    NAT64 ``64:ff9b::/96`` and ``64:ff9b:1::/48``, 6to4 ``2002::/16``, Teredo's client)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in net for net in _LOW_32_CARRIERS):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _kind(address: IPAddress) -> str | None:
    """What makes ``address`` non-public (``loopback``, ``private``...), or None when it is public."""
    special = (
        not address.is_global
        or address.is_multicast
        or any(address in net for net in _NOT_GLOBAL if net.version == address.version)
    )
    if not special:
        return None
    for name in ("unspecified", "loopback", "link_local", "multicast"):
        if getattr(address, f"is_{name}"):
            return name.replace("_", "-")
    named = [kind for net, kind in _NAMED_RANGES if net.version == address.version and address in net]
    return named[0] if named else "reserved or special-purpose"


def address_refusal(address: IPAddress) -> str | None:
    """Why a webhook may not be delivered to ``address`` (it, or the IPv4 address it carries, is
    not globally routable), or None.  An IPv4-mapped address is the IPv4 address itself."""
    inner = carried_ipv4(address)
    inner_kind = _kind(inner) if inner is not None else None
    if inner_kind:
        return f"it carries the IPv4 address {inner}, {inner_kind}"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return None
    return _kind(address)


def resolve(target: Target) -> list[IPAddress]:
    """The addresses a delivery may connect to: the URL's address, or the answers of one lookup of
    its name (raises OSError when the name does not resolve)."""
    if target.address is not None:
        return [target.address]
    found: list[IPAddress] = []
    for family, _, _, _, sockaddr in socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM):
        if family in (socket.AF_INET, socket.AF_INET6):
            address = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
            if address not in found:
                found.append(address)
    if not found:
        raise OSError(f"{target.host} has no address")
    return found


def destination_refusal(target: Target, addresses: list[IPAddress]) -> str | None:
    """Delivery: why ``target`` may not be called at these addresses (every one is checked)."""
    for address in addresses:
        why = address_refusal(address)
        if why and target.address is not None:
            return f"refused: {target.host} is not a public address ({why})"
        if why:
            return f"refused: {target.host} resolves to the non-public address {address} ({why})"
    return None


def check_url(url: str, *, allow_private: bool = False) -> Target:
    """Registration: the URL parsed (422 ``bad-url`` naming what is wrong) and, unless private
    destinations are allowed, refused (422 ``private-address``) when its host is ``localhost`` or a
    non-public address however written; a name is checked, resolved, at each delivery."""
    try:
        target = parse_url(url)
    except BadURL as exc:
        raise ProblemError(422, "Bad webhook URL", str(exc), "bad-url") from None
    if allow_private:
        return target
    if target.address is not None:
        why = address_refusal(target.address)
        written = re.split(r"[/?#]", url.partition("://")[2], maxsplit=1)[0]
        problem = why and f"'{written}' is the address {target.address}, which is not public ({why})"
    else:
        local = target.host == "localhost" or target.host.endswith(".localhost")
        problem = local and f"'{target.host}' names this machine"
    if problem:
        raise ProblemError(
            422,
            "Private webhook address",
            f"{problem}; webhooks are delivered to public hosts only "
            f"(set {PRIVATE_SETTING}=allow to deliver inside your own network)",
            "private-address",
        )
    return target


def refused_destination(url: str) -> str | None:
    """Delivery's check of a URL on its own: why it may not be called (malformed, or its host is or
    resolves to a non-public address), or None; a name is resolved once."""
    try:
        target = parse_url(url)
    except BadURL as exc:
        return f"bad URL: {exc}"
    try:
        addresses = resolve(target)
    except OSError:
        return None  # unresolvable: the attempt fails on its own and is retried
    return destination_refusal(target, addresses)


def _ca_options() -> dict:
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if not bundle:
        from requests.certs import where

        bundle = where()
    return {"ca_cert_dir": bundle} if os.path.isdir(bundle) else {"ca_certs": bundle}


def post_pinned(target: Target, address: IPAddress, body: bytes, headers: dict) -> tuple[int | None, str | None]:
    """POST ``body`` to ``target`` over a connection to ``address`` (the address checked, so that a
    second lookup cannot swap it); the URL's host goes in ``Host`` and, over https, in SNI and the
    certificate's name check.  Returns (status, error)."""
    import urllib3

    options: dict = {
        "timeout": urllib3.Timeout(connect=TIMEOUT_SECONDS, read=TIMEOUT_SECONDS),
        "retries": False,
        "maxsize": 1,
    }
    if target.scheme == "https":
        options.update(cert_reqs="CERT_REQUIRED", **_ca_options())
        if target.address is None:
            options.update(server_hostname=target.host, assert_hostname=target.host)
        pool: urllib3.HTTPConnectionPool = urllib3.HTTPSConnectionPool(str(address), target.port, **options)
    else:
        pool = urllib3.HTTPConnectionPool(str(address), target.port, **options)
    try:
        with pool:
            resp = pool.urlopen(
                "POST",
                target.path,
                body=body,
                headers={**headers, "Host": target.host_header},
                redirect=False,
                retries=False,
                assert_same_host=False,
            )
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        return None, f"{type(exc).__name__}: {exc}"[:300]
    return resp.status, None if 200 <= resp.status < 300 else f"the receiver answered {resp.status}"


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


class Webhooks:
    def __init__(
        self,
        client: redis.Redis,
        queue_client: redis.Redis | None = None,
        *,
        allow_private: bool | None = None,
        keys: KeyStore | None = None,
    ):
        self.redis = client
        # the integrator keys, asked whether a webhook's key is live (None: every registered key counts as live)
        self.keys = keys
        self.allow_private = private_allowed() if allow_private is None else allow_private
        self.queue = Queue(DEFAULT, connection=queue_client if queue_client is not None else client)

    # ------------------------------------------------------------ registry
    def register(self, viewer: Viewer, url: str, events: list[str]) -> dict:
        check_url(url, allow_private=self.allow_private)
        unknown = sorted(set(events) - set(EVENTS))
        if unknown or not events:
            raise ProblemError(
                422,
                "Unknown webhook events",
                f"events must be some of {', '.join(EVENTS)}; got {', '.join(unknown) or 'none'}",
                "invalid-events",
            )
        if len(self._of(viewer.key_id)) >= MAX_HOOKS_PER_KEY:
            raise ProblemError(
                409, "Too many webhooks", f"a key may register {MAX_HOOKS_PER_KEY} webhooks", "too-many-webhooks"
            )
        record = {
            "id": f"wh_{secrets.token_hex(8)}",
            "key_id": viewer.key_id,
            "scopes": sorted(viewer.scopes),
            "url": url,
            "events": sorted(set(events)),
            "secret": f"whsec_{secrets.token_urlsafe(32)}",
            "created_at": now_iso(),
        }
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
    def emit(
        self,
        event_type: str,
        event_id: str,
        data: dict,
        *,
        owner: str | None,
        sees: Callable[[list[Viewer]], list[bool]] | None = None,
    ) -> int:
        """Hand an event to every webhook that may receive it now; returns how many.

        ``tournament`` events go to the webhooks of the key that owns the
        tournament; ``game.finished`` to those of the owner of the game's
        tournament and to those of keys holding the ``games`` scope.  The key
        is asked as it is now (a revoked key's webhooks get nothing), and
        ``sees`` (given one viewer per key, answering for each) says whether
        it may see what the event tells: for ``game.finished``, the game at
        its end, by the decision every route takes
        (:meth:`service.core.visibility.Visibility.sight_of_each`).  A webhook
        whose key may not see it yet (a duplicate round's embargo) is not
        marked: the same event emitted again once it may (when the embargo
        lifts) is handed to it then, and to no webhook twice.
        """

        def addressed(key_id: str | None, scopes) -> bool:
            return key_id == owner or (event_type == "game.finished" and "games" in scopes)

        records = [r for r in self._all() if event_type in r["events"] and addressed(r["key_id"], r["scopes"])]
        audience = [v for v in self._viewers(records).values() if addressed(v.key_id, v.scopes)]
        if audience and sees is not None:
            audience = [v for v, yes in zip(audience, sees(audience)) if yes]
        keys = {v.key_id for v in audience}
        records = [r for r in records if r["key_id"] in keys]
        if not records:
            return 0
        body = dumps({"id": event_id, "type": event_type, "created_at": now_iso(), "data": data}).decode()
        # every webhook's mark in one round trip, and the deliveries not made before in one more:
        # what a game's end costs does not grow with the webhooks it reaches
        deliveries = [
            (record, "whd_" + hashlib.sha256(f"{record['id']}|{event_id}".encode()).hexdigest()[:24])
            for record in records
        ]
        marks = self.redis.pipeline(transaction=False)
        for _, delivery in deliveries:
            marks.set(f"naipes:webhooks:sent:{delivery}", "1", nx=True, ex=MARK_SECONDS)
        fresh = [(record, delivery) for (record, delivery), new in zip(deliveries, marks.execute()) if new]
        if fresh:
            self.queue.enqueue_many(
                [
                    Queue.prepare_data(
                        "workers.jobs.deliver_webhook",
                        (record["id"], delivery, event_type, body),
                        job_id=delivery,
                        retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
                        result_ttl=3600,
                        failure_ttl=7 * 24 * 3600,
                    )
                    for record, delivery in fresh
                ]
            )
        return len(fresh)

    def _viewers(self, records: list[dict]) -> dict[str, Viewer]:
        """The viewer of each webhook's key, as the key is now: its live record's scopes (a revoked or
        unknown key has none), read once for every key; without a key store, as registered."""
        if self.keys is None:
            return {
                r["key_id"]: Viewer("integrator", key_id=r["key_id"], scopes=frozenset(r["scopes"])) for r in records
            }
        live = self.keys.live_by_id(r["key_id"] for r in records) if records else {}
        return {key_id: Viewer("integrator", key_id=key_id, scopes=rec.scopes) for key_id, rec in live.items()}

    def deliver(self, hook_id: str, delivery: str, event_type: str, body: str) -> dict:
        """One attempt; raises :class:`DeliveryFailed` so that RQ retries.  A malformed URL or a
        refused address fails for good: logged, not raised, not retried."""
        raw = self.redis.hget(HOOKS, hook_id)
        if raw is None:
            return {"delivered": False, "reason": "the webhook was deleted"}
        record = loads(raw)
        attempt = int(self.redis.incr(f"naipes:webhooks:attempts:{delivery}"))
        self.redis.expire(f"naipes:webhooks:attempts:{delivery}", MARK_SECONDS)
        payload = body.encode()
        stamp = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "naipes-webhooks/1",
            "Naipes-Event": event_type,
            "Naipes-Delivery": delivery,
            SIGNATURE_HEADER: sign(record["secret"], payload, stamp),
        }
        started = time.monotonic()
        status, error, permanent = None, None, False
        try:
            target = parse_url(record["url"])
        except BadURL as exc:
            target, error, permanent = None, f"bad URL: {exc}", True
        if target is not None and self.keys is not None and not self.keys.live_by_id([record["key_id"]]):
            # revoked since the event was handed over: a revoked key is shown nothing, here as on every route
            target, error, permanent = None, "refused: the webhook's key was revoked", True
        if target is not None:
            try:
                addresses = resolve(target)  # the one lookup: the connection goes to an address checked here
            except (OSError, UnicodeError) as exc:
                error = f"could not resolve {target.host}: {exc}"[:300]
            else:
                refused = None if self.allow_private else destination_refusal(target, addresses)
                if refused:
                    error, permanent = refused, True
                else:
                    status, error = post_pinned(target, addresses[0], payload, headers)
        ok = error is None
        will_retry = not ok and not permanent and attempt <= len(RETRY_INTERVALS)
        entry = {
            "delivery": delivery,
            "event": event_type,
            "event_id": loads(payload)["id"],
            "attempt": attempt,
            "at": now_iso(),
            "status": status,
            "ok": ok,
            "error": error,
            "duration_ms": round((time.monotonic() - started) * 1000, 1),
            "next_retry_seconds": RETRY_INTERVALS[attempt - 1] if will_retry else None,
        }
        pipe = self.redis.pipeline(transaction=False)
        pipe.lpush(_log_key(hook_id), dumps(entry))
        pipe.ltrim(_log_key(hook_id), 0, LOG_LENGTH - 1)
        pipe.execute()
        if not ok and not permanent:  # RQ retries (a malformed URL or refused address is not tried again)
            raise DeliveryFailed(f"delivery {delivery} attempt {attempt}: {error}")
        return entry


class DeliveryFailed(Exception):
    """An attempt that did not get a 2xx answer (RQ retries the job)."""


def public(record: dict) -> dict:
    return {k: record[k] for k in ("id", "url", "events", "created_at")}
