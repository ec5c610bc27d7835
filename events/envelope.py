"""The event envelope and its hash chain.

An envelope is a JSON object with these members:

``game_id``   the game (stream) it belongs to
``version``   1, 2, 3 ... without gaps
``type``      the event type
``time``      server time of the append, ISO 8601 UTC with milliseconds
``actor``     who caused it: ``seat:<n>``, ``system``, ``worker``, ``integrator``
``data``      the public part
``private``   (optional) ``{"<seat>": {...}}``, each seat's secret part
``rules``     (optional) the rules version of the game that produced it
``salt``      (optional) 32 hex digits no viewer can guess, in every event
              with a private part: shown only to a viewer who sees the whole
              event, so that a ``hash`` shown beside a redacted event cannot be
              matched against guesses of the parts removed (a few cards, say)
``prev_hash`` the ``hash`` of the previous event (64 zeros for version 1)
``hash``      SHA-256 (hex) of ``prev_hash`` followed by the canonical JSON of
              the envelope without ``hash``

Canonical JSON: keys sorted, no insignificant white space, UTF-8.
Any change to an event, to their order, or a removed event breaks the chain
from that point on.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

import orjson

GENESIS = "0" * 64
# arrays and objects nested in one another, at most, in what the service reads (a request body, a line of a
# log to import): no body of the contract or event of a game comes near, and canonical JSON (orjson) is
# written only up to 255 levels, so a deeper value could never be hashed
MAX_DEPTH = 64


def canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(value: str) -> float:
    """Seconds since the epoch of an envelope ``time``."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def event_hash(prev_hash: str, body: dict) -> str:
    h = hashlib.sha256(prev_hash.encode())
    h.update(canonical(body))
    return h.hexdigest()


def event_salt(salt_key: bytes, game_id: str, version: int, prev_hash: str, domain_event: dict) -> str:
    """The salt of an event: keyed by a secret of the writer's, so nobody else can guess it, and a
    function of the event and its place, so the same append sent twice is the same bytes twice."""
    body = [game_id, version, prev_hash, domain_event["type"], domain_event.get("data"), domain_event.get("private")]
    return hmac.new(salt_key, canonical(body), hashlib.sha256).hexdigest()[:32]


def has_private(domain_event: dict) -> bool:
    """Which events a writer salts by default: those with a private part."""
    return bool(domain_event.get("private"))


def seal(
    game_id: str,
    version: int,
    prev_hash: str,
    domain_event: dict,
    *,
    actor: str,
    time: str,
    rules: str | None = None,
    salt: str | None = None,
) -> dict:
    """Wrap a domain event (``type``, ``data``, ``private``) in a chained envelope."""
    env: dict[str, Any] = {
        "game_id": game_id,
        "version": version,
        "type": domain_event["type"],
        "time": time,
        "actor": actor,
        "data": domain_event.get("data") or {},
        "prev_hash": prev_hash,
    }
    if domain_event.get("private"):
        env["private"] = domain_event["private"]
    if rules is not None:
        env["rules"] = rules
    if salt is not None:
        env["salt"] = salt
    env["hash"] = event_hash(prev_hash, env)
    return env


def seal_batch(
    game_id: str,
    version: int,
    prev_hash: str,
    domain_events: Iterable[dict],
    *,
    actor: str,
    time: str,
    rules: str | None = None,
    salt_key: bytes | None = None,
    salted: Callable[[dict], bool] = has_private,
) -> list[dict]:
    """Seal events one after the other; with ``salt_key``, each event ``salted`` picks gets its salt."""
    out = []
    for ev in domain_events:
        version += 1
        salt = event_salt(salt_key, game_id, version, prev_hash, ev) if salt_key and salted(ev) else None
        env = seal(game_id, version, prev_hash, ev, actor=ev.get("actor", actor), time=time, rules=rules, salt=salt)
        prev_hash = env["hash"]
        out.append(env)
    return out


def verify_chain(envelopes: Iterable[dict], *, start_hash: str = GENESIS, start_version: int = 0) -> dict:
    """Check a sequence of envelopes.

    Returns ``{"ok": bool, "checked": n, "head": hash, "broken_at": version | None,
    "reason": str | None}``; ``broken_at`` names the first broken link.
    """
    prev = start_hash
    expected = start_version + 1
    n = 0
    for env in envelopes:
        version = env.get("version")
        if version != expected:
            return {
                "ok": False,
                "checked": n,
                "head": prev,
                "broken_at": expected,
                "reason": f"expected version {expected}, found {version} (an event is missing or out of order)",
            }
        if env.get("prev_hash") != prev:
            return {
                "ok": False,
                "checked": n,
                "head": prev,
                "broken_at": version,
                "reason": f"event {version} does not point at the hash of event {version - 1}",
            }
        body = {k: v for k, v in env.items() if k != "hash"}
        if event_hash(prev, body) != env.get("hash"):
            return {
                "ok": False,
                "checked": n,
                "head": prev,
                "broken_at": version,
                "reason": f"event {version} does not match its hash (its content was changed)",
            }
        prev = env["hash"]
        expected += 1
        n += 1
    return {"ok": True, "checked": n, "head": prev, "broken_at": None, "reason": None}


def for_viewer(env: dict, seat: int | None, everything: bool = False) -> dict:
    """The envelope as a viewer may see it: other seats' private parts removed.

    The hash still covers the whole event; a viewer who lacks private parts can
    check the chain of ``prev_hash`` links but not recompute every hash.  The
    event's salt goes with the parts removed: without it, the hash of a
    redacted event cannot be matched against guesses of what was removed.
    """
    if everything or "private" not in env:
        return env
    out = dict(env)
    private = env["private"]
    key = str(seat) if seat is not None else None
    if key is not None and key in private:
        out["private"] = {key: private[key]}
    else:
        del out["private"]
    if len(private) > len(out.get("private", ())):
        out["redacted"] = True
        out.pop("salt", None)
    return out
