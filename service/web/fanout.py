"""The live streams' fan-out: one reader per game per process, shared by every stream of the game.

The first stream of a game starts the game's :class:`Hub`: a thread (a greenlet under gunicorn's
gevent worker, whose ``threading`` is gevent's) that waits for the game's appended events (pushed on
the process's one subscription, :mod:`events.feed`; on a Redis Cluster, a blocking read of the
game's log), folds each batch of new events onto the table it holds (and hands that table to the
game cache, so the next move here finds it current), keeps the latest events in memory and wakes the
game's streams. It ends when the last stream of the game has gone. Each stream takes the hub's
:class:`Head` (a version, the table at that version, the latest events) and renders what its caller
may see of it through the one visibility decision (:mod:`service.core.sight`) and the same reads as
``GET /games/{id}`` and ``/legal-moves`` (:class:`service.core.reads.Reads`), with no other round
trip to Redis; streams that see a version alike (spectators, say) share one rendering of it. A
stream behind the events kept in memory (a resumed one) reads the log until it catches up.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from domain import table as tables
from events.envelope import dumps, verify_chain
from service.core import sight as sights
from service.core import words
from service.core.reads import Reads
from service.core.sight import Sight

log = logging.getLogger("naipes.live")

BATCH = 500  # events a stream sends at once, at most
RECENT = 512  # events a hub keeps in memory for the streams a little behind it
WAIT_SECONDS = 5.0  # a reader's blocking read, on a Redis Cluster: a hub left without streams ends within this
# ... and once its game is over: its streams end with the last event, and a reader lingering on a finished
# game would hold a Redis connection that the next game's reader then opens anew
FINISHED_WAIT_SECONDS = 0.25
TOKENS_SECONDS = 1.0  # how long a hub trusts the game's seat tokens it read, on a Redis Cluster (no feed)
# With a feed, which pushes the appends and says when the tokens change, a quiet reader looks at the log
# anyway, and trusts its copy of the tokens, this long at most: a writer that published nothing (a process
# of an earlier release, during an upgrade) is caught up with this late.  Each look costs a quiet game two
# reads in every process following it.
SAFETY_SECONDS = 30.0
TOKENS_FED_SECONDS = SAFETY_SECONDS
SHARED = 256  # renderings a version keeps for the streams that see it alike
# The readers' own reads (the log, the tokens) in one process at once, at most: a subscription made again
# tells every followed game to read at the same moment, and each concurrent read takes a connection of its
# own from the pool (a thousand games followed: a thousand connections, for a moment).
READS_AT_ONCE = 4


@dataclass(frozen=True)
class Head:
    """A game as its hub last read it."""

    version: int
    table: dict  # the table at ``version``
    recent: tuple = ()  # the latest envelopes as stored, oldest first, the last one at ``version``
    shared: dict = field(default_factory=dict, compare=False)  # renderings of this version, by what they show


class Hub:
    """The reader of one game in this process and the latest :class:`Head` it read."""

    def __init__(self, fanout: Fanout, svc, game_id: str, table: dict):
        self.fanout, self.svc, self.game_id = fanout, svc, game_id
        self.head = Head(table["version"], table)
        self.streams = 0  # counted by the fan-out, under its lock
        self.failed: BaseException | None = None
        self.changed = threading.Condition()
        self._arrived = threading.Condition()  # the feed's batches, and None: read the log
        self._inbox: list[list[dict] | None] = []
        self._nudged = False
        self._tokens: tuple[float, dict[str, int], int] = (float("-inf"), {}, 0)  # when read, what, told
        self._told = 0  # how many times the feed said to read anew
        self._looked = time.monotonic()  # when the log was last read (the feed's first word reads it)
        self._reading_tokens = threading.Lock()

    # -- the reader ------------------------------------------------------
    def run(self) -> None:
        feed = self.svc.store.feed
        try:
            if feed is not None:  # the appends pushed on the process's one subscription (events/feed.py)
                feed.follow(self.game_id, self._deliver)
            while self.fanout.keep(self):
                head = self.head
                envs = self._next(head.version)
                if not envs:
                    continue
                first = envs[0]
                if first["version"] != head.version + 1 or head.table.get("hash") not in (None, first["prev_hash"]):
                    raise RuntimeError(f"the log of game {self.game_id} changed under its streams")
                # the table this process's own append cached, else the batch folded here and cached
                table = self.svc.tables.advance(self.game_id, head.table, envs)
                with self.changed:
                    self.head = Head(table["version"], table, (head.recent + tuple(envs))[-RECENT:])
                    self.changed.notify_all()
        except Exception as exc:  # the streams end; their clients come back with Last-Event-ID
            if self.streams:
                log.exception("the reader of game %s stopped", self.game_id)
            else:  # nobody was following any more (the process is ending, say)
                log.debug("the reader of game %s stopped", self.game_id, exc_info=True)
            self.fanout.drop(self)
            with self.changed:
                self.failed = exc
                self.changed.notify_all()
        finally:
            if feed is not None:
                feed.leave(self.game_id, self._deliver)

    def _deliver(self, batch: list[dict] | None) -> None:
        """From the feed's reader: a batch of the game's appended events, or None: read the log and the
        seat tokens anew."""
        if batch is None:
            self._told += 1  # (the copy of the tokens, read before, is current no more: seat_of)
            with self.changed:  # the streams look at their credentials now (a quiet one sleeps long: live.py)
                self.changed.notify_all()
        self._take(batch)

    def _take(self, batch: list[dict] | None) -> None:
        with self._arrived:
            self._inbox.append(batch)
            self._arrived.notify()

    def _next(self, after: int) -> list[dict]:
        """The envelopes after version ``after``: those the feed pushed when they follow on ``after``,
        else (a gap, a subscription made or made again, SAFETY_SECONDS quiet) at most BATCH read from
        the log; none when woken for the last stream's leaving (:meth:`nudge`).  On a Redis Cluster, at
        most BATCH from a blocking read of the log, up to WAIT_SECONDS (FINISHED_WAIT_SECONDS once the
        game is over)."""
        if self.svc.store.feed is None:
            wait = WAIT_SECONDS if tables.outcome(self.head.table) is None else FINISHED_WAIT_SECONDS
            return self.svc.store.read_new(self.game_id, after, BATCH, int(wait * 1000))
        with self._arrived:
            if not self._inbox and not self._nudged:
                self._arrived.wait(max(0.0, SAFETY_SECONDS - (time.monotonic() - self._looked)))
            batches, self._inbox, self._nudged = self._inbox, [], False
        envs: list[dict] = []
        for batch in batches:
            if batch is None:
                break  # read the log
            for env in batch:  # what the log gave before (a subscription made again) is passed over
                if env["version"] > (envs[-1]["version"] if envs else after):
                    envs.append(env)
        else:
            if batches and self._links(after, envs):
                return envs
            if not batches and time.monotonic() - self._looked < SAFETY_SECONDS:
                return []  # nudged: the reader looks whether it has streams left
        # (quiet for SAFETY_SECONDS: the log is looked at anyway; an append that published nothing, by a
        # process of an earlier release during an upgrade, say, is not left unseen)
        self._looked = time.monotonic()
        with self.fanout.reads:
            envs = self.svc.store.read(self.game_id, after, count=BATCH)
        if len(envs) == BATCH:  # more to read: the next turn reads on (the tokens and the streams'
            self._take(None)  # credentials stand: nothing said they changed)
        return envs

    def _links(self, after: int, envs: list[dict]) -> bool:
        """Whether a pushed batch follows on the table held at ``after`` and is sealed as the log's
        events are (each hash recomputed): a message anyone able to publish on the channel could
        have sent is never taken for the log."""
        held = self.head.table.get("hash")
        if not envs or held is None or self.head.version != after:
            return not envs
        return verify_chain(envs, start_hash=held, start_version=after)["ok"]

    def nudge(self) -> None:
        """Wake the reader (its last stream has gone: it ends now, not at its next look at the log)."""
        with self._arrived:
            self._nudged = True  # (kept: the reader may be between two waits)
            self._arrived.notify()

    # -- for the streams -------------------------------------------------
    @property
    def told(self) -> int:
        """How many times the feed said to read the game anew (a change of its seat tokens among them)."""
        return self._told

    def wait(self, version: int, timeout: float, told: int | None = None) -> None:
        """Until the hub has read past ``version`` or, ``told`` given, the feed has said to read anew
        since the caller read :attr:`told`; at most ``timeout`` seconds."""
        told = self._told if told is None else told
        with self.changed:
            self.changed.wait_for(
                lambda: self.head.version > version or self.failed is not None or self._told != told, timeout
            )
        if self.failed is not None:
            raise RuntimeError(f"the reader of game {self.game_id} stopped") from self.failed

    def seat_of(self, digest: str) -> int | None:
        """The seat a token (its hash) holds now: the game's tokens as read after their last change
        (the feed says when they change) and at most TOKENS_FED_SECONDS ago, or, on a Redis Cluster,
        at most TOKENS_SECONDS ago; one read for every stream of the game."""
        # the copy is tagged with how many times the feed had said to read anew when its read began: a
        # change told since (even during the read) makes it stale, whichever thread looks
        at, found, told = self._tokens
        now = time.monotonic()
        trust = TOKENS_SECONDS if self.svc.store.feed is None else TOKENS_FED_SECONDS
        if now - at >= trust or told != self._told:
            with self._reading_tokens:  # one read for the streams that find the copy stale at once
                at, found, told = self._tokens
                if now - at >= trust or told != self._told:
                    told = self._told
                    with self.fanout.reads:
                        found = self.svc.store.tokens(self.game_id)
                    self._tokens = (now, found, told)
        return found.get(digest)

    def sight(self, head: Head, viewer) -> Sight:
        """The caller's sight of the game at ``head``: the one decision, as every read takes it."""
        return self.svc.visibility.sight(self.game_id, viewer, head.table)

    def events(self, head: Head, seen: Sight, lang: str, after: int, until: int) -> tuple[int, str]:
        """The events after ``after`` up to ``until`` (at most BATCH of them) as ``seen`` may see them,
        as SSE messages, and the version of the last one."""
        key = ("events", seen, lang, after, until)
        done = head.shared.get(key)
        if done is None:
            stored, live = self._stored(head, after, until)
            shown = sights.envelopes_for(stored, seen)
            if not shown:
                raise RuntimeError(f"the log of game {self.game_id} has no event after version {after}")
            shown = words.label_events(head.table, shown, lang)
            text = "".join(f"id: {e['version']}\nevent: {e['type']}\ndata: {dumps(e).decode()}\n\n" for e in shown)
            done = (shown[-1]["version"], text)
            if live:  # a batch of the events in memory is shared; a resumed stream's catching up is its own
                self._share(head, key, done)
        return done

    def state(self, head: Head, viewer, seen: Sight, lang: str) -> tuple[int, str, bool]:
        """The ``state`` message at ``head``: the caller's view as GET /games/{id} gives it and, when
        its seat must act, its legal moves as GET /games/{id}/legal-moves gives them; its version; and
        whether the view is the game's last (over, and no embargo holds anything back)."""
        key = ("state", seen, lang)
        done = head.shared.get(key)
        if done is None:
            reads = Reads(_AtHead(self.svc, self.game_id, head.table))
            view = reads.state_view(self.game_id, viewer)
            moves = None
            if viewer.kind == "seat" and viewer.seat in view["to_act"]:
                moves = reads.legal_moves(self.game_id, viewer, lang)
            version = view["version"] if view["embargo"] is None else view["embargo"]["version"]
            body = dumps({"version": version, "view": view, "legal_moves": moves}).decode()
            last = view["finished"] and view["embargo"] is None
            done = (version, f"id: {version}\nevent: state\ndata: {body}\n\n", last)
            self._share(head, key, done)
        return done

    @staticmethod
    def _share(head: Head, key: tuple, rendering: tuple) -> None:
        if len(head.shared) < SHARED:
            head.shared[key] = rendering

    def _stored(self, head: Head, after: int, until: int) -> tuple[list[dict], bool]:
        """Envelopes as stored with ``after < version <= until`` (at most BATCH), and whether they came
        from memory (else from the log)."""
        count = min(BATCH, until - after)
        recent = head.recent
        if recent and recent[0]["version"] <= after + 1:
            start = after + 1 - recent[0]["version"]
            return list(recent[start : start + count]), True
        return self.svc.store.read(self.game_id, after, until, count=count), False


