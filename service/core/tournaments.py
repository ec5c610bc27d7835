"""Tournaments: application code over the pure decider of :mod:`domain.tournament`.

A tournament is an aggregate of the event store like a game: id
``t-<16 hex>``, its stream ``naipes:{t-...}:events`` hash-chained by the same
envelopes.  Beside it, in the same hash slot:

``naipes:{t}:games``   hash: ``<round>:<table>`` -> the game's id reserved
                       before it is created, then the created game (id and
                       seat tokens)
``naipes:{t}:lock``    held by the one process advancing the tournament
``naipes:{t}:recheck`` hash: game id -> the game's version when a reviewer
                       changed its outcome after the end (see
                       :meth:`Tournaments.on_result_changed`)

and, global: ``naipes:tournaments`` (sorted set: id by creation time),
``naipes:tournaments:info`` (hash: id -> JSON summary),
``naipes:tournaments:games`` (hash: game id -> ``<t> <round> <table>``).

Advancing (``advance``) is idempotent; see docs/tournaments.md.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import redis
from cachetools import LRUCache
from rq import Queue, Retry
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from domain import registry
from domain import table as tables
from domain import tournament as T
from domain.base import RuleViolation
from events.envelope import GENESIS, dumps, for_viewer, loads, now_iso, seal_batch, verify_chain
from events.store import EventStore, VersionConflict, key
from service.core import catalogue, facts
from service.core import pages as listing
from service.core.errors import ProblemError
from service.core.identity import Viewer
from service.core.listing import Listing
from service.core.naipes import Naipes
from service.core.timers import DEFAULT
from service.core.webhooks import Webhooks

log = logging.getLogger("naipes.tournaments")

INDEX = "naipes:tournaments"
INDEX_INFO = "naipes:tournaments:info"
LISTED_BY = "naipes:tournaments:by"  # <LISTED_BY>:status:<s>: sorted sets with INDEX's scores; <LISTED_BY>:ready
STATUSES = ("created", "running", "finished")
GAMES = "naipes:tournaments:games"
LOCK_MS = 5000
GUARD_SECONDS = 3
MAX_RETRIES = 8
# what a process keeps of tournaments folded for reads (Tournaments._current), counted in players and
# tables (a fold's size: its state, not its log, is kept): three of the longest tournaments (512
# players, 64 rounds of 256 tables), or some three hundred of 64 players over 6 rounds
READ_CACHE_SIZE = 50_000

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# a game enters the recheck hash with the latest version that changed its outcome, and leaves it
# only if no later adjudication asked again meanwhile
_RECHECK = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or tonumber(v) < tonumber(ARGV[2]) then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0
"""
_RECHECKED = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and tonumber(v) <= tonumber(ARGV[2]) then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""
_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


def _listing_key(status: str | None) -> str:
    """The sorted set of the tournament listing with this status filter."""
    return f"{LISTED_BY}:status:{status}" if status else INDEX


class Busy(Exception):
    """Another process is advancing this tournament."""


class LostLock(Exception):
    """The lock expired while this process worked; it stops and lets the holder go on."""


def not_found(tid: str) -> ProblemError:
    return ProblemError(404, "Tournament not found", f"there is no tournament '{tid}'", "tournament-not-found")


def _problem(exc: T.TournamentError) -> ProblemError:
    status = {"invalid": 422, "conflict": 409, "unknown": 422}[exc.kind]
    return ProblemError(
        status,
        {"invalid": "Invalid tournament", "conflict": "Conflict", "unknown": "Unknown"}[exc.kind],
        exc.detail,
        exc.rule,
    )


def _always(_event: dict) -> bool:
    return True


