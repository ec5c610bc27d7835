"""The event store: one Redis stream per game, appended by one Lua script.

Every key of a game carries the hash tag ``{<game id>}`` so that all of them
live in one hash slot and the scripts run unchanged on Redis Cluster.

Keys of game ``g``:

``naipes:{g}:events``   the stream; entry id ``<version>-0``, one field ``e``
                        holding the envelope's JSON
``naipes:{g}:head``     hash: ``version`` and ``hash`` of the last event
``naipes:{g}:snap``     the folded state at ``head`` (JSON, written by the
                        application in the same script as the append)
``naipes:{g}:idem:<k>`` the first response to a request with that
                        ``Idempotency-Key`` (expires after a day)
``naipes:{g}:auth``     hash: SHA-256 of a seat token -> seat
``naipes:{g}:ckpt``     hash: replay checkpoints, the folded table at every
                        K-th version (``<tag>:<version>`` -> JSON) and the
                        highest one built (``<tag>:top``); the tag names the
                        fold's code, so a checkpoint of other code is never
                        used.  A cache: it expires unused and is rebuilt.
``naipes:{g}:live``     not a key: the channel every append is published on,
                        on one server (``events/feed.py``), and a change of
                        the seat tokens
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import redis

from .envelope import GENESIS, dumps, loads, verify_chain
from .feed import TOKENS_CHANGED, Feed, channel, publishes
from .lane import Lane

log = logging.getLogger("naipes.store")

IDEMPOTENCY_TTL = 24 * 3600
CHECKPOINT_TTL = 7 * 24 * 3600  # replay checkpoints unused this long are dropped (they are rebuilt on demand)
# Stream entry ids are 64-bit: no version can be above this, and Redis refuses
# an id beyond it, so reads past it are answered here (nothing is there).
MAX_VERSION = 2**63 - 2

# KEYS: stream, head, snapshot, idempotency (or the head key again when absent)
# ARGV: expected version, number of events n, new head hash, snapshot ('' = keep),
#       idempotency response ('' = none), idempotency ttl, channel ('' = publish nothing),
#       event 1 .. event n
# The events are published on the channel, one message, one event's JSON a line (events/feed.py).
_APPEND = """
local has_idem = ARGV[5] ~= ''
if has_idem then
  local prior = redis.call('GET', KEYS[4])
  if prior then return {2, prior} end
end
local current = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
local expected = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
if current ~= expected then
  -- this very append sent again (a connection retried after its reply was lost): its last event is
  -- stored, byte for byte, at its version; the append stands, and is answered as made.  An append
  -- with an idempotency key is known by its key (above), never by its bytes
  if not has_idem and current >= expected + n then
    local at = (expected + n) .. '-0'
    local stored = redis.call('XRANGE', KEYS[1], at, at)
    if stored[1] and stored[1][2][2] == ARGV[7 + n] then return {1, expected + n} end
  end
  return {0, current}
end
-- published before the first write: a server that refuses it (an ACL without the channel) writes
-- nothing; the subscribers get the message once the script is done
if ARGV[7] ~= '' then
  redis.call('PUBLISH', ARGV[7], n == 1 and ARGV[8] or table.concat(ARGV, '\\n', 8, 7 + n))
end
for i = 1, n do
  redis.call('XADD', KEYS[1], (expected + i) .. '-0', 'e', ARGV[7 + i])
