"""A lean path for the store's hot scripts: connections of their own, no per-command layer.

Every move sends two scripts (the read's head check, the append).  Through
redis-py's client each of them also pays for the client's per-command layer:
the pool's lock and fork check, a poll of the socket before every checkout to
see that nothing is left unread on it, the deprecated-argument wrappers and
the observability hooks.  Under gevent that layer costs more than the command
itself (``bench/redis_commands.py``: 131 µs of CPU for an ``EVALSHA`` through
the client on the development machine, 58 µs on a connection of a lane).

A :class:`Lane` keeps its own idle connections, made by the client's pool's
connection class with the pool's settings (address, credentials, TLS,
timeouts, protocol, retry policy).  On one of them it runs a registered script
(``EVALSHA``, and on ``NOSCRIPT``, a server restarted or flushed, ``SCRIPT
LOAD`` and ``EVALSHA`` again, on the same connection), one command, or a few
commands in one write.  A connection error is retried by the connection's own
retry policy, as the client does, and an idle connection the server closed is
replaced once; an error that may leave a reply unread drops the connection, so
a connection handed out never has data waiting (what the client's poll
checks).  A greenlet or thread holds a connection for its command alone.

After a fork the child forgets the parent's idle connections (it never writes
to them; the parent keeps them).  Only a client of one server takes a lane: a
Redis Cluster client routes each command itself, and the store calls its
scripts through it.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import redis
from redis.commands.core import Script
from redis.exceptions import ConnectionError, NoScriptError, ResponseError

_LANES: weakref.WeakSet[Lane] = weakref.WeakSet()


def _forget_after_fork() -> None:
    for lane in list(_LANES):
        lane._idle = []


os.register_at_fork(after_in_child=_forget_after_fork)


class Lane:
    def __init__(self, client: redis.Redis):
        pool = client.connection_pool
        self._make = lambda: pool.connection_class(**pool.connection_kwargs)
        self._idle: list[Any] = []
        _LANES.add(self)

    @staticmethod
    def serves(client: Any) -> bool:
        """Whether ``client`` talks to one server through a plain connection pool (the one a URL gives:
        a pool of another kind, a blocking one that bounds its connections say, is left to do its
        work)."""
        return isinstance(client, redis.Redis) and type(client.connection_pool) is redis.ConnectionPool

    def run(self, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """``script`` with ``keys`` and ``args``, as ``script(keys=keys, args=args)`` would run it."""
        return self._on_a_connection(lambda conn: self._evalsha(conn, script, keys, args))

    def call(self, *command: Any) -> Any:
        """One command's reply as the server sent it (no parsing of the client's)."""
        return self._on_a_connection(lambda conn: self._command(conn, command))

    def pipelined(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Several commands in one write and one round trip; their replies as the server sent them, in
        order, an error reply in its place as an exception (as a pipeline's ``raise_on_error=False``)."""
        return self._on_a_connection(lambda conn: self._pipelined(conn, commands))

    def _on_a_connection(self, send: Callable[[Any], Any]) -> Any:
        idle = self._idle
        reused = bool(idle)
        conn = idle.pop() if reused else self._make()
        try:
            try:
                reply = conn.retry.call_with_retry(lambda: send(conn), lambda _error: conn.disconnect())
            except ConnectionError:
                if not reused:
                    raise
                # an idle connection the server closed (a restart, a timeout, CLIENT KILL): the client's
                # poll before a checkout finds it; here the command finds it, and goes once more on a
                # new connection (every command sent through a lane may be sent twice: reads, and the
                # append, which answers a second copy of itself as made and refuses any other)
                conn.disconnect()
                reply = send(conn)
        except ResponseError:  # a whole error reply was read: the connection is clean
            idle.append(conn)
            raise
        except BaseException:  # a reply may be left unread (a timeout, an interrupted read)
            conn.disconnect()
            raise
        idle.append(conn)
        return reply

    @staticmethod
    def _pipelined(conn: Any, commands: Sequence[Sequence[Any]]) -> list[Any]:
        conn.send_packed_command(conn.pack_commands(commands))
        replies: list[Any] = []
        for _ in commands:
            try:
                replies.append(conn.read_response())
            except ResponseError as exc:  # a whole error reply: the next replies follow it
                replies.append(exc)
        return replies

    @staticmethod
    def _command(conn: Any, command: Sequence[Any]) -> Any:
        conn.send_command(*command)
        return conn.read_response()

    @staticmethod
    def _evalsha(conn: Any, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        try:
            conn.send_command("EVALSHA", script.sha, len(keys), *keys, *args)
            return conn.read_response()
        except NoScriptError:
            conn.send_command("SCRIPT", "LOAD", script.script)
            conn.read_response()
            conn.send_command("EVALSHA", script.sha, len(keys), *keys, *args)
            return conn.read_response()
