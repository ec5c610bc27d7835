"""Integrator keys: scoped, stored hashed, revocable.

Keys of the environment (``NAIPES_API_KEYS``) are the operator's bootstrap
keys and hold every scope.  Each has a record in the store like any other
key, made when a process first sees it (id ``env-`` and the first hex digits
of its digest, name ``environment key``), so that it is listed and can be
revoked; a revoked environment key stays revoked across restarts for as long
as it is still in the environment (its record is never overwritten), and the
record of a key no longer in a process's environment grants nothing there.
Further keys are created (``naipes keys create`` or ``POST /keys`` with the
``admin`` scope) and stored in Redis:

``naipes:{keys}``       hash: SHA-256 of the key -> JSON record
``naipes:{keys}:ids``   hash: key id -> SHA-256 of the key

Both share the hash tag ``{keys}``, so that a creation writes them in one
transaction on Redis Cluster too.

A record is ``{"id", "name", "scopes", "created_at", "revoked_at"}``, and
``"rate_limit"`` when the operator gave the key limits of its own
(:meth:`KeyStore.set_limit`, ``naipes keys limit``), which replace
``NAIPES_RATE_LIMIT`` for that key (see docs/rate-limits.md).  The
secret itself is shown once, at creation, and never stored.  A lookup
finds the record by the key's digest.  Records are cached for ``CACHE_SECONDS`` per process; a
revocation made through the same process takes effect at once, one made
elsewhere within that many seconds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass

import redis
from cachetools import TTLCache
from limits import parse_many

from events.envelope import dumps, loads, now_iso

SCOPES = ("games", "tournaments", "review", "admin")
KEYS = "naipes:{keys}"
KEY_IDS = "naipes:{keys}:ids"
CACHE_SECONDS = 2.0


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class KeyRecord:
    id: str
    name: str
    scopes: frozenset
    revoked: bool = False
    revoked_at: str | None = None
    rate_limit: str | None = None  # the key's own limits, replacing the service's


ENV_PREFIX = "env-"
SEAT_TOKEN_FORM = "st_"  # how every seat token starts (service.core.identity); a key made here starts nk_
ENV_NAME = "environment key"


def env_key_id(h: str) -> str:
    return f"{ENV_PREFIX}{h[:8]}"


class KeyStore:
    def __init__(self, client: redis.Redis, bootstrap: list[str] | None = None):
        self.redis = client
        self._bootstrap = {
            digest(k): KeyRecord(env_key_id(digest(k)), ENV_NAME, frozenset(SCOPES)) for k in (bootstrap or []) if k
        }
        # whether an environment key is written like a seat token (else a seat token is never a key)
        self._seat_formed = any(k.startswith(SEAT_TOKEN_FORM) for k in (bootstrap or []) if k)
        self._cache: TTLCache = TTLCache(maxsize=4096, ttl=CACHE_SECONDS)
        self._by_id: TTLCache = TTLCache(maxsize=4096, ttl=CACHE_SECONDS)  # key id -> record (False: none)
        self._lock = threading.Lock()
        if self._bootstrap:
            try:
                self.record_environment_keys()
            except redis.RedisError:  # made on first use instead
                pass

    def record_environment_keys(self) -> None:
        """The store's record of every environment key, made if missing (never overwritten)."""
        if not self._bootstrap:
            return
        pipe = self.redis.pipeline(transaction=True)
        for h, rec in self._bootstrap.items():
            pipe.hsetnx(KEYS, h, dumps(_env_record(rec)))
            pipe.hsetnx(KEY_IDS, rec.id, h)
        pipe.execute()

    def lookup(self, secret: str | None) -> KeyRecord | None:
        """The live record of a key, or None (unknown or revoked)."""
        rec = self.find(secret)
        if rec is None or rec.revoked:
            return None
        return rec

    def find(self, secret: str | None) -> KeyRecord | None:
        """The record of a key, revoked or not, or None (not a key)."""
        if not secret:
            return None
        if secret.startswith(SEAT_TOKEN_FORM) and not self._seat_formed:
            return None  # a seat token: the store's keys all read nk_..., so no need to ask it (nor to hash it)
        h = digest(secret)
        if secret.startswith(SEAT_TOKEN_FORM) and h not in self._bootstrap:
            return None
        with self._lock:
            hit = self._cache.get(h)
        if hit is None:
            hit = self._load(h)
            with self._lock:
                self._cache[h] = hit
        return hit or None

    def _load(self, h: str) -> KeyRecord | bool:
        env = None
        for known, rec in self._bootstrap.items():
            if hmac.compare_digest(known, h):
                env = rec
        raw = self.redis.hget(KEYS, h)
        if env is not None:
            if raw is None:  # first seen, or the store was emptied
                self.record_environment_keys()
                return env
            stored = loads(raw)
            return KeyRecord(
                env.id,
                env.name,
                env.scopes,
                stored.get("revoked_at") is not None,
                stored.get("revoked_at"),
                stored.get("rate_limit"),
            )
        if not raw:
            return False
        stored = loads(raw)
        if str(stored.get("id", "")).startswith(ENV_PREFIX):
            return False  # an environment key this process was not given
        return _record(stored)

    def live_by_id(self, key_ids) -> dict[str, KeyRecord]:
        """The records of these key ids that are live (stored and not revoked), by id: what a key
        registered a webhook with is asked again when an event is handed to it.  Records are cached
        ``CACHE_SECONDS`` as a lookup's are; those not cached are read in two round trips, however
        many keys an event fans out to."""
        wanted = sorted(set(key_ids))
        found: dict[str, KeyRecord | bool] = {}
        with self._lock:
            for key_id in wanted:
                hit = self._by_id.get(key_id)
                if hit is not None:
                    found[key_id] = hit
        missing = [key_id for key_id in wanted if key_id not in found]
        if missing:
            digests = self.redis.hmget(KEY_IDS, missing)
            known = [(key_id, h.decode()) for key_id, h in zip(missing, digests) if h is not None]
            raws = self.redis.hmget(KEYS, [h for _, h in known]) if known else []
            loaded: dict[str, KeyRecord | bool] = dict.fromkeys(missing, False)
            for (key_id, _), raw in zip(known, raws):
                if raw:
                    loaded[key_id] = _record(loads(raw))
            with self._lock:
                self._by_id.update(loaded)
            found.update(loaded)
        return {key_id: rec for key_id, rec in found.items() if rec and not rec.revoked}

    def create(self, name: str, scopes: list[str], rate_limit: str | None = None) -> dict:
        if not isinstance(name, str) or not 1 <= len(name) <= 100 or not name.isprintable():
            raise ValueError("a key's name is 1 to 100 printable characters (no control character, no lone surrogate)")
        unknown = sorted(set(scopes) - set(SCOPES))
        if unknown or not scopes:
            raise ValueError(f"scopes must be some of {', '.join(SCOPES)}; got {', '.join(unknown) or 'none'}")
        secret = f"nk_{secrets.token_urlsafe(32)}"
        key_id = f"key_{secrets.token_hex(6)}"
        rec = {"id": key_id, "name": name, "scopes": sorted(set(scopes)), "created_at": now_iso(), "revoked_at": None}
        if rate_limit is not None:
            rec["rate_limit"] = rate_limit_spec(rate_limit)
        h = digest(secret)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(KEYS, h, dumps(rec))
        pipe.hset(KEY_IDS, key_id, h)
        pipe.execute()
        return {**rec, "key": secret}

    def revoke(self, key_id: str) -> dict | None:
        self.record_environment_keys()
        h = self.redis.hget(KEY_IDS, key_id)
        if h is None:
            return None
        h = h.decode()
        rec = loads(self.redis.hget(KEYS, h))
        if rec.get("revoked_at") is None:
            rec["revoked_at"] = now_iso()
            self.redis.hset(KEYS, h, dumps(rec))
        with self._lock:
            self._cache.pop(h, None)
            self._by_id.pop(key_id, None)
        return rec

    def set_limit(self, key_id: str, rate_limit: str | None) -> dict | None:
        """Give a key limits of its own (None: the service's again); the key's record, or None (no such key).
        Takes effect at once in this process, within ``CACHE_SECONDS`` in the others."""
        spec = rate_limit_spec(rate_limit) if rate_limit is not None else None
        self.record_environment_keys()
        h = self.redis.hget(KEY_IDS, key_id)
        if h is None:
            return None
        h = h.decode()
        rec = loads(self.redis.hget(KEYS, h))
        if spec is None:
            rec.pop("rate_limit", None)
        else:
            rec["rate_limit"] = spec
        self.redis.hset(KEYS, h, dumps(rec))
        with self._lock:
            self._cache.pop(h, None)
            self._by_id.pop(key_id, None)
        return rec

    def list(self) -> list[dict]:
        self.record_environment_keys()
        rows = [loads(v) for v in self.redis.hvals(KEYS)]
        return sorted(rows, key=lambda r: r["created_at"])