class Tournaments:
    def __init__(self, naipes: Naipes, webhooks: Webhooks | None = None):
        self.naipes = naipes
        self.redis: redis.Redis = naipes.redis
        self.store = EventStore(self.redis)
        self.webhooks = webhooks or Webhooks(self.redis, naipes.queue_redis, keys=naipes.keys)
        self.queue = Queue(DEFAULT, connection=naipes.queue_redis)
        self._release = self.redis.register_script(_RELEASE)
        self._extend = self.redis.register_script(_EXTEND)
        self._recheck = self.redis.register_script(_RECHECK)
        self._rechecked = self.redis.register_script(_RECHECKED)
        # the reads' folds, by tournament (_Fold), the least recently read dropped first
        self._folds: LRUCache = LRUCache(maxsize=READ_CACHE_SIZE, getsizeof=_Fold.size)
        self._folds_lock = threading.Lock()

    # ------------------------------------------------------------ loading
    def load(self, tid: str) -> tuple[dict, list[dict]]:
        envs = list(self.store.iter_all(tid)) if tid.startswith("t-") else []
        if not envs:
            raise not_found(tid)
        return T.fold(envs), envs

    def _current(self, tid: str) -> _Fold:
        """The tournament as reads use it (:class:`_Fold`), at the cost of one small round trip when this
        process folded it at the head (its version and hash): a tournament's log only grows, and the
        events past the fold are read and folded onto it.  So a read costs the same whatever the length
        of the log: a long tournament read by many callers is not folded whole for each.  The fold is
        shared, and never changed but for what reads derive from it (:meth:`_seen`)."""
        if not tid.startswith("t-"):
            raise not_found(tid)
        version, head_hash, cached = self._head_and_fold(tid)
        if version == 0:
            raise not_found(tid)
        if cached is not None and cached.at(version, head_hash):
            return cached
        more = self.store.read(tid, cached.version, until=version) if cached and cached.version < version else []
        if cached and more and _follows(cached, more, version, head_hash):
            fold = cached.then(more)
            fold.public = self._public_fold(tid, fold, cached)
            return self._keep(tid, fold)
        # not the events that follow (a log that lost events and grew again): folded anew
        state, envs = self.load(tid)
        return self._kept_whole(tid, state, envs)

    def _head_and_fold(self, tid: str) -> tuple[int, str, _Fold | None]:
        """The tournament's head (version, hash; one small round trip) and this process's fold of it."""
        version, head_hash = self.store.head(tid)
        with self._folds_lock:
            return version, head_hash, self._folds.get(tid)

    def _at_head(self, tid: str) -> _Fold | None:
        """The process's fold of the tournament when it was made at the head."""
        version, head_hash, cached = self._head_and_fold(tid)
        return cached if cached is not None and cached.at(version, head_hash) else None

    def _kept_whole(self, tid: str, state: dict, envs: list[dict]) -> _Fold:
        """The fold of the whole log ``envs`` (``state`` folded from it), kept for reads."""
        fold = _Fold.of(state, envs)
        fold.public = self._public_fold(tid, fold, None, envs)
        return self._keep(tid, fold)

    def _keep(self, tid: str, fold: _Fold) -> _Fold:
        if fold.size() <= READ_CACHE_SIZE:
            with self._folds_lock:
                self._folds[tid] = fold
        return fold

    def _public_fold(
        self, tid: str, fold: _Fold, before: _Fold | None, envs: list[dict] | None = None
    ) -> tuple[dict, int, str]:
        """What anyone but the owner sees of ``fold`` (:func:`_horizon`): its state, version and
        time, at the event before the first result of a duplicate round in play.  The events up to there
        are ``envs``'s (the whole log, when it was just read), else read from the public fold ``before``
        on when it is not past it (the horizon only moves on)."""
        horizon = fold.horizon()
        if horizon is None:
            return fold.state, fold.version, fold.updated
        if envs is not None:
            return T.fold(envs[:horizon]), horizon, envs[horizon - 1]["time"]
        if before is not None and before.public is not None and before.public[1] <= horizon:
            state, version, updated = before.public
        else:
            state, version, updated = T.initial_state(), 0, fold.created
        more = self.store.read(tid, version, until=horizon) if version < horizon else []
        if more:
            state, updated = T.fold(more, state=state), more[-1]["time"]
        return state, horizon, updated

    def _append(self, tid: str, envs: list[dict], events: list[dict], actor: str) -> list[dict]:
        version, prev = (envs[-1]["version"], envs[-1]["hash"]) if envs else (0, GENESIS)
        # every event salted: a result withheld from a caller shows its hash, never something to match guesses
        # against (a table's scores and ranking have few possible values)
        salt_key = self.naipes.appender.salt_key
        sealed = seal_batch(tid, version, prev, events, actor=actor, time=now_iso(), salt_key=salt_key, salted=_always)
        self.store.append(tid, version, sealed)
        return sealed

    def _index(self, tid: str, state: dict, envs: list[dict], created: bool = False) -> None:
        """List a tournament (in INDEX and the set of its status, scored by when
        it was first listed) with its summary, as anyone may see it (its log up to
        its public horizon: :func:`_horizon`); a later summary is never
        replaced by an earlier one."""
        state, envs = _public(state, envs)
        info = {
            "id": tid,
            "name": state["name"],
            "game": state["game"],
            "format": state["format"],
            "status": T.status(state),
            "round": state["round"],
            "rounds": state["rounds"],
            "players": len(state["players"]),
            "version": envs[-1]["version"],
            "created_at": envs[0]["time"],
            "updated_at": envs[-1]["time"],
        }
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(INDEX, {tid: listing.now_ms()}, nx=True)
        pipe.zscore(INDEX, tid)
        score = pipe.execute()[1]
        put = self.__dict__.get("_put_summary") or self.__dict__.setdefault(
            "_put_summary", self.redis.register_script(Listing._PUT_SUMMARY)
        )
        if not put(keys=[INDEX_INFO], args=[tid, info["version"], dumps(info), "1" if created else "0"]):
            return
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(_listing_key(info["status"]), {tid: int(score)})
        for other in STATUSES:
            if other != info["status"]:
                pipe.zrem(_listing_key(other), tid)
        pipe.execute()

    # ------------------------------------------------------------ commands
    def create(self, viewer: Viewer, body: dict) -> dict:
        game = body["game"]
        try:
            module = registry.get(game)
        except registry.UnknownGame:
            raise ProblemError(422, "Unknown game type", f"'{game}' is not a game type", "unknown-game") from None
        options = catalogue.validate_options(game, body.get("options") or {})
        if options.get("allow_joining"):
            # a table's players are the tournament's registered players, paired by the tournament
            raise ProblemError(
                422,
                "Invalid options",
                "allow_joining: a tournament's tables take only its registered players (the tournament pairs "
                "them); leave allow_joining out",
                "invalid-options",
                field="/options/allow_joining",
            )
        size = body.get("table_size") or {}
        low = size.get("min", module.MIN_PLAYERS)
        high = size.get("max", low)
        fmt = body["format"]
        players = list(body["players"])
        rounds = body.get("rounds") or T.default_rounds(fmt, len(players), low, high)
        command = {
            "type": "create",
            "name": body.get("name") or "",
            "game": game,
            "options": options,
            "format": fmt,
            "rounds": rounds,
            "table_size": {"min": low, "max": high},
            "players": players,
            "seed": body["seed"] if body.get("seed") is not None else secrets.randbits(63),
            "bots": body.get("bots") or {},
            "owner": viewer.key_id,
            "game_min": module.MIN_PLAYERS,
            "game_max": module.MAX_PLAYERS,
        }
        try:
            events = T.decide(T.initial_state(), command)
        except T.TournamentError as exc:
            raise _problem(exc) from None
        sizes = set(T.table_sizes(len(players), low, high, equal=fmt == "duplicate"))
        self._check_sizes(game, options, sizes or {low})
        # a table seats as many search bots as it may hold of the tournament's: each table's creation would
        # refuse more, and the round would stall there
        searching = [p for p, kind in (body.get("bots") or {}).items() if kind == "search"]
        most = min(len(searching), max(sizes or {low}))
        if most > catalogue.MAX_SEARCH_SEATS:
            raise ProblemError(
                422,
                "Invalid options",
                f"bots: a table seats at most {catalogue.MAX_SEARCH_SEATS} search bots, and this tournament's "
                f"tables of up to {max(sizes or {low})} seats may seat {most} of its {len(searching)} search "
                "players; make the others heuristic or random bots",
                "invalid-options",
                rule="search-bot-seats",
                field="/bots",
            )
        tid = f"t-{secrets.token_hex(8)}"
        # its tables that may seat a search bot at once hold as many of its owner's slots (service.core.quotas)
        tables_at_once = len(T.table_sizes(len(players), low, high, equal=fmt == "duplicate")) or 1
        slots = min(len(searching), tables_at_once)
        with self.naipes.search_quota.holding(viewer.key_id, tid, slots, written=lambda: self.store.exists(tid)):
            sealed = self._append(tid, [], events, "integrator")
        self._index(tid, T.fold(sealed), sealed, created=True)
        try:
            self.advance(tid)
        except Exception:  # the tournament exists; a worker pairs it
            log.exception("could not pair the first round of %s at once; a worker will", tid)
            self.enqueue_advance(tid, "created")
        out = self.view(tid, viewer)
        out["round_detail"] = self.round(tid, 1, viewer) if out["round"] >= 1 else None
        return out

    @staticmethod
    def _check_sizes(game: str, options: dict, sizes: set[int]) -> None:
        """Every table size the tournament will use must be one the game can start with these options."""
        module = registry.get(game)
        game_opts, _timing = tables.split_options(game, options)
        for n in sorted(sizes):
            try:
                state = module.initial_state([f"p{i}" for i in range(n)], game_opts)
                module.decide(state, {"type": "start", "seat": None, "seed": 0})
            except RuleViolation as exc:
                raise ProblemError(
                    422, "Table size not playable", f"{n} players: {exc.detail}", "table-size", rule=exc.rule
                ) from None

    def withdraw(self, viewer: Viewer, tid: str, player: str) -> dict:
        for _ in range(MAX_RETRIES):
            state, envs = self.load(tid)
            self._check_owner(viewer, state)
            try:
                events = T.decide(state, {"type": "withdraw", "player": player})
            except T.TournamentError as exc:
                raise _problem(exc) from None
            try:
                sealed = self._append(tid, envs, events, "integrator")
            except VersionConflict:
                continue
            state = T.fold(sealed, state)
            self._index(tid, state, envs + sealed)
            return {"player": player, "round": events[0]["data"]["round"], "version": sealed[-1]["version"]}
        raise ProblemError(409, "Too much contention", "the tournament kept changing; try again", "contention")

    @staticmethod
    def _privileged(viewer: Viewer | None, state: dict) -> bool:
        return (
            viewer is not None
            and viewer.kind == "integrator"
            and (viewer.key_id == state.get("owner") or "admin" in viewer.scopes)
        )

    def _check_owner(self, viewer: Viewer, state: dict) -> None:
        if not self._privileged(viewer, state):
            raise ProblemError(
                403, "Not your tournament", "only the key that created the tournament may change it", "forbidden"
            )

    # ------------------------------------------------------------ advancing
    def advance(self, tid: str) -> dict:
        """Bring the tournament as far as it can go now: record the results of
        finished games, pair the next round, create its games, finish.

        Idempotent: every step reads what is already done (the tournament's
        events, the games recorded in ``naipes:{t}:games``) and appends with
        the expected version.  Raises :class:`Busy` when another process
        holds the tournament's lock.
        """
        token = secrets.token_hex(8)
        lock = key(tid, "lock")
        if not self.redis.set(lock, token, nx=True, px=LOCK_MS):
            raise Busy(tid)
        try:
            return self._advance(tid, token)
        finally:
            self._release(keys=[lock], args=[token])

    def _advance(self, tid: str, token: str) -> dict:
        done = {"paired": [], "started": [], "recorded": [], "corrected": [], "finished": False}
        state, envs = self.load(tid)
        recheck = key(tid, "recheck")
        pending = sorted(m.decode() for m in self.redis.hkeys(recheck))
        for _ in range(10_000):
            events: list[dict] = []
            while pending and not events:  # corrections first: the next pairing sees them
                events, seen = self._correction(state, pending[0])
                if not events:
                    self._rechecked(keys=[recheck], args=[pending.pop(0), seen])
            if not events and not state["finished"]:
                events = self._next_step(tid, state, token)
            if not events:
                break
            try:
                sealed = self._append(tid, envs, events, "worker")
            except VersionConflict:  # a withdrawal landed meanwhile: read again
                state, envs = self.load(tid)
                continue
            envs = envs + sealed
            state = T.fold(sealed, state)
            for ev, env in zip(events, sealed):
                d = ev["data"]
                if ev["type"] == T.ROUND_PAIRED:
                    done["paired"].append(d["round"])
                elif ev["type"] == T.TABLE_STARTED:
                    done["started"].append([d["round"], d["table"], d["game_id"]])
                elif ev["type"] == T.TABLE_RESULT:
                    done["recorded"].append([d["round"], d["table"], d["game_id"]])
                elif ev["type"] == T.TABLE_RESULT_CORRECTED:
                    done["corrected"].append([d["round"], d["table"], d["game_id"]])
                    self._rechecked(keys=[recheck], args=[pending.pop(0), d["game_version"]])
                    self._announce_correction(tid, state, d, env["version"])
                elif ev["type"] == T.TOURNAMENT_FINISHED:
                    done["finished"] = True
            self._index(tid, state, envs)
        self._announce(tid, state)
        return done

    def _correction(self, state: dict, game_id: str) -> tuple[list[dict], int]:
        """The event that records a finished table's changed outcome (none if
        it counts the same), and the game version it read."""
        table = self.naipes.tables.table(game_id, fresh=True)
        outcome = tables.outcome(table)
        for rnd in state["schedule"]:
            for tb in rnd["tables"]:
                if tb["game_id"] != game_id or tb["result"] is None or outcome is None:
                    continue  # not recorded yet: recording reads the outcome as it is then
                return T.decide(
                    state,
                    {
                        "type": "correct",
                        "round": rnd["round"],
                        "table": tb["table"],
                        "game_id": game_id,
                        "outcome": outcome,
                        "game_version": table["version"],
                    },
                ), table["version"]
        return [], table["version"]

    def _next_step(self, tid: str, state: dict, token: str) -> list[dict]:
        """Pair the next round, create a table's game, or record a finished table.  The round's games are
        all created before any is recorded, and the tables still playing are read together, at their heads
        (two round trips at most, whatever their number): a step read each of them on its own before, so
        that a round of n tables cost some n * n reads to start and to record (a 512-player round of 256
        tables: 70,000 round trips, 20 s, in the request that created it)."""
        rnd = T.current_round(state)
        if rnd is None or T.round_complete(rnd):
            return T.decide(state, {"type": "pair"})
        for tb in rnd["tables"]:
            if tb["game_id"] is None:
                created = self._game_for(tid, state, rnd, tb, token)
                return T.decide(
                    state,
                    {"type": "start_table", "round": rnd["round"], "table": tb["table"], "game_id": created["id"]},
                )
        playing = [tb for tb in rnd["tables"] if tb["result"] is None]
        found = self.naipes.tables.current([tb["game_id"] for tb in playing]) if playing else {}
        for tb in playing:
            table = found.get(tb["game_id"])
            if table is not None:
                outcome = tables.outcome(table)
                if outcome is not None:
                    return T.decide(
                        state,
                        {
                            "type": "record",
                            "round": rnd["round"],
                            "table": tb["table"],
                            "game_id": tb["game_id"],
                            "outcome": outcome,
                        },
                    )
        return []

    def _announce_correction(self, tid: str, state: dict, data: dict, version: int) -> None:
        """``result.corrected``: a table's recorded result changed, with the standings after it."""
        try:
            self.webhooks.emit(
                "result.corrected",
                f"result.corrected:{tid}:{version}",
                {
                    "tournament": tid,
                    "round": data["round"],
                    "table": data["table"],
                    "game_id": data["game_id"],
                    "points": data["points"],
                    "previous_points": data["previous_points"],
                    "standings": _standing_rows(state),
                },
                owner=state.get("owner"),
            )
        except Exception:  # the correction is recorded; the standings route shows it
            log.exception("could not hand the correction of %s to webhooks", tid)

    def _game_for(self, tid: str, state: dict, rnd: dict, tb: dict, token: str) -> dict:
        """The game of a table: the one recorded already, else a new one.

        The game's id is reserved in ``naipes:{t}:games`` before the game is
        created, and creating a game under an id that exists returns that
        game with new seat tokens: a process killed anywhere in between
        leaves the next one to finish the same game, never to make another.
        """
        field = f"{rnd['round']}:{tb['table']}"
        games = key(tid, "games")
        raw = self.redis.hget(games, field)
        record = loads(raw) if raw is not None else None
        if record is not None and record.get("seats"):
            return record
        if not self._extend(keys=[key(tid, "lock")], args=[token, LOCK_MS]):
            raise LostLock(tid)
        if record is None:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hsetnx(games, field, dumps({"id": secrets.token_hex(8), "reserved": True}))
            pipe.hget(games, field)
            record = loads(pipe.execute()[1])
        # (again after a crash: the process that reserved the id may have died before this line)
        self.redis.hset(GAMES, record["id"], f"{tid} {rnd['round']} {tb['table']}")
        # the round's deal secret mixed with the service secret: a small, public or guessed tournament
        # seed tells nobody the deals, and every table of the round still gets the same one
        extra = (
            {"deal_seed": self.naipes.secret.hex("duplicate-deal", tid, rnd["deal_seed"])}
            if rnd.get("deal_seed")
            else {}
        )
        bots = state.get("bots") or {}
        seated = {str(seat): bots[p] for seat, p in enumerate(tb["players"]) if p in bots}
        created = self.naipes.games.create_game(
            state["game"],
            tb["players"],
            {**state["options"], "bots": seated} if seated else state["options"],
            game_id=record["id"],
            owner=state.get("owner"),
            tournament=tid,
            **extra,
        )
        # the seat tokens are derived from the service secret: none is stored, the owner's view derives them
        kept = {**created, "seats": [{"seat": x["seat"], "player": x["player"]} for x in created["seats"]]}
        self.redis.hset(games, field, dumps(kept))
        return kept

    def _announce(self, tid: str, state: dict) -> None:
        """Webhooks for the round in play (once all its games exist) and for the end.
        Repeated calls enqueue nothing twice (see Webhooks.emit)."""
        owner = state.get("owner")
        rnd = T.current_round(state)
        try:
            if rnd is not None and rnd["started"]:
                self.webhooks.emit(
                    "round.paired",
                    f"round.paired:{tid}:{rnd['round']}",
                    {
                        "tournament": tid,
                        "round": rnd["round"],
                        "byes": rnd["byes"],
                        "tables": [
                            {"table": t["table"], "players": t["players"], "game_id": t["game_id"]}
                            for t in rnd["tables"]
                        ],
                    },
                    owner=owner,
                )
            if state["finished"]:
                self.webhooks.emit(
                    "tournament.finished",
                    f"tournament.finished:{tid}",
                    {"tournament": tid, "reason": state["finish_reason"], "standings": _standing_rows(state)},
                    owner=owner,
                )
        except Exception:  # the next advance announces again
            log.exception("could not hand the events of %s to webhooks", tid)

    # ------------------------------------------------------------ jobs
    def enqueue_advance(self, tid: str, reason: str) -> None:
        self.queue.enqueue(
            "workers.jobs.advance_tournament",
            tid,
            job_id=f"tadv-{tid}-{reason}",
            retry=Retry(max=3, interval=[1, 2, 4]),
            result_ttl=300,
            failure_ttl=24 * 3600,
        )

    def run_job(self, tid: str) -> dict:
        """What the worker runs: a guard job is scheduled first, so that when
        this process dies mid-way another worker takes over a few seconds
        later; it is cancelled when the work is done."""
        guard = f"tguard-{tid}-{secrets.token_hex(6)}"
        self.queue.enqueue_in(
            timedelta(seconds=GUARD_SECONDS),
            "workers.jobs.advance_tournament",
            tid,
            job_id=guard,
            result_ttl=60,
            failure_ttl=24 * 3600,
        )
        try:
            result = self.advance(tid)
        except (Busy, LostLock):
            return {"busy": True, "guard": guard}  # the guard looks again once the holder is done
        except Exception:
            self._cancel(guard)
            raise
        self._cancel(guard)
        return result

    def _cancel(self, job_id: str) -> None:
        registry_ = ScheduledJobRegistry(queue=self.queue)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(registry_.key, job_id)
        pipe.delete(Job.key_for(job_id))
        pipe.execute()

    def on_game_finished(self, game_id: str, table: dict) -> None:
        """The hook of Naipes.on_finished: advance the game's tournament, tell webhooks.

        ``game.finished`` reaches a key's webhooks once that key may see the game finished
        (:meth:`_tell_finished`).  At a duplicate round's table, the end of this game may lift the
        embargo of tables that ended before it: those are told again, and reach the keys that
        could not see them until now (a webhook already told is not told twice)."""
        ref = self.redis.hget(GAMES, game_id)
        owner = None
        if ref is not None:
            tid = ref.decode().split()[0]
            self.enqueue_advance(tid, game_id)
            owner = self._owner(tid)
        # the round's deal counts read now, for this game's decision (its webhooks', and its listing's,
        # which Appender.tell_end writes after this) and its peers' (not a second old)
        ctx = self.naipes.visibility.refresh_round(game_id)
        self._tell_finished(game_id, table, ref, owner)
        if not (ctx.duplicate and ctx.peers):
            return
        anyone = Viewer("integrator")  # a key of no full sight: the keys told at a table's end are told already
        for peer, peer_ref in zip(ctx.peers, self.redis.hmget(GAMES, list(ctx.peers))):
            try:
                peer_table = self.naipes.tables.table(peer)
            except ProblemError:  # reserved, not created yet
                continue
            if peer_ref is None or not facts.finished(peer_table):
                continue
            # while its embargo holds, no key could be told more than at the peer's own end
            if self.naipes.visibility.sight(peer, anyone, peer_table).sees_version(peer_table["version"]):
                self.naipes.listing.index(peer, peer_table)  # its end is public now: listed as finished
                self._tell_finished(peer, peer_table, peer_ref, owner)

    def _tell_finished(self, game_id: str, table: dict, ref: bytes | None, owner: str | None) -> None:
        """``game.finished`` to the webhooks whose key sees the game at its end, by the decision every
        route takes: under a duplicate round's embargo, only the tournament's owner and keys of full
        sight (``review``, ``admin``) do; the others are told once it lifts."""
        data = {
            "game_id": game_id,
            "game": table["game"],
            "result": tables.ranked(table, tables.outcome(table)),  # as the game's view shows it
            "players": list(table["state"].get("players", [])),
        }
        if ref is not None:
            tid, r, i = ref.decode().split()
            data["tournament"] = {"id": tid, "round": int(r), "table": int(i)}

        def sees(viewers: list[Viewer]) -> list[bool]:
            found = self.naipes.visibility.sight_of_each(game_id, viewers, table)
            return [sight.sees_version(table["version"]) for sight in found]

        self.webhooks.emit("game.finished", f"game.finished:{game_id}", data, owner=owner, sees=sees)

    def on_result_changed(self, game_id: str, table: dict) -> None:
        """The hook of Naipes.on_result_changed: a reviewer changed a finished
        game's outcome; if a tournament recorded it, that tournament records
        it again.  The game id waits in the tournament's recheck hash until a
        correction (or the finding that none is needed) is appended, so a
        worker killed in between loses nothing."""
        ref = self.redis.hget(GAMES, game_id)
        if ref is None:
            return
        tid = ref.decode().split()[0]
        self._recheck(keys=[key(tid, "recheck")], args=[game_id, table["version"]])
        self.enqueue_advance(tid, f"{game_id}-v{table['version']}")

    def game_context(self, game_id: str) -> dict | None:
        """What a tournament adds to a game's context (see :meth:`Visibility.context`): the
        tournament, its owner and, for a duplicate round, the round's other tables.
        ``complete`` is false while some table of the round has no game id reserved yet."""
        ref = self.redis.hget(GAMES, game_id)
        if ref is None:
            return None
        tid, r, _i = ref.decode().split()
        first = self.store.read(tid, 0, 1)
        if not first:
            return None
        created = first[0]["data"]
        out = {"id": tid, "owner": created.get("owner"), "duplicate": created.get("format") == "duplicate"}
        if not out["duplicate"]:
            return out
        state = T.fold(self.store.iter_all(tid))
        rnd = state["schedule"][int(r) - 1]
        reserved = {
            k.decode(): loads(v)["id"]
            for k, v in self.redis.hgetall(key(tid, "games")).items()
            if k.decode().startswith(f"{r}:")
        }
        out["tables"] = len(rnd["tables"])
        out["peers"] = sorted(g for g in reserved.values() if g != game_id)
        out["complete"] = len(reserved) == len(rnd["tables"])
        return out

    def _seen(self, tid: str, viewer: Viewer | None) -> tuple[dict, int, str, str, bool, dict]:
        """The tournament as ``viewer`` may see it: its state, version, creation and last event's times,
        whether it sees everything, and what reads derive from that state, kept with it (its standings:
        computed once per version).  A caller who does not see everything (anyone but the owner and
        ``admin``) sees the log up to its public horizon (:func:`_horizon`), and the state folded
        from that."""
        fold = self._current(tid)
        if self._privileged(viewer, fold.state):
            return fold.state, fold.version, fold.created, fold.updated, True, fold.derived.setdefault("full", {})
        state, version, updated = fold.public
        return state, version, fold.created, updated, False, fold.derived.setdefault("public", {})

    def _owner(self, tid: str) -> str | None:
        first = self.store.read(tid, 0, 1)
        return first[0]["data"].get("owner") if first else None

    # ------------------------------------------------------------ reading
    def view(self, tid: str, viewer: Viewer | None = None) -> dict:
        state, version, created, updated, _, _ = self._seen(tid, viewer)
        return {
            "id": tid,
            "name": state["name"],
            "game": state["game"],
            "options": state["options"],
            "format": state["format"],
            "rounds": state["rounds"],
            "table_size": state["table_size"],
            "tie_breaks": state["tie_breaks"],
            "bots": state.get("bots") or {},
            "status": T.status(state),
            "round": state["round"],
            "finish_reason": state["finish_reason"],
            "players": [{"player": p, "withdrawn": p in state["withdrawn"]} for p in state["players"]],
            "version": version,
            "created_at": created,
            "updated_at": updated,
        }

    def list(self, status: str | None, limit: int, offset: int = 0, cursor: str | None = None) -> dict:
        """Tournaments newest first, ``limit`` at a time, from the sorted set of
        the status asked (see :mod:`service.core.pages`): after ``cursor``, else
        from ``offset``."""
        if cursor is not None and offset:
            raise ProblemError(422, "Bad page", "give cursor or offset, not both", "bad-page")
        ready = listing.backfill(
            self.redis,
            ready=f"{LISTED_BY}:ready",
            info=INDEX_INFO,
            every=INDEX,
            keys_of=lambda info: [_listing_key(info["status"])],
            budget=Listing.LISTING_BACKFILL,
        )
        listed = _listing_key(status) if ready else INDEX

        def load(ids: list[str], scores: list[int]) -> list[dict | None]:
            rows: list[dict | None] = []
            stale = self.redis.pipeline(transaction=False)
            for tid, score, raw in zip(ids, scores, self.redis.hmget(INDEX_INFO, ids)):
                info = loads(raw) if raw else None
                if info is not None and status and info["status"] != status:
                    if listed != INDEX:  # listed under a status it has left: listed again where it belongs
                        stale.zrem(listed, tid)
                        stale.zadd(_listing_key(info["status"]), {tid: score})
                    info = None
                rows.append(info)
            if len(stale):
                stale.execute()
            return rows

        try:
            found = listing.page(self.redis, listed, limit=limit, offset=offset, cursor=cursor, load=load)
        except listing.BadCursor as exc:
            raise ProblemError(422, "Bad cursor", str(exc), "bad-cursor") from None
        return {"total": found["total"], "tournaments": found["rows"], "next_cursor": found["next_cursor"]}

    def standings(self, tid: str, viewer: Viewer | None = None) -> dict:
        state, version, _, _, _, derived = self._seen(tid, viewer)
        rows = derived.get("standings")
        if rows is None:  # every game's result against every opponent's: computed once per version
            rows = derived["standings"] = _standing_rows(state)
        return {
            "id": tid,
            "version": version,
            "status": T.status(state),
            "round": state["round"],
            "tie_breaks": ["points"] + state["tie_breaks"],
            "standings": rows,
        }

    def round(self, tid: str, n: int, viewer: Viewer | None) -> dict:
        state, _, _, _, secrets_, _ = self._seen(tid, viewer)
        if not 1 <= n <= len(state["schedule"]):
            raise ProblemError(
                404,
                "Round not found",
                f"round {n} has not been paired (rounds paired: {len(state['schedule'])})",
                "round-not-found",
            )
        rnd = state["schedule"][n - 1]
        created = {}
        if secrets_:
            raw = self.redis.hgetall(key(tid, "games"))
            created = {k.decode(): loads(v) for k, v in raw.items()}
        out_tables = []
        embargoed = (
            not secrets_ and state["format"] == "duplicate" and not all(t["result"] is not None for t in rnd["tables"])
        )
        for tb in rnd["tables"]:
            game = created.get(f"{n}:{tb['table']}")
            seats = [{"seat": s, "player": p} for s, p in enumerate(tb["players"])]
            if game is not None and game["id"] == tb["game_id"] and game.get("seats"):
                seats = [
                    {
                        "seat": s["seat"],
                        "player": s["player"],
                        "token": s.get("token") or self.naipes.games.tournament_seat_token(game["id"], s["seat"]),
                    }
                    for s in game["seats"]
                ]
            # a duplicate round's results say something of deals other tables may still be playing
            out_tables.append(
                {
                    "table": tb["table"],
                    "game_id": tb["game_id"],
                    "seats": seats,
                    "result": None if embargoed else tb["result"],
                }
            )
        if all(tb["result"] is not None for tb in rnd["tables"]):
            stage = "finished"
        else:
            stage = "playing" if rnd["started"] else "pairing"
        return {
            "tournament": tid,
            "round": n,
            "status": stage,
            "byes": rnd["byes"],
            "tables": out_tables,
            "tokens_included": secrets_,
        }

    def events(
        self,
        tid: str,
        viewer: Viewer | None,
        after: int = 0,
        limit: int = 1000,
        charge: Callable[[int], None] = lambda _shown: None,
    ) -> dict:
        """The log as ``viewer`` may see it, after ``after`` (at most ``limit`` events), with its chain
        checked over the whole log.  ``charge`` is told the version the caller is shown (the head, or
        the public horizon) before the log is read when this process's fold is at the head (a caller it
        refuses costs no read), else once the log is read (and its fold is then kept for the next)."""
        if not tid.startswith("t-"):
            raise not_found(tid)
        fold = self._at_head(tid)
        if fold is not None:
            charge(fold.version if self._privileged(viewer, fold.state) else fold.public[1])
        envs, head_version, head_hash, chain = self.store.checked_log(tid)
        if not envs:
            raise not_found(tid)
        state = T.fold(envs)
        if fold is None and chain.get("ok"):
            self._kept_whole(tid, state, envs)
        everything = self._privileged(viewer, state)
        if not everything:  # the log up to its public horizon, its head and its chain's check as there
            shown = _public_prefix(state, envs)
            if len(shown) < len(envs):
                head_version, head_hash = shown[-1]["version"], shown[-1]["hash"]
                # a sound log is sound up to its horizon (not hashed twice); a break is told only where
                # the caller is shown the log (its place past the horizon would tell how long the log is)
                if chain.get("ok"):
                    chain = {**chain, "checked": len(shown), "head": head_hash}
                else:
                    chain = verify_chain(shown)
        else:
            shown = envs
        if fold is None:
            charge(head_version)
        events = [for_viewer(e, None, everything) for e in shown if e["version"] > after][:limit]
        return {"id": tid, "version": head_version, "head_hash": head_hash, "chain": chain, "events": events}