class Fanout:
    """The hubs of one process, a game each, started by a game's first stream and ended after its last."""

    def __init__(self) -> None:
        self._hubs: dict[str, Hub] = {}
        self.reads = threading.BoundedSemaphore(READS_AT_ONCE)  # (made in the worker: gevent's, under gevent)
        self._lock = threading.Lock()

    def follow(self, svc, game_id: str) -> Hub:
        """The game's hub, started if need be, counting one more stream (see :meth:`leave`)."""
        with self._lock:
            hub = self._hubs.get(game_id)
            if hub is not None:
                hub.streams += 1
                return hub
        table = svc.tables.table(game_id)  # outside the lock: a round trip to Redis
        with self._lock:
            hub = self._hubs.get(game_id)
            if hub is None:
                hub = self._hubs[game_id] = Hub(self, svc, game_id, table)
                threading.Thread(target=hub.run, name=f"naipes-stream-{game_id}", daemon=True).start()
            hub.streams += 1
            return hub

    def leave(self, hub: Hub) -> None:
        with self._lock:
            hub.streams -= 1
            last = hub.streams == 0
        if last:
            hub.nudge()

    def keep(self, hub: Hub) -> bool:
        """Whether ``hub`` reads on: while it has streams; else it leaves the fan-out."""
        with self._lock:
            if hub.streams > 0 and self._hubs.get(hub.game_id) is hub:
                return True
            if self._hubs.get(hub.game_id) is hub:
                del self._hubs[hub.game_id]
            return False

    def drop(self, hub: Hub) -> None:
        with self._lock:
            if self._hubs.get(hub.game_id) is hub:
                del self._hubs[hub.game_id]

    def hubs(self) -> int:
        with self._lock:
            return len(self._hubs)


class _AtHead:
    """The application as a stream's reads see it: the game's table is the hub's, not read again."""

    def __init__(self, svc, game_id: str, table: dict):
        self._svc = svc
        self.tables = _TableAt(svc.tables, game_id, table)

    def __getattr__(self, name: str):
        return getattr(self._svc, name)


class _TableAt:
    """The game cache with one game's latest table fixed (every other call goes to the cache)."""

    def __init__(self, cache, game_id: str, table: dict):
        self._cache, self._game_id, self._table = cache, game_id, table

    def table(self, game_id: str, **options) -> dict:
        return self._table if game_id == self._game_id else self._cache.table(game_id, **options)

    def __getattr__(self, name: str):
        return getattr(self._cache, name)