end
redis.call('HSET', KEYS[2], 'version', expected + n, 'hash', ARGV[3])
if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4]) end
if has_idem then redis.call('SET', KEYS[4], ARGV[5], 'EX', tonumber(ARGV[6])) end
return {1, expected + n}
"""


# KEYS: head, stream; ARGV: the version the caller holds, the most events it takes
# Returns {head version} when the caller is current, behind by more than it takes or ahead of
# the head; else {head version, event, event, ...}: the events after the caller's version.
_SINCE = """
local head = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local held = tonumber(ARGV[1])
if head <= held or head - held > tonumber(ARGV[2]) then return {head} end
local out = {head}
for _, entry in ipairs(redis.call('XRANGE', KEYS[2], (held + 1) .. '-0', head .. '-0')) do
  out[#out + 1] = entry[2][2]
end
return out
"""


# KEYS: checkpoint hash; ARGV: fresh ('1': drop the hash first), top field,
#       highest version saved, ttl, then field, value, field, value ...
# The top only rises (a reader checks that the checkpoint it names is there).
_SAVE_CHECKPOINTS = """
if ARGV[1] == '1' then redis.call('DEL', KEYS[1]) end
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local top = tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '0')
if tonumber(ARGV[3]) > top then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
"""


class VersionConflict(Exception):
    def __init__(self, expected: int, current: int):
        super().__init__(f"expected version {expected}, the game is at version {current}")
        self.expected = expected
        self.current = current


@dataclass
class AppendResult:
    version: int
    replayed: bytes | None = None  # the stored first response of an idempotent retry


class AlsoFailed(redis.exceptions.RedisError):
    """The append was made (``result``), but writes ``also`` queued beside it were refused by Redis
    (``errors``, their error replies): the caller decides whether that fails its request."""

    def __init__(self, result: AppendResult, errors: list[Exception]):
        super().__init__(f"{len(errors)} write(s) beside the append failed: {errors[0]}")
        self.result = result
        self.errors = errors


def key(game_id: str, part: str) -> str:
    return f"naipes:{{{game_id}}}:{part}"


def _socket_timeout(client: Any) -> float | None:
    """The socket timeout of the client's connections (redis-py's default when none is given)."""
    if isinstance(client, redis.cluster.RedisCluster):
        kwargs = client.nodes_manager.connection_kwargs
        return kwargs.get("socket_timeout", 5.0)
    pool = client.connection_pool
    return pool.connection_class(**pool.connection_kwargs).socket_timeout  # made, not connected


class EventStore:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._append = client.register_script(_APPEND)
        self._save_checkpoints = client.register_script(_SAVE_CHECKPOINTS)
        self._since = client.register_script(_SINCE)
        self._beside: dict[str, Any] = {}  # scripts ``also`` may run beside an append, by SHA1 (beside())
        # the two scripts of every move (the head check, the append) skip the client's per-command
        # layer on a server of its own (events/lane.py)
        self._lane = Lane(client) if Lane.serves(client) else None
        # every append and token change is published to the processes following the game, which follow
        # them on one connection (events/feed.py); on a cluster nothing is: a reader blocks on the stream
        self.feed = Feed(client) if publishes(client) else None
        self._socket_timeout = _socket_timeout(client)

    def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        return self._lane.run(script, keys, args) if self._lane is not None else script(keys=keys, args=args)

    # -- writing -------------------------------------------------------
    def append(
        self,
        game_id: str,
        expected_version: int,
        envelopes: list[dict],
        *,
        snapshot: bytes | None = None,
        idempotency_key: str | None = None,
        response: bytes | None = None,
        also: Callable[[Any], None] | None = None,
    ) -> AppendResult:
        """Append ``envelopes`` if the game is at ``expected_version``.

        All checks happen before the first write, inside one script: the
        append is all or nothing.  Raises :class:`VersionConflict`.  The same
        append sent again (a connection's retry after a lost reply) is
        answered as made: its last event is stored, byte for byte, at its
        version.  (So is an append racing it that made the very same events:
        the same actor, data and millisecond stamp on the same head, a
        double-sent command, which was made once.)  With an
        ``idempotency_key`` the append is known by its key alone: a
        different key's byte-identical append is a conflict.

        ``also(pipeline)`` queues writes to keys outside the game (a global
        index) sent in the same round trip, after the script (on a Redis
        Cluster, just before it): they are not part of the append, and are
        made whether it succeeds or not.  An error reply to one of them
        after an append that was made raises :class:`AlsoFailed`, which
        carries the append's result.
        """
        if not envelopes:
            raise ValueError("nothing to append")
        for i, env in enumerate(envelopes, start=1):
            if env["version"] != expected_version + i:
                raise ValueError("envelope versions must follow the expected version")
        idem_key = key(game_id, f"idem:{idempotency_key}") if idempotency_key else key(game_id, "head")
        keys = [key(game_id, "events"), key(game_id, "head"), key(game_id, "snap"), idem_key]
        args: list[Any] = [
            expected_version,
            len(envelopes),
            envelopes[-1]["hash"],
            snapshot or b"",
            (response or b"{}") if idempotency_key else b"",
            IDEMPOTENCY_TTL,
            self.channel(game_id),
        ]
        args.extend(dumps(env) for env in envelopes)
        errors: list[Exception] = []
        if also is None:
            status, value = self._run(self._append, keys, args)
        else:
            (status, value), errors = self._append_with(keys, args, also)
        if status == 1:
            result = AppendResult(int(value))
        elif status == 2:
            result = AppendResult(-1, replayed=value)
        else:
            raise VersionConflict(expected_version, int(value))
        if errors:
            raise AlsoFailed(result, errors)
        return result

    def beside(self, text: str) -> str:
        """Register a script that ``also`` runs beside an append (``pipe.evalsha(sha, ...)``); its SHA1.
        A Redis that has forgotten it (a restart) answers the append's pipeline NoScriptError: the
        store then loads it and runs it again, after the append."""
        script = self.redis.register_script(text)
        self._beside[script.sha] = script
        return script.sha

    def _append_with(
        self, keys: list[str], args: list[Any], also: Callable[[Any], None]
    ) -> tuple[Any, list[Exception]]:
        """The append script and ``also``'s writes in one pipeline (EVALSHA: a
        pipeline running a registered script would first ask whether it is
        loaded, a round trip more): the script's reply, and the error replies
        of ``also``'s writes.  On a Redis Cluster the other keys live on other
        nodes: their writes go first (an error among them raises, before the
        append), then the script."""
        if isinstance(self.redis, redis.cluster.RedisCluster):
            pipe = self.redis.pipeline(transaction=False)
            also(pipe)
            pipe.execute()
            return self._append(keys=keys, args=args), []
        pipe = self.redis.pipeline(transaction=False)
        pipe.evalsha(self._append.sha, len(keys), *keys, *args)
        also(pipe)
        commands = [command for command, _options in pipe.command_stack]
        if self._lane is not None:  # the pipeline's commands as it queued them, sent over the lane
            results = self._lane.pipelined(commands)
        else:
            results = pipe.execute(raise_on_error=False)
        result = results[0]
        if isinstance(result, redis.exceptions.NoScriptError):  # Redis restarted without it: load it and run
            result = self._run(self._append, keys, args)
        errors: list[Exception] = []
        for command, reply in zip(commands[1:], results[1:]):  # then ``also``'s scripts it had forgotten
            if isinstance(reply, redis.exceptions.NoScriptError) and command[1] in self._beside:
                numkeys = int(command[2])
                try:
                    self._beside[command[1]](keys=command[3 : 3 + numkeys], args=command[3 + numkeys :])
                except redis.RedisError as exc:  # not part of the append, which stands
                    errors.append(exc)
            elif isinstance(reply, Exception):
                errors.append(reply)
        if isinstance(result, Exception):
            raise result
        return result, errors

    def remember_response(self, game_id: str, idempotency_key: str) -> bytes | None:
        return self.redis.get(key(game_id, f"idem:{idempotency_key}"))

    # -- reading -------------------------------------------------------
    def head(self, game_id: str) -> tuple[int, str]:
        version, h = self.redis.hmget(key(game_id, "head"), "version", "hash")
        if version is None:
            return 0, GENESIS
        return int(version), h.decode()

    def since(self, game_id: str, version: int, most: int) -> tuple[int, list[dict]]:
        """The head version and, when the log is ahead of ``version`` by at most ``most`` events,
        those events (else none), in one round trip: a reader holding the game at ``version`` learns
        whether it is current and, if a few events behind, catches up without the snapshot."""
        reply = self._run(self._since, [key(game_id, "head"), key(game_id, "events")], [version, most])
        return int(reply[0]), [loads(raw) for raw in reply[1:]]

    def head_versions(self, game_ids: list[str]) -> list[int | None]:
        """Each game's head version (None: no such game), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(key(game_id, "head"), "version")
        return [int(v) if v is not None else None for v in pipe.execute()]

    def snapshots(self, game_ids: list[str]) -> list[bytes | None]:
        """Each game's snapshot (None: none stored), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.get(key(game_id, "snap"))
        return pipe.execute()

    def exists(self, game_id: str) -> bool:
        return bool(self.redis.exists(key(game_id, "head")))

    def read(self, game_id: str, after: int = 0, until: int | None = None, count: int | None = None) -> list[dict]:
        """Envelopes with ``after < version <= until``, oldest first."""
        if after >= MAX_VERSION:
            return []
        end = f"{until}-0" if until is not None else "+"
        rows = self.redis.xrange(key(game_id, "events"), f"{after + 1}-0", end, count=count)
        return [loads(fields[b"e"]) for _id, fields in rows]

    def iter_all(self, game_id: str, batch: int = 2000, until: int | None = None) -> Iterator[dict]:
        """Every envelope (up to version ``until``), oldest first.  A reader
        that compares the log with the head reads the head first and passes
        its version here, so an append landing meanwhile is not taken for a
        gap."""
        after = 0
        while True:
            chunk = self.read(game_id, after, until=until, count=batch)
            yield from chunk
            if len(chunk) < batch:
                return
            after = chunk[-1]["version"]

    def checked_log(self, stream_id: str) -> tuple[list[dict], int, str, dict]:
        """The whole log, the head (version, hash) and the chain's check
        (:func:`~events.envelope.verify_chain`).  The head is read first and
        the events up to it, so an append landing meanwhile is not taken for
        a gap; a log that ends before its head is broken at the first
        missing version.  An empty list: no such stream."""
        head_version, head_hash = self.head(stream_id)
        envs = list(self.iter_all(stream_id, until=head_version)) if head_version else []
        if not envs:
            return [], head_version, head_hash, {}
        check = verify_chain(envs)
        if check["ok"] and (check["head"] != head_hash or envs[-1]["version"] != head_version):
            check = {
                **check,
                "ok": False,
                "broken_at": envs[-1]["version"] + 1,
                "reason": "the log ends before the recorded head (events were removed from the end)",
            }
        return envs, head_version, head_hash, check

    def _blocking_ms(self, wanted_ms: int) -> int:
        """How long one blocking read may wait: less than the connections' socket timeout (redis-py's
        default is 5 s), which would end a longer one with a TimeoutError; a longer wait is several."""
        timeout = self._socket_timeout
        if timeout is None:
            return max(1, wanted_ms)
        most = int(timeout * 1000) - 1000 if timeout > 2 else int(timeout * 500)
        return max(1, min(wanted_ms, most))

    def read_new(self, game_id: str, after: int, count: int, timeout_ms: int) -> list[dict]:
        """The envelopes after version ``after`` (at most ``count``), waiting for the first up to
        ``timeout_ms`` (less when the connections' socket timeout is shorter: see ``_blocking_ms``):
        one blocking XREAD answers with them.  A game's live reader calls it on a Redis Cluster; on
        one server it is fed by the process's subscription (``events/feed.py``)."""
        stream, start = key(game_id, "events"), f"{min(after, MAX_VERSION)}-0"
        found = self.redis.xread({stream: start}, count=count, block=self._blocking_ms(timeout_ms))
        if not found:
            return []
        # RESP2: [[name, entries]]; RESP3: {name: [entries]}
        rows = next(iter(found.values()))[0] if isinstance(found, dict) else found[0][1]
        return [loads(fields[b"e"]) for _id, fields in rows]

    def snapshot(self, game_id: str) -> bytes | None:
        return self.redis.get(key(game_id, "snap"))

    # -- replay checkpoints ----------------------------------------------
    def checkpoint(self, game_id: str, tag: str, version: int) -> tuple[int, bytes | None]:
        """The highest checkpoint version built under ``tag`` (0: none) and
        the checkpoint of ``version`` (None when not built)."""
        top, found = self.redis.hmget(key(game_id, "ckpt"), f"{tag}:top", f"{tag}:{version}")
        return (int(top) if top else 0), found

    def save_checkpoints(self, game_id: str, tag: str, tables: dict[int, bytes], *, fresh: bool = False) -> None:
        """Store checkpoints built under ``tag`` (version -> table JSON) and
        raise the tag's top to the highest of them.  ``fresh``: none of the
        tag's were there, so the checkpoints of other tags go first."""
        if not tables:
            return
        args: list[Any] = ["1" if fresh else "0", f"{tag}:top", max(tables), CHECKPOINT_TTL]
        for version, raw in sorted(tables.items()):
            args += [f"{tag}:{version}", raw]
        self._save_checkpoints(keys=[key(game_id, "ckpt")], args=args)

    # -- seat tokens ----------------------------------------------------
    def set_tokens(self, game_id: str, mapping: dict[str, int], *, replace: bool = False) -> None:
        """Store seat tokens (hashed); ``replace`` drops the game's earlier ones in the same transaction."""
        pipe = self.redis.pipeline(transaction=True)
        if replace:
            pipe.delete(key(game_id, "auth"))
        self.tokens_write(game_id, mapping)(pipe)
        pipe.execute()

    def tokens_write(self, game_id: str, mapping: dict[str, int]) -> Callable[[Any], None]:
        """:meth:`set_tokens`'s write of a game that holds none yet, queued on a pipeline it is given (a
        new game's append carries it: ``also`` of :meth:`append`)."""

        def write(pipe: Any) -> None:
            if mapping:
                pipe.hset(key(game_id, "auth"), mapping={h: str(s) for h, s in mapping.items()})
            self._tell_tokens(pipe, game_id)

        return write

    def drop_tokens(self, game_id: str, digests: list[str]) -> None:
        """Drop seat tokens (their hashes), and tell the processes following the game."""
        if not digests:
            return
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(key(game_id, "auth"), *digests)
        self._tell_tokens(pipe, game_id)
        pipe.execute()

    def channel(self, game_id: str) -> bytes:
        """The channel a script writing the game publishes on (its appends, a change of its tokens), or
        b"" where nothing is published (a Redis Cluster)."""
        return channel(game_id).encode() if self.feed is not None else b""

    def _tell_tokens(self, pipe: Any, game_id: str) -> None:
        """The processes following the game read its tokens anew (in ``pipe``, beside the change). A
        script writing tokens publishes itself, on :meth:`channel`."""
        name = self.channel(game_id)
        if name:
            pipe.publish(name, TOKENS_CHANGED)

    def tokens(self, game_id: str) -> dict[str, int]:
        return {h.decode(): int(s) for h, s in self.redis.hgetall(key(game_id, "auth")).items()}

    def game_keys(self, game_id: str) -> list[str]:
        """Every key of one game (for memory accounting and export)."""
        found = [k.decode() for k in self.redis.scan_iter(match=f"naipes:{{{game_id}}}:*", count=1000)]
        return sorted(found)