_RESULTS = (T.TABLE_RESULT, T.TABLE_RESULT_CORRECTED)


@dataclass(eq=False)
class _Fold:
    """A tournament as its reads use it, at one version of its log: the state, the head (version and
    hash), the times of its first and last events, the results of rounds in play (their versions: the
    first of them is the public horizon), what the public sees of it (set by
    :meth:`Tournaments._public_fold`), and what reads derive from it (``derived``: the standings of
    each kind of caller).  The log itself is not kept."""

    state: dict
    version: int
    hash: str
    created: str
    updated: str
    in_play: tuple[tuple[int, int], ...]  # (version, round) of each result of a round not complete
    public: tuple[dict, int, str] | None = None
    derived: dict = field(default_factory=dict)

    @classmethod
    def of(cls, state: dict, envs: list[dict]) -> _Fold:
        return cls(
            state, envs[-1]["version"], envs[-1]["hash"], envs[0]["time"], envs[-1]["time"], _in_play(state, (), envs)
        )

    def then(self, more: list[dict]) -> _Fold:
        """This fold with the events that follow it."""
        state = T.fold(more, state=self.state)
        in_play = _in_play(state, self.in_play, more)
        return _Fold(state, more[-1]["version"], more[-1]["hash"], self.created, more[-1]["time"], in_play)

    def at(self, version: int, head_hash: str) -> bool:
        """Whether the fold was made at this head."""
        return (self.version, self.hash) == (version, head_hash)

    def size(self) -> int:
        """What the fold weighs in a process's cache: its players and its tables, twice when what the
        public sees of it is a state of its own (a duplicate round in play holds a result back)."""
        one = 1 + len(self.state.get("players") or ()) + sum(len(r["tables"]) for r in self.state.get("schedule") or ())
        return 2 * one if self.public is not None and self.public[0] is not self.state else one

    def horizon(self) -> int | None:
        """The last version anyone but the owner sees, when less than the head (:func:`_horizon`)."""
        return _horizon(self.state, self.in_play)


