"""Integrator keys: scoped, stored hashed, revocable.

Keys of the environment (``NAIPES_API_KEYS``) are the operator's bootstrap
keys and hold every scope.  Further keys are created (``naipes keys create``
or ``POST /keys`` with the ``admin`` scope) and stored in Redis:

``naipes:{keys}``       hash: SHA-256 of the key -> JSON record
``naipes:{keys}:ids``   hash: key id -> SHA-256 of the key

Both share the hash tag ``{keys}``, so that a creation writes them in one
transaction on Redis Cluster too.

A record is ``{"id", "name", "scopes", "created_at", "revoked_at"}``.  The
secret itself is shown once, at creation, and never stored.  A lookup
finds the record by the key's digest and compares the digests again in
constant time.  Records are cached for ``CACHE_SECONDS`` per process; a
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


class KeyStore:
    def __init__(self, client: redis.Redis, bootstrap: list[str] | None = None):
        self.redis = client
        self._bootstrap = {digest(k): KeyRecord(f"env-{digest(k)[:8]}", "environment key", frozenset(SCOPES))
                           for k in (bootstrap or []) if k}
        self._cache: TTLCache = TTLCache(maxsize=4096, ttl=CACHE_SECONDS)
        self._lock = threading.Lock()

    def lookup(self, secret: str | None) -> KeyRecord | None:
        """The live record of a key, or None (unknown or revoked)."""
        if not secret:
            return None
        h = digest(secret)
        for known, rec in self._bootstrap.items():
            if hmac.compare_digest(known, h):
                return rec
        with self._lock:
            hit = self._cache.get(h)
        if hit is None:
            raw = self.redis.hget(KEYS, h)
            hit = _record(loads(raw)) if raw else False
            with self._lock:
                self._cache[h] = hit
        if not hit or hit.revoked:
            return None
        return hit

    def create(self, name: str, scopes: list[str]) -> dict:
        unknown = sorted(set(scopes) - set(SCOPES))
        if unknown or not scopes:
            raise ValueError(f"scopes must be some of {', '.join(SCOPES)}; got {', '.join(unknown) or 'none'}")
        secret = f"nk_{secrets.token_urlsafe(32)}"
        key_id = f"key_{secrets.token_hex(6)}"
        rec = {"id": key_id, "name": name, "scopes": sorted(set(scopes)), "created_at": now_iso(),
               "revoked_at": None}
        h = digest(secret)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(KEYS, h, dumps(rec))
        pipe.hset(KEY_IDS, key_id, h)
        pipe.execute()
        return {**rec, "key": secret}

    def revoke(self, key_id: str) -> dict | None:
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
        return rec

    def list(self) -> list[dict]:
        rows = [loads(v) for v in self.redis.hvals(KEYS)]
        return sorted(rows, key=lambda r: r["created_at"])


def _record(raw: dict) -> KeyRecord:
    return KeyRecord(raw["id"], raw.get("name", ""), frozenset(raw.get("scopes", ())),
                     raw.get("revoked_at") is not None)