def _record(raw: dict) -> KeyRecord:
    return KeyRecord(
        raw["id"],
        raw.get("name", ""),
        frozenset(raw.get("scopes", ())),
        raw.get("revoked_at") is not None,
        raw.get("revoked_at"),
        raw.get("rate_limit"),
    )


MAX_LIMITS = 4


def rate_limit_spec(text: str) -> str:
    """A key's limits in the notation of ``NAIPES_RATE_LIMIT`` (``1000 per minute``, several joined by
    ``;``), checked and written back in one form; ValueError names what is wrong."""
    parts = [p.strip() for p in str(text).split(";") if p.strip()]
    if not parts or len(parts) > MAX_LIMITS:
        raise ValueError(f"give 1 to {MAX_LIMITS} limits such as '1000 per minute', separated by ';'")
    out = []
    for part in parts:
        try:
            (item,) = parse_many(part)
        except ValueError:
            raise ValueError(f"'{part[:40]}' is not a limit: write it as '1000 per minute' or '20/second'") from None
        if not 1 <= item.amount <= 10**9:
            raise ValueError(f"'{part[:40]}': the number of requests is 1 to 1000000000")
        unit = item.GRANULARITY.name
        out.append(
            f"{item.amount} per {unit}" if item.multiples == 1 else f"{item.amount} per {item.multiples} {unit}s"
        )
    return ";".join(out)


def _env_record(rec: KeyRecord) -> dict:
    return {"id": rec.id, "name": rec.name, "scopes": sorted(rec.scopes), "created_at": now_iso(), "revoked_at": None}