def _horizon(state: dict, in_play: tuple[tuple[int, int], ...]) -> int | None:
    """The one decision of what anyone but a tournament's owner sees of its log: in a duplicate
    tournament, a table's result (or its correction) is not public until every table of its round has
    finished (the tables were dealt the same cards, and a result tells something of them), and the log
    is shown up to the event before the first such result (``in_play``: :func:`_in_play`), not the
    result's place in the chain, nor its time, nor anything after it, so that neither its version nor
    its length tells that a table has finished.  None: nothing is held back."""
    if state["format"] != "duplicate" or not in_play:
        return None
    return in_play[0][0] - 1


def _in_play(state: dict, known: tuple[tuple[int, int], ...], more: list[dict]) -> tuple[tuple[int, int], ...]:
    """The results (version, round) of ``known`` and ``more`` whose round is not complete in ``state``
    (a complete round stays complete: its results are no longer held back)."""
    found = [*known, *((e["version"], e["data"].get("round")) for e in more if e["type"] in _RESULTS)]
    open_rounds = {r["round"] for r in state.get("schedule") or () if not T.round_complete(r)}
    return tuple((v, r) for v, r in found if r in open_rounds)


def _follows(fold: _Fold, more: list[dict], version: int, head_hash: str) -> bool:
    """Whether ``more`` are the events that follow ``fold`` up to the head (``version``, ``head_hash``)."""
    return (
        more[0]["version"] == fold.version + 1
        and more[0]["prev_hash"] == fold.hash
        and more[-1]["version"] == version
        and more[-1]["hash"] == head_hash
    )


