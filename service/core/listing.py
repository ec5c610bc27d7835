"""The listing of games: summaries and per-filter sorted sets, kept as games are created, joined,
finished or imported; a page at a time (see :mod:`service.core.pages`)."""

from __future__ import annotations

import logging
import time as _time
from typing import TYPE_CHECKING

from domain import table as tables
from events.envelope import dumps, loads
from events.store import key
from service.core import facts, pages
from service.core.errors import ProblemError
from service.core.identity import Viewer

if TYPE_CHECKING:
    from service.core.naipes import Naipes

INDEX = "naipes:games"  # sorted set: game id by the time it was first listed (ms); every game
INDEX_INFO = "naipes:games:info"  # hash: game id -> JSON summary
RUNNING_TIMED = "naipes:games:timed"  # set: the timed games not finished (whose deadlines the workers watch)
# sorted sets with INDEX's scores, one per filter of the listing: <BY>:type:<t>, <BY>:status:<s>,
# <BY>:type:<t>:status:<s>; <BY>:ready says they hold every game of INDEX_INFO (see Naipes.list_games)
LISTED_BY = "naipes:games:by"
# sorted set: running timed game -> when the workers' reconcile pass looks at it: the time of its last
# append until its deadlines are scheduled, then its earliest deadline (see service.core.timers.reconcile)
DUE = "naipes:games:due"
# sorted set: game -> the time of the append that finished it, until every finished-game listener ran
# (the tournament's advance, webhooks); the workers run them again for a mark left behind by a process
# that died between the append and its listeners (see service.core.appending.finish_pending)
FINISHING = "naipes:games:finishing"
FINISH_GRACE = 30.0  # seconds a finishing append's own process has to run its listeners before the workers do
# sorted set: game -> the time of the append that ended it, written beside its mark in FINISHING, until its
# end is listed (finished, or held by its round's embargo); a listing read lists the ends it finds there
# first, for the window of FINISH_GRACE (see Listing.list_pending_ends)
ENDING = "naipes:games:ending"
HELD_READY = f"{LISTED_BY}:held:ready"  # the held sets hold every held table (see Listing.backfill_held)

log = logging.getLogger("naipes.listing")


