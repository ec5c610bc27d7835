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
``prev_hash`` the ``hash`` of the previous event (64 zeros for version 1)
``hash``      SHA-256 (hex) of ``prev_hash`` followed by the canonical JSON of
              the envelope without ``hash``

Canonical JSON: keys sorted, no insignificant white space, UTF-8.
Any change to an event, to their order, or a removed event breaks the chain
from that point on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import orjson

GENESIS = "0" * 64


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


def seal(
    game_id: str,
    version: int,
    prev_hash: str,
    domain_event: dict,
    *,
    actor: str,
    time: str,
    rules: str | None = None,
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
) -> list[dict]:
    out = []
    for ev in domain_events:
        version += 1
        env = seal(game_id, version, prev_hash, ev, actor=ev.get("actor", actor), time=time, rules=rules)
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
    check the chain of ``prev_hash`` links but not recompute every hash.
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
    return out