def _public_prefix(state: dict, envs: list[dict]) -> list[dict]:
    """The tournament's whole log ``envs`` (``state`` folded from it) as anyone but its owner may see
    it: up to its public horizon (:func:`_horizon`)."""
    horizon = _horizon(state, _in_play(state, (), envs))
    if horizon is None:
        return envs
    return envs[: next((i for i, e in enumerate(envs) if e["version"] > horizon), len(envs))]


def _public(state: dict, envs: list[dict]) -> tuple[dict, list[dict]]:
    """The tournament's state and log as anyone but its owner may see them: the log up to its public
    horizon (:func:`_public_prefix`), and the state folded from that (the same state when nothing is
    held back)."""
    shown = _public_prefix(state, envs)
    return (state, envs) if len(shown) == len(envs) else (T.fold(shown), shown)


def _standing_rows(state: dict) -> list[dict]:
    return [
        {
            k: row[k]
            for k in ("rank", "player", "points", "games", "wins", "byes", "par", "opponents_points", "withdrawn")
        }
        for row in T.standings(state)
    ]


def attach_tournaments(service: Naipes) -> Tournaments:
    """Register the finished-game hook on ``service`` (once) and return the
    tournaments application over it."""
    found = getattr(service, "_tournaments", None)
    if found is not None:
        return found
    tournaments = Tournaments(service)
    service.tournament_context = tournaments.game_context
    service.search_quota.summaries["t-"] = INDEX_INFO  # a tournament's slots end with it (service.core.quotas)
    service.on_finished.append(tournaments.on_game_finished)
    service.on_result_changed.append(tournaments.on_result_changed)
    service._tournaments = tournaments  # type: ignore[attr-defined]
    return tournaments