class Listing:
    """Lists games and keeps their place in the listing."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes

    # A game's summary in INDEX_INFO (its type, status, players...) and its
    # place in the sorted sets of the listing change when the game is
    # created, joined, finished, reissued or imported: not at every move.  A
    # page reads the version and the time of each of its games' latest event
    # from the games themselves (one XREVRANGE each, in the page's one
    # pipeline), so the listing shows them current at no cost to moves.
    # "open": a game waiting for players in its open seats (the lobby lists them)
    STATUSES = ("open", "active", "finished")

    LISTING_BACKFILL = 20_000  # summaries a listing request indexes while the store's sets are being filled
    PENDING_ENDS = 20  # ends not listed yet that a listing read lists before it reads, at most (the newest)

    @staticmethod
    def listing_key(game_type: str | None, status: str | None) -> str:
        """The sorted set of the listing with these filters."""
        if game_type and status:
            return f"{LISTED_BY}:type:{game_type}:status:{status}"
        if game_type:
            return f"{LISTED_BY}:type:{game_type}"
        if status:
            return f"{LISTED_BY}:status:{status}"
        return INDEX

    @staticmethod
    def held_key(game_type: str | None, owner: str | None = None) -> str:
        """The sorted set of the tables a duplicate round's embargo holds (they ended, and are listed in
        play to the keys that do not see their end): of every type or of one; every such table (for keys
        that see every game) or those of one key (its games', its tournaments')."""
        held = f"{LISTED_BY}:type:{game_type}:held" if game_type else f"{LISTED_BY}:held"
        return f"{held}:key:{owner}" if owner else held

    @classmethod
    def held_keys(cls, game_type: str, owners) -> list[str]:
        return [cls.held_key(t, o) for o in (None, *owners) for t in (None, game_type)]

    @classmethod
    def listing_keys(cls, info: dict) -> list[str]:
        """Every filtered set a summary belongs to (INDEX holds them all)."""
        held = cls.held_keys(info["game"], info.get("held_by") or ()) if info.get("held") else []
        return [
            cls.listing_key(info["game"], None),
            cls.listing_key(None, info["status"]),
            cls.listing_key(info["game"], info["status"]),
            *held,
        ]

    @classmethod
    def unlisted_keys(cls, info: dict) -> list[str]:
        """The sets of the other statuses, which a summary leaves."""
        return [
            k
            for s in cls.STATUSES
            if s != info["status"]
            for k in (cls.listing_key(None, s), cls.listing_key(info["game"], s))
        ]

    # writes a summary unless the one stored is of a later version (an _index racing a later one)
    _PUT_SUMMARY = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and ARGV[4] ~= '1' then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and tonumber(decoded['version'] or 0) > tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""

    def index(self, game_id: str, table: dict, created: bool = False, new: bool = False) -> None:
        """List a game, or move it in the listing (its status changed).  ``created``:
        a new game (or one made again under its id): its summary replaces any stored.  ``new``: a game
        made just now under an id drawn for it, never listed before: its summary and its places are
        written in one round trip."""
        ctx = self.naipes.visibility.context(game_id)
        status = self.status(table)
        held = status == "finished" and ctx.duplicate and not self._end_public(game_id, table)
        info = {
            "id": game_id,
            "game": table["game"],
            # a duplicate round's table that ended under the embargo is listed as it is seen: still in play
            "status": "active" if held else status,
            "created_at": table["created_at"],
            "updated_at": table["updated_at"],
            "version": table["version"],
            "players": facts.players(table),
            "timed": tables.timed(table),
            "provenance": "imported" if ctx.origin else "native",
            "tournament": ctx.tournament,
            "open": facts.open_seats(table),
        }
        owners = _owners_of(ctx)
        if held:  # (the keys that see its end; a key that sees every game finds it in the held set of all)
            info["held"], info["held_by"] = True, owners
        running_timed = info["timed"] and status == "active"
        pipe = self.naipes.redis.pipeline(transaction=False)
        if new:  # its summary first: a read meeting it in a set before then would pass it by
            pipe.hset(INDEX_INFO, game_id, dumps(info))
        score = pages.now_ms()
        pipe.zadd(INDEX, {game_id: score}, nx=True)  # a game keeps the place it was first listed at
        if not new:
            pipe.zscore(INDEX, game_id)
        if running_timed:
            pipe.sadd(RUNNING_TIMED, game_id)
            # should an import's deadlines fail to be written after its listing, the reconcile pass writes them
            pipe.zadd(DUE, {game_id: _time.time()}, nx=True)
        else:
            pipe.srem(RUNNING_TIMED, game_id)
            pipe.zrem(DUE, game_id)
        if new:
            self._place(pipe, game_id, info, score, status, owners)
            pipe.execute()
            return
        score = pipe.execute()[1]
        put = self.__dict__.get("_put_summary") or self.__dict__.setdefault(
            "_put_summary", self.naipes.redis.register_script(self._PUT_SUMMARY)
        )
        if not put(keys=[INDEX_INFO], args=[game_id, table["version"], dumps(info), "1" if created else "0"]):
            return  # a later version's summary is stored, and listed where it belongs
        pipe = self.naipes.redis.pipeline(transaction=False)
        self._place(pipe, game_id, info, score, status, owners)
        pipe.execute()

    def _place(self, pipe, game_id: str, info: dict, score: float, status: str, owners: list[str]) -> None:
        """Queue the writes that put a listed game in the sets of its summary, and out of the others."""
        for k in self.listing_keys(info):
            pipe.zadd(k, {game_id: int(score)})
        for k in self.unlisted_keys(info):
            pipe.zrem(k, game_id)
        if not info.get("held") and status == "finished":  # held no more (or never): out of the held sets
            self._unhold(pipe, game_id, info["game"], owners)
        if status == "finished":  # its end is listed (held by the embargo, or finished)
            pipe.zrem(ENDING, game_id)

    def _unhold(self, pipe, game_id: str, game_type: str, owners) -> None:
        """Queue the writes that take a game out of every held set it may be in."""
        for k in self.held_keys(game_type, owners):
            pipe.zrem(k, game_id)

    def _lifted(self, game_id: str) -> bool:
        """Whether a table listed as held by its round's embargo may now be listed finished (the
        embargo lifted when a peer played the deal out and went on, or two tables' ends raced), and
        if so tell its end again, as public now: listed finished (a read repairs what no append
        will), and ``game.finished`` to the keys that could not see it until now (no webhook is told
        twice).  Marked in FINISHING first, so that the workers tell it should this process fail."""
        table = self.naipes.tables.table(game_id)
        if not self._end_public(game_id, table):
            return False
        self.naipes.redis.zadd(FINISHING, {game_id: _time.time()})
        self.naipes.appender.tell_end(game_id, table)
        return True

    def relist_held_peers(self, game_id: str) -> None:
        """A deal of a duplicate round's table was played out: the round's tables listed as held by
        its embargo (they ended earlier) whose end is public now are listed again, as finished, in
        every filtered set (a read repairs only the rows it reads, and a listing filtered on
        ``finished`` never reads a row listed active), and their ``game.finished`` reaches the keys
        it could not reach before (no table's end tells it then).  One read of the peers'
        summaries, and the round's counts only when one of them is held."""
        ctx = self.naipes.visibility.context(game_id)
        if not ctx.duplicate or not ctx.peers:
            return
        raws = self.naipes.redis.hmget(INDEX_INFO, list(ctx.peers))
        held = [peer for peer, raw in zip(ctx.peers, raws) if raw and loads(raw).get("held")]
        if not held:
            return
        self.naipes.visibility.refresh_round(game_id)  # this deal counted now, not a second later
        for peer in held:
            self._lifted(peer)

    def _end_public(self, game_id: str, table: dict) -> bool:
        """Whether a key of no full sight sees a finished duplicate table at its end (the round's
        embargo lifted), by the decision every route takes."""
        return self.naipes.visibility.sight(game_id, Viewer("integrator"), table).sees_version(table["version"])

    @staticmethod
    def status(table: dict) -> str:
        """A game's status in the listing: open (waiting for players), active or finished."""
        if facts.finished(table):
            return "finished"
        return "active" if facts.started(table) else "open"

    def list_games(
        self,
        game_type: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
        cursor: str | None = None,
        viewer: Viewer | None = None,
        extra: tuple[str, ...] = (),
    ) -> dict:
        """Games newest first, ``limit`` at a time, from the sorted set of the
        filters given (its cost does not grow with the store): after ``cursor``
        (a page's ``next_cursor``), else from ``offset``.  Each game shows its
        current version and the time of its latest event, as ``viewer`` may
        see them (None: the operator, who sees every game whole)."""
        if cursor is not None and offset:
            raise ProblemError(422, "Bad page", "give cursor or offset, not both", "bad-page")
        self.list_pending_ends()
        if pages.backfill(
            self.naipes.redis,
            ready=f"{LISTED_BY}:ready",
            info=INDEX_INFO,
            every=INDEX,
            keys_of=self.listing_keys,
            budget=self.LISTING_BACKFILL,
        ):
            listed = self.listing_key(game_type, status)
        else:  # sets not filled yet (a store written before them): every game, filtered as read
            listed = INDEX

        # the tables an embargo holds are listed in play to the public; a caller who sees their end finds
        # them among the finished games (the sets of status finished and its held set, listed as one), and
        # not among those in play (passed over, and not counted)
        held = self._held_for(viewer, game_type) if listed != INDEX and status in ("active", "finished") else None

        def load(ids: list[str], scores: list[int]) -> list[dict | None]:
            return self._listing_rows(ids, scores, listed, game_type, status, viewer, extra, held)

        merged = held if status == "finished" else None
        hidden = held if status == "active" else None
        try:
            found = pages.page(
                self.naipes.redis,
                listed,
                limit=limit,
                offset=offset,
                cursor=cursor,
                load=load,
                merged=merged,
                hidden=hidden,
            )
        except pages.BadCursor as exc:
            raise ProblemError(422, "Bad cursor", str(exc), "bad-cursor") from None
        return {"total": found["total"], "games": found["rows"], "next_cursor": found["next_cursor"]}

    def backfill_held(self) -> int:
        """Put the tables held by an embargo in the held sets, once per store: those listed before the
        sets existed (their summaries name no owners).  The workers run it as they start, as they fill
        the listing's sets; a table lifted meanwhile is taken out again by the first read that meets
        it.  Returns the tables put."""
        r = self.naipes.redis
        if r.exists(HELD_READY):
            return 0
        put = 0
        for raw_id, raw in r.hscan_iter(INDEX_INFO, count=1000):
            info = loads(raw)
            if not info.get("held") or "held_by" in info:
                continue
            game_id = raw_id.decode()
            score = r.zscore(INDEX, game_id)
            if score is not None:
                pipe = r.pipeline(transaction=False)
                for k in self.held_keys(info["game"], self._owners(game_id)):
                    pipe.zadd(k, {game_id: score})
                pipe.execute()
                put += 1
        r.set(HELD_READY, 1)
        return put

    def _owners(self, game_id: str) -> list[str]:
        """The keys that own a game: its own, its tournament's."""
        return _owners_of(self.naipes.visibility.context(game_id))

    def _held_for(self, viewer: Viewer | None, game_type: str | None) -> str | None:
        """The set of the held tables whose end ``viewer`` sees (None: it sees none of them)."""
        if viewer is None or viewer.sees_all:
            return self.held_key(game_type)
        if viewer.kind == "integrator" and viewer.key_id:
            return self.held_key(game_type, viewer.key_id)
        return None

    def list_pending_ends(self) -> None:
        """List the ends of games whose last move was answered but whose end is not listed yet (its
        process lists it once the answer is sent: :mod:`service.core.afterwards`), so that a read made
        once a game's last move was answered sees it at its end, whatever connection it came on.  Only
        the listing: the end's listeners stay its process's (or, should it die, the workers').  A
        duplicate round's table is listed as its end's listeners list it: with its round's counts read
        anew, held while the embargo holds.  An entry older than ``FINISH_GRACE`` is the workers'
        (dropped here), and one whose game is not finished is an append that was refused."""
        now = _time.time()
        pipe = self.naipes.redis.pipeline(transaction=False)
        pipe.zremrangebyscore(ENDING, "-inf", now - FINISH_GRACE)
        pipe.zrevrangebyscore(ENDING, "+inf", now - FINISH_GRACE, start=0, num=self.PENDING_ENDS)
        marks = pipe.execute()[1]
        if not marks:
            return
        ids = [raw.decode() for raw in marks]
        for game_id, table in self.naipes.tables.current(ids).items():
            if table is not None and facts.finished(table):
                self.naipes.visibility.refresh_round(game_id)
                self.index(game_id, table)

    SUMMARY_FIELDS = ("id", "game", "status", "created_at", "updated_at", "version", "players", "timed", "provenance")

    def _listing_rows(
        self,
        ids: list[str],
        scores: list[int],
        listed: str,
        game_type: str | None,
        status: str | None,
        viewer: Viewer | None,
        extra: tuple[str, ...] = (),
        held: str | None = None,
    ) -> list[dict | None]:
        """The rows of a page's games (None: not in this listing), with their
        current version and time; a game found in a set its status has left
        is moved to where it belongs.  ``held``: the set of the held tables whose end the caller sees
        (listed with the finished games, passed over among those in play)."""
        pipe = self.naipes.redis.pipeline(transaction=False)
        pipe.hmget(INDEX_INFO, ids)
        for gid in ids:
            pipe.xrevrange(key(gid, "events"), count=1)
        if held is not None:
            pipe.zmscore(held, ids)
        infos, *tails = pipe.execute()
        in_held = tails.pop() if held is not None else [None] * len(ids)
        rows: list[dict | None] = []
        repair = self.naipes.redis.pipeline(transaction=False)
        for gid, score, raw, tail, marked in zip(ids, scores, infos, tails, in_held):
            info = loads(raw) if raw else None
            if info is None or not tail:  # not a game of this store (any more)
                rows.append(None)
                continue
            if marked is not None and not info.get("held"):
                # left in the held sets by a listing that lost a race with its lift: out of them, and
                # back in the sets of its summary
                self._unhold(repair, gid, info["game"], self._owners(gid))
                for k in self.listing_keys(info):
                    repair.zadd(k, {gid: score})
            seen_held = held is not None and status == "finished" and bool(info.get("held"))
            if (game_type and info["game"] != game_type) or (status and info["status"] != status and not seen_held):
                if listed != INDEX:  # listed under a status it has left: listed again where it belongs
                    repair.zrem(listed, gid)
                    for k in self.listing_keys(info):
                        repair.zadd(k, {gid: score})
                rows.append(None)
                continue
            last = loads(tail[0][1][b"e"])
            if info.get("held") and self._lifted(gid):  # listed again as finished: shown where it belongs
                if status and status != "finished":
                    rows.append(None)
                    continue
                info = {**info, "status": "finished", "held": False}
            row = {k: info[k] for k in (*self.SUMMARY_FIELDS, *extra) if k in info}
            row["version"], row["updated_at"] = last["version"], last["time"]
            # a tournament's table (a summary written before tables were named: maybe one) may be held back
            if viewer is not None and info.get("tournament", True):
                row = self._listing_sight(gid, row, viewer, bool(info.get("held")))
            elif info.get("held"):  # the operator sees every game whole
                row["status"] = "finished"
            if status and row["status"] != status:  # a held table whose end the caller sees: not in play
                rows.append(None)
                continue
            rows.append(row)
        if len(repair):
            repair.execute()
        return rows

    def _listing_sight(self, game_id: str, row: dict, viewer: Viewer, held: bool = False) -> dict:
        """A table of a duplicate round shows what its view shows the caller:
        held at the round's public horizon (see :mod:`service.core.sight`).  A table that ended under
        the embargo is listed (and filtered) as still in play; a caller who sees its end sees it
        finished."""
        if viewer.sees_all or not self.naipes.visibility.context(game_id).duplicate:
            return {**row, "status": "finished"} if held else row
        seen = self.naipes.visibility.sight(game_id, viewer)
        if seen.full or seen.horizon is None or row["version"] <= seen.horizon:
            return {**row, "status": "finished"} if held and seen.sees_version(row["version"]) else row
        at = self.naipes.store.read(game_id, seen.horizon - 1, seen.horizon)
        return {**row, "version": seen.horizon, "updated_at": at[0]["time"] if at else row["created_at"]}


def _owners_of(ctx) -> list[str]:
    """The keys that own the game of context ``ctx``: its own, its tournament's."""
    return sorted({ctx.owner, ctx.tournament_owner} - {None})
