"""The service's own secret, and what is derived from it.

Some values must be unguessable even when everything public about them is
known: the deal seeds of a duplicate tournament (its ``seed`` may be small
and chosen by a person) and the seat tokens of tournament tables (kept
nowhere, rederived for the tournament's owner).  Each is an HMAC-SHA256
of the secret over a label and the public parts, so the same inputs give the
same value on every process of one deployment and nothing can be computed
without the secret.

Where the secret comes from, first found wins:

1. ``NAIPES_SECRET`` in the environment (any string of 32 characters or
   more); ``naipes start`` sets it from ``<data>/secret``, made once with
   mode 0600;
2. the Redis key ``naipes:secret``, made once with ``SET NX`` by the first
   process that needs it.  This keeps a library user or a test going, but it
   puts the secret in the same Redis (and append-only file) as the data it
   protects: set ``NAIPES_SECRET`` in production.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import secrets
from pathlib import Path

import redis
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

SECRET_KEY = "naipes:secret"
MIN_LENGTH = 32


class HouseSecret:
    def __init__(self, secret: bytes):
        if len(secret) < MIN_LENGTH:
            raise ValueError(f"the service secret must be at least {MIN_LENGTH} bytes")
        self._secret = secret

    @classmethod
    def resolve(cls, client: redis.Redis | None = None, given: str | bytes | None = None) -> HouseSecret:
        value = given if given is not None else os.environ.get("NAIPES_SECRET")
        if value:
            return cls(value.encode() if isinstance(value, str) else value)
        if client is None:
            raise RuntimeError("no service secret: set NAIPES_SECRET")
        client.set(SECRET_KEY, secrets.token_hex(32), nx=True)
        return cls(client.get(SECRET_KEY))

    def derive(self, label: str, *parts: object) -> bytes:
        message = "\x1f".join([label, *map(str, parts)]).encode()
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def hex(self, label: str, *parts: object) -> str:
        return self.derive(label, *parts).hex()

    @functools.cached_property
    def signing_key(self) -> Ed25519PrivateKey:
        """The service's Ed25519 key, derived from the secret (once): every process of a deployment signs
        alike, and anyone checks with :attr:`public_key`."""
        return Ed25519PrivateKey.from_private_bytes(self.derive("export-signing"))

    @functools.cached_property
    def public_key(self) -> str:
        """The service's public key (raw, base64): what GET /seal-key publishes."""
        raw = self.signing_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return base64.b64encode(raw).decode()

    def token(self, label: str, *parts: object) -> str:
        """A URL-safe token of 32 characters (192 bits) derived from the secret."""
        return base64.urlsafe_b64encode(self.derive(label, *parts)[:24]).decode()


def ensure_secret_file(folder: Path) -> str:
    """The deployment's secret kept in ``folder/secret`` (made once, mode 0600)."""
    path = folder / "secret"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32) + "\n")
    return path.read_text().strip()
