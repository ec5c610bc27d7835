"""What the one decision of who sees what (:mod:`service.core.sight`) is given: a game's context
(owner, tournament, duplicate peers, origin), read from the store and cached."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from cachetools import LRUCache, TTLCache

from events.envelope import dumps, loads
from events.store import key
from service.core import facts
from service.core import sight as sights
from service.core.errors import ProblemError, not_found
from service.core.identity import Viewer
from service.core.sight import GameContext, Sight

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from service.core.naipes import Naipes

log = logging.getLogger("naipes.visibility")

# a field of a game's meta written before an import appends its events (:meth:`Visibility.mark_import`)
IMPORTING = "importing"


class Visibility:
    """Applies :func:`service.core.sight.decide` to a caller and a game."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes
        self._contexts: LRUCache = LRUCache(maxsize=naipes.cache_size)
        self._peer_counts: TTLCache = TTLCache(maxsize=naipes.cache_size, ttl=1.0)
        self._lock = threading.Lock()
        self._meta_writes = 0  # write_meta calls of this process: a context read across one is not kept

    def meta(self, game_id: str) -> dict:
        raw = {k.decode(): v.decode() for k, v in self.naipes.redis.hgetall(key(game_id, "meta")).items()}
        if "origin" in raw:
            raw["origin"] = loads(raw["origin"])
        return raw

    def write_meta(
        self, game_id: str, *, owner: str | None = None, tournament: str | None = None, origin: dict | None = None
    ) -> None:
        """What a game's log does not say about it: who owns it, its tournament, where it came from.  The
        copy this process keeps is dropped after the write (a read in between then caches what is stored)."""
        meta = _meta(owner, tournament, origin)
        if meta:
            self.naipes.redis.hset(key(game_id, "meta"), mapping=meta)
        with self._lock:
            self._contexts.pop(game_id, None)
            self._meta_writes += 1

    def mark_import(self, game_id: str) -> None:
        """Write, before an import without this service's seal appends its events, that the game's log comes
        from elsewhere: until its origin is written (just after the events), an export finds the mark and does
        not seal the log, and a context read in between is not kept (:meth:`context`)."""
        self.naipes.redis.hset(key(game_id, "meta"), IMPORTING, "1")

    def new_game_meta(self, game_id: str, *, owner: str | None, tournament: str | None) -> Callable[[Any], None]:
        """:meth:`write_meta` for a game made here under an id drawn for it, which no process knows before
        the creation's answer: its write, queued on a pipeline it is given (the creation's append carries
        it: ``also`` of :meth:`events.store.EventStore.append`).  Its context is what is written, and is
        kept from now (the creation's next steps read it)."""
        meta = _meta(owner, tournament, None)
        with self._lock:
            if tournament is None:
                self._contexts[game_id] = GameContext(owner=owner)
            else:
                self._contexts.pop(game_id, None)
        return lambda pipe: pipe.hset(key(game_id, "meta"), mapping=meta) if meta else None

    def context(self, game_id: str) -> GameContext:
        """Who owns a game, its tournament, and the tables dealt the same cards (cached once complete)."""
        with self._lock:
            ctx = self._contexts.get(game_id)
            writes = self._meta_writes
        if ctx is not None:
            return ctx
        meta = self.meta(game_id)
        extra = (self.naipes.tournament_context(game_id) if self.naipes.tournament_context is not None else None) or {}
        ctx = GameContext(
            owner=meta.get("owner"),
            tournament=extra.get("id") or meta.get("tournament"),
            tournament_owner=extra.get("owner"),
            peers=tuple(extra.get("peers", ())),
            duplicate=bool(extra.get("duplicate")),
            round_tables=int(extra.get("tables", 1)),
            origin=meta.get("origin"),
        )
        # kept once complete, and once the game's meta is written: an import writes it just after its events,
        # and a context read by another process in between (no owner, no origin: an imported log taken for
        # one made here) would be kept for good (a game with no meta at all, made by a library caller
        # without an owner, is read again)
        settled = any(name != IMPORTING for name in meta)  # (the import's mark alone: its origin is not written yet)
        if extra.get("complete", True) and (settled or extra):
            with self._lock:
                if self._meta_writes == writes:  # (a write since the read above: what it read may be older)
                    self._contexts[game_id] = ctx
        return ctx

    def peers_finished(self, game_id: str, ctx: GameContext) -> list[int] | None:
        """Deals finished at each other table of a duplicate round (a table not created yet: none).
        Cached a second: a stale count is never higher than the true one, so it only delays a lift."""
        if not ctx.duplicate:
            return None
        with self._lock:
            cached = self._peer_counts.get(game_id)
        if cached is not None:
            return cached
        counts = []
        for peer in ctx.peers:
            try:
                counts.append(_deals_done(self.naipes.tables.table(peer)))
            except ProblemError:
                counts.append(0)
        counts += [0] * max(0, ctx.round_tables - 1 - len(ctx.peers))
        with self._lock:
            self._peer_counts[game_id] = counts
        return counts

    def refresh_round(self, game_id: str) -> GameContext:
        """Count now the deals finished at every table of a game's duplicate round, and keep the counts as
        each table's peers' (what :meth:`peers_finished` caches): a decision made right after a table's
        end (its ``game.finished`` webhooks) sees that end, not counts cached up to a second before it.
        One read of each table of the round, whatever the number of decisions made after it."""
        ctx = self.context(game_id)
        if not ctx.duplicate:
            return ctx
        games = [game_id, *ctx.peers]
        done = {}
        for game in games:
            try:
                done[game] = _deals_done(self.naipes.tables.table(game))
            except ProblemError:
                done[game] = 0
        missing = [0] * max(0, ctx.round_tables - len(games))
        with self._lock:
            for game in games:
                self._peer_counts[game] = [done[p] for p in games if p != game] + missing
        return ctx

    def sight(self, game_id: str, viewer: Viewer, table: dict | None = None) -> Sight:
        """The one decision of what ``viewer`` may see of a game (see :mod:`service.core.sight`)."""
        return self.sight_of_each(game_id, [viewer], table)[0]

    def sight_of_each(self, game_id: str, viewers: list[Viewer], table: dict | None = None) -> list[Sight]:
        """The same decision for several callers at once (the keys a webhook event fans out to): the
        game's table, context and peers' counts are read once (from the caches above), then each
        caller's sight is decided in memory."""
        table = table or self.naipes.tables.table(game_id)
        ctx = self.context(game_id)
        peers = self.peers_finished(game_id, ctx)
        if peers is not None and "starts" not in table["deals"]:
            table = self.naipes.tables.fold_from_zero(
                game_id, table["version"]
            )  # a table folded before deals kept their starts
        finished = facts.finished(table)
        return [
            sights.decide(
                viewer.kind,
                viewer.seat,
                viewer.key_id,
                viewer.scopes,
                ctx,
                table,
                finished=finished,
                peers_finished=peers,
            )
            for viewer in viewers
        ]

    def require_full_sight(self, game_id: str, viewer: Viewer) -> Sight:
        """The whole log (audit, export): a review or admin key, or the key that owns the game or its tournament."""
        if not self.naipes.store.exists(game_id):
            raise not_found(game_id)
        found = self.sight(game_id, viewer)
        if not found.setup:  # by credential only: the whole log holds the setup secret (see service.core.sight)
            raise ProblemError(
                403,
                "Not entitled",
                "the whole log of a game is for keys with the 'review' scope "
                "and for the key that owns the game or its tournament",
                "not-entitled",
            )
        return found

    def provenance(self, game_id: str) -> dict:
        """Where a game's log was written: here, or elsewhere and imported (with who imported it)."""
        origin = self.context(game_id).origin
        return {"kind": "imported", **origin} if origin else {"kind": "native"}


EVERY_DEAL = 1 << 30  # the count of a table that will deal no more: it holds back no other table's deal


def _deals_done(table: dict) -> int:
    """How many deals a table of a duplicate round has played out, as its peers' embargo counts them: a
    finished table (its match over, or ended by a reviewer) will never play the deals it did not reach,
    so it holds none of them back (a Cripple Mr Onion match may end in fewer rounds at one table than at
    another; without this its peers' later deals stayed embargoed for good)."""
    return EVERY_DEAL if facts.finished(table) else sights.deals_finished(table)


def _meta(owner: str | None, tournament: str | None, origin: dict | None) -> dict:
    """The fields of a game's meta hash that say something."""
    meta = {"owner": owner, "tournament": tournament, "origin": dumps(origin).decode() if origin else None}
    return {k: v for k, v in meta.items() if v is not None}
