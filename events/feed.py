"""The appended events of the games a process follows, pushed by Redis on one connection.

The append script publishes every batch it writes on the game's channel (``naipes:{g}:live``; one
message, each event's JSON as stored, one per line), on one Redis server; a Redis Cluster would carry
every message to every node, so there the store publishes nothing and a game's reader blocks on
its stream instead (one connection for each game and process).

A process that follows games (the live streams' readers, one per game) keeps **one** connection
subscribed to their channels, however many they are. A blocking read per game would hold a
connection per game and process: thousands of followed games on each web process, against Redis's
``maxclients`` (10,000 by default). The connection is made as the store's own connections are
(``events/lane.py``): by the client's pool's connection class with its settings, with no per-command
layer between the server's message and the follower.

A change of the game's seat tokens is published there too (``TOKENS_CHANGED``): a follower is then
told to read anew what it holds (``deliver(None)``), so the streams of a game need not poll its tokens.

Pub/sub carries a message to the connections subscribed when it is published, and never again. So a
follower is told to read the log (``deliver(None)``) each time the server confirms its channel's
subscription: when it starts following, and again after the connection was lost and made anew (the
messages published meanwhile are gone; the log has them). A batch that does not follow the version
a follower holds means the same, and the follower reads the gap from the log. Messages come in the
order the server published them: per game, the order of the appends.

A forked child starts with no subscription and no connection of its own (it opens one when it first
follows a game); the parent keeps its own.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any

import redis

from .envelope import loads

log = logging.getLogger("naipes.feed")

Deliver = Callable[[list[dict] | None], None]

TOKENS_CHANGED = b"tokens"  # the message of a change of the game's seat tokens

# a quiet connection is pinged this often, and made again after a second quiet spell as long; one no game
# is followed on is closed after one (the next game followed opens it again)
PING_SECONDS = 15.0
RETRY_SECONDS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)  # waits between attempts to connect again

_FEEDS: weakref.WeakSet[Feed] = weakref.WeakSet()


def _forget_after_fork() -> None:
    for feed in list(_FEEDS):
        feed._reset()


os.register_at_fork(after_in_child=_forget_after_fork)


def channel(game_id: str) -> str:
    """The channel a game's appends are published on (in the game's key space, though not a key)."""
    return f"naipes:{{{game_id}}}:live"


def publishes(client: Any) -> bool:
    """Whether appends through ``client`` are published: on one server, not on a Redis Cluster."""
    return isinstance(client, redis.Redis)


class Feed:
    """One process's subscription to the channels of the games it follows: one follower a game."""

    def __init__(self, client: redis.Redis):
        if not publishes(client):
            raise ValueError("a Redis Cluster carries no feed: follow a game by blocking on its stream")
        pool = client.connection_pool
        self._make = lambda: pool.connection_class(**pool.connection_kwargs)
        _FEEDS.add(self)
        self._reset()

    def _reset(self) -> None:
        # (in a forked child, anew: another thread of the parent may have held it at the fork)
        self._lock = threading.Lock()  # the followers, and every write on the connection
        self._followers: dict[bytes, Deliver] = {}
        self._conn: Any = None
        self._reader: threading.Thread | None = None
        self._pid = os.getpid()
        self.connects = 0  # connections made, for the operator's metrics and the tests

    # -- the followers -----------------------------------------------------
    def follow(self, game_id: str, deliver: Deliver) -> None:
        """``deliver`` receives the game's appended events from now on, each batch as a list of
        envelopes, and None whenever it must read anew what it holds, the log and the seat tokens
        (first once the subscription holds: the events appended before it are there; then after a
        change of the tokens). It is called from the feed's reader: it must not block.
        A game has one follower in a process; a new one replaces the last."""
        name = channel(game_id).encode()
        with self._lock:
            if self._pid != os.getpid():
                self._reset()
            self._followers[name] = deliver
            if self._reader is None:  # the reader connects and subscribes every follower's channel
                self._reader = threading.Thread(target=self._read, name="naipes-feed", daemon=True)
                self._reader.start()
            else:
                self._send("SUBSCRIBE", name)

    def leave(self, game_id: str, deliver: Deliver) -> None:
        """``deliver`` follows the game no more (a later follower of the game is left alone)."""
        name = channel(game_id).encode()
        with self._lock:
            if self._followers.get(name) != deliver:  # (a bound method is made anew at each use: equal, not the same)
                return
            del self._followers[name]
            self._send("UNSUBSCRIBE", name)

    def following(self) -> int:
        with self._lock:
            return len(self._followers)

    def _send(self, *command: Any) -> None:
        """A command on the connection, under the lock. A connection being made again subscribes every
        follower's channel itself: one lost meanwhile needs nothing more."""
        if self._conn is None:
            return
        try:
            self._conn.send_command(*command, check_health=False)  # (a health check would read: the reader's)
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            log.debug("the feed's connection failed on %s", command[0], exc_info=True)

    # -- the reader ----------------------------------------------------------
    def _read(self) -> None:
        failures = 0
        while True:
            try:
                self._connect()
                failures = 0
                self._receive()  # it ended for want of followers, its connection closed
                return
            except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
                (log.debug if failures else log.warning)("the feed's connection to Redis failed: %s", exc)
            except Exception:  # a reply it could not understand: start over on a new connection
                log.exception("the feed's reader failed")
            with self._lock:
                if self._conn is not None:
                    self._conn.disconnect()
                    self._conn = None
                if not self._followers:  # nobody to tell: the next follower starts a reader again
                    self._reader = None
                    return
            threading.Event().wait(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1

    def _connect(self) -> None:
        conn = self._make()
        conn.connect()
        with self._lock:
            self._conn = conn
            self.connects += 1
            if self._followers:  # each confirmation then tells its follower to read the log
                conn.send_command("SUBSCRIBE", *self._followers, check_health=False)

    def _receive(self) -> None:
        conn, pinged = self._conn, False
        while True:
            try:
                message = conn.read_response(timeout=PING_SECONDS, disconnect_on_error=False, push_request=True)
            except redis.TimeoutError:
                with self._lock:
                    if not self._followers:  # quiet and followed by nobody: the connection goes
                        # (at once, under the lock: the next follower's reader makes one of its own)
                        conn.disconnect()
                        self._conn = self._reader = None
                        return
                    if pinged:
                        raise
                    conn.send_command("PING", check_health=False)  # answered, subscribed, as ["pong", ""]
                pinged = True
                continue
            pinged = False
            if not isinstance(message, list) or len(message) < 3:
                continue  # a PING's answer while nothing is subscribed
            kind, name, data = message[0], message[1], message[2]
            if kind == b"message":
                deliver = self._followers.get(name)
                if deliver is not None and data == TOKENS_CHANGED:
                    deliver(None)
                elif deliver is not None:
                    try:
                        batch = [loads(line) for line in data.split(b"\n")]
                    except ValueError:  # not the store's message: the log says what was appended
                        log.warning("a message on %s is not a batch of events", name)
                        batch = None
                    deliver(batch)
            elif kind == b"subscribe":  # the subscription holds from here: what came before is in the log
                deliver = self._followers.get(name)
                if deliver is not None:
                    deliver(None)
