"""The application: load, fold, decide, append, schedule.

Routes and workers call this module; it knows no HTTP and no game by name.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import secrets
import threading
import time as _time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

import jsonschema
import redis
from cachetools import LRUCache, TTLCache

from domain import registry
from domain import table as tables
from domain.base import REVIEWER, SPECTATOR, RuleViolation
from events.envelope import GENESIS, dumps, loads, now_iso, seal_batch
from events.store import EventStore, VersionConflict, key

from service.core import ids
from service.core import pages as listing
from service.core import sight as sights
from service.core.keys import KeyStore
from service.core.house_secret import HouseSecret
from service.core.sight import GameContext, Sight
from service.core.verify import EXPORT_FORMAT, verify_export

log = logging.getLogger("naipes.application")

MAX_RETRIES = 8
MAX_IMPORT_EVENTS = 200_000
INDEX = "naipes:games"            # sorted set: game id by the time it was first listed (ms); every game
INDEX_INFO = "naipes:games:info"  # hash: game id -> JSON summary
RUNNING_TIMED = "naipes:games:timed"  # set: the timed games not finished (whose deadlines the workers watch)
# sorted sets with INDEX's scores, one per filter of the listing: <BY>:type:<t>, <BY>:status:<s>,
# <BY>:type:<t>:status:<s>; <BY>:ready says they hold every game of INDEX_INFO (see Naipes.list_games)
LISTED_BY = "naipes:games:by"
# sorted set: running timed game -> when the workers' reconcile pass looks at it: the time of its last
# append until its deadlines are scheduled, then its earliest deadline (see service.core.timers.reconcile)
DUE = "naipes:games:due"


class ProblemError(Exception):
    """An error a client can act on; the HTTP layer turns it into problem+json."""

    def __init__(self, status: int, title: str, detail: str, kind: str, **extra: Any):
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail
        self.kind = kind
        self.extra = extra


def not_found(game_id: str) -> ProblemError:
    return ProblemError(404, "Game not found", f"there is no game '{game_id}'", "game-not-found")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Viewer:
    """Who is asking: a seat of one game, a spectator or an integrator (reviewer)."""

    kind: str  # "seat" | "spectator" | "integrator"
    seat: int | None = None
    key_id: str | None = None
    scopes: frozenset = frozenset()

    @property
    def domain_viewer(self) -> int | str:
        if self.kind == "seat":
            return self.seat  # type: ignore[return-value]
        return REVIEWER if self.sees_all else SPECTATOR

    @property
    def sees_all(self) -> bool:
        """Whether the credential sees every card of every game (review or admin scope).

        What a caller sees of one game is decided by :meth:`Naipes.sight`;
        the key that owns a game (or its tournament) sees all of it too."""
        return self.kind == "integrator" and bool({"review", "admin"} & self.scopes)


SPECTATOR_VIEWER = Viewer("spectator")


class Naipes:
    def __init__(self, client: redis.Redis, *, api_keys: list[str] | None = None,
                 scheduler: Callable[[dict, dict], None] | None = None, cache_size: int = 4096,
                 queue_client: redis.Redis | None = None, secret: str | bytes | None = None):
        self.redis = client
        self._given_secret = secret
        self._secret: HouseSecret | None = None
        self._contexts: LRUCache = LRUCache(maxsize=cache_size)
        self._peer_counts: TTLCache = TTLCache(maxsize=cache_size, ttl=1.0)
        self._recent_fold_tables: LRUCache = LRUCache(maxsize=self.REPLAY_CACHE)  # replays' tables
        # set by the tournaments application: (game id) -> what a tournament adds to a game's context
        self.tournament_context: Callable[[str], dict | None] | None = None
        # RQ's Redis (turn deadlines, tournament jobs, webhooks): the data's Redis unless that is a cluster
        self.queue_redis = queue_client if queue_client is not None else client
        self.store = EventStore(client)
        self.keys = KeyStore(client, api_keys)
        self._cache: LRUCache = LRUCache(maxsize=cache_size)
        self._auth: LRUCache = LRUCache(maxsize=cache_size)
        self._lock = threading.Lock()
        # called after every successful append with (old table, new table, game id)
        self.scheduler = scheduler
        # called with (game id, table) once a game has reached its end
        self.on_finished: list[Callable[[str, dict], None]] = []
        # called with (game id, table after) when a finished game's outcome changes (an adjudication)
        self.on_result_changed: list[Callable[[str, dict], None]] = []
        # called with (game id, table before, seat) after a deadline timed a seat out
        self.on_timeout: list[Callable[[str, dict, int], None]] = []

    @property
    def secret(self) -> HouseSecret:
        """Derives duplicate deal seeds and tournament tables' seat tokens (see service.core.house_secret);
        resolved on first use, so that a process starts while Redis is away."""
        if self._secret is None:
            self._secret = HouseSecret.resolve(self.redis, self._given_secret)
        return self._secret

    # ------------------------------------------------------------ identity
    def integrator(self, key: str | None) -> Viewer | None:
        rec = self.keys.lookup(key)
        if rec is None:
            return None
        return Viewer("integrator", key_id=rec.id, scopes=rec.scopes)

    def require(self, credential: str | None, scope: str, *alternatives: str) -> Viewer:
        """An integrator key holding ``scope`` (or one of ``alternatives``), or a 401/403 problem."""
        if not credential:
            raise ProblemError(401, "Integrator key required",
                               "this operation needs an integrator key as bearer token", "unauthorized")
        viewer = self.integrator(credential)
        if viewer is None:
            raise ProblemError(401, "Unknown credential", "the bearer token is not a live integrator key "
                               "(a seat token is not one)", "unauthorized")
        if not viewer.scopes & {scope, *alternatives}:
            named = " or ".join(f"'{s}'" for s in (scope, *alternatives))
            raise ProblemError(403, "Scope missing", f"this key lacks the {named} scope", "scope-missing",
                               scope=scope, scopes=[scope, *alternatives])
        return viewer

    def seat_for_token(self, game_id: str, token: str) -> int | None:
        h = token_hash(token)
        with self._lock:
            tokens = self._auth.get(game_id)
        if tokens is None or h not in tokens:
            tokens = self.store.tokens(game_id)
            with self._lock:
                self._auth[game_id] = tokens
        return tokens.get(h)

    def viewer(self, game_id: str | None, credential: str | None, *, seat_only: bool = False) -> Viewer:
        """Resolve a bearer credential: integrator key, seat token, or nothing.

        ``seat_only``: the operation is a seat's (a move, its legal moves): no credential is a 401
        and an integrator key a 403.  A credential that is no key, sent to a game that does not
        exist, is answered 404 (as a seat token of that game would be)."""
        if not credential:
            if seat_only:
                raise ProblemError(401, "Seat token required", "this operation is a seat's: send the seat's token "
                                   "as bearer token", "unauthorized")
            return SPECTATOR_VIEWER
        found = self.integrator(credential)
        if found:
            if seat_only:
                raise ProblemError(403, "Seat token required", "this operation is a seat's: send the seat's token "
                                   "(an integrator key acts for no seat)", "seat-required")
            return found
        if game_id is not None:
            seat = self.seat_for_token(game_id, credential)
            if seat is not None:
                return Viewer("seat", seat=seat)
            if not self.store.exists(game_id):
                raise not_found(game_id)
        raise ProblemError(401, "Unknown credential",
                           "the bearer token is neither an integrator key nor a seat token of this game",
                           "unauthorized")

    # ------------------------------------------------------------ catalogue
    @staticmethod
    def game_types() -> list[dict]:
        out = []
        for gid, module in registry.all_games().items():
            props = {**module.OPTIONS.get("properties", {}), **tables.TABLE_OPTIONS}
            out.append({
                "id": gid,
                "title": module.TITLE,
                "rules_version": module.RULES_VERSION,
                "min_players": module.MIN_PLAYERS,
                "max_players": module.MAX_PLAYERS,
                "options": {name: dict(spec) for name, spec in props.items()},
                "constraints": [dict(c) for c in _constraints(gid)[0]],
            })
        return out

    @staticmethod
    def validate_options(game_type: str, options: dict) -> dict:
        """The options with their defaults filled in, or a 422 naming what is wrong: an unknown
        option (naming the game's options), a value its schema refuses, or a constraint of
        GET /game-types that the options alone break (``rule`` names it)."""
        schema, validator = _options_validator(game_type)
        errors = list(validator.iter_errors(options))
        # a const error comes from an if/then between options: the constraint naming it says why
        error = jsonschema.exceptions.best_match(e for e in errors if e.validator != "const")
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "options"
            message = error.message
            if error.validator == "additionalProperties":
                message = f"{error.message}; the options of {game_type} are {', '.join(schema['properties'])}"
            raise ProblemError(422, "Invalid options", f"{where}: {message}", "invalid-options")
        filled = {name: spec.get("default") for name, spec in schema["properties"].items()}
        filled.update(options)
        constraints, check = _constraints(game_type)
        for constraint, holds in zip(constraints, check):
            if constraint["on"] == ["options"] and not holds({"options": filled}):
                raise ProblemError(422, "Invalid options", f"{constraint['id']}: {constraint['description']}",
                                   "invalid-options", rule=constraint["id"])
        if errors:  # an if/then of the options' schema that no constraint names
            where = ".".join(str(p) for p in errors[0].absolute_path) or "options"
            spec = schema["properties"].get(where, {})
            raise ProblemError(422, "Invalid options", f"{where}: {dumps(errors[0].instance).decode()} is not "
                               "allowed together with the other options given "
                               f"({spec.get('description', 'see GET /game-types')})", "invalid-options")
        return filled

    # ------------------------------------------------------------ creation
    def create_game(self, game_type: str, players: list[str], options: dict | None = None,
                    *, seed: int | None = None, deal_seed: str | None = None, game_id: str | None = None,
                    owner: str | None = None, tournament: str | None = None) -> dict:
        """Create and start a game.  Games created with the same ``deal_seed``
        are dealt the same cards, deal by deal (duplicate play); the secret is
        kept in a private part of ``GameCreated`` that no seat receives.

        ``game_id``: the id to use, reserved by the caller beforehand (a
        tournament table).  If a game of that id exists already, an earlier
        attempt created it and its answer (the seat tokens, stored only
        hashed) was lost: the seats get new tokens and the game is returned,
        so that a retried creation never makes a second game.

        ``owner``: the key id that sees the whole game (see
        :mod:`service.core.sight`).  ``tournament``: the tournament whose table
        this is; its seats' tokens are derived from the service secret, so
        the tournament's owner can be shown them again and no copy is
        stored."""
        if game_id is not None and not ids.is_game_id(game_id):
            raise ProblemError(422, "Bad game id", ids.describe_game_id(), "bad-game-id")
        if game_id is not None and self.store.exists(game_id):
            return self._reissue(game_id)
        try:
            module = registry.get(game_type)
        except registry.UnknownGame:
            known = ", ".join(registry.GAME_MODULES)
            raise ProblemError(422, "Unknown game type", f"'{game_type}' is not a game type (known: {known})",
                               "unknown-game") from None
        if not (module.MIN_PLAYERS <= len(players) <= module.MAX_PLAYERS):
            raise ProblemError(422, "Wrong number of players",
                               f"{module.TITLE} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, "
                               f"got {len(players)}", "player-count")
        opts = self.validate_options(game_type, options or {})
        given = game_id is not None
        game_id = game_id or secrets.token_hex(8)
        created = tables.created_event(game_type, list(players), opts, module.RULES_VERSION)
        if deal_seed is not None:
            created["private"] = {"setup": {"deal_seed": str(deal_seed)}}
        table = tables.evolve(None, {**created, "version": 1, "hash": "", "time": now_iso(), "actor": "integrator"})
        try:
            start = module.decide(table["state"], {"type": "start", "seat": None,
                                                   "seed": seed if seed is not None else _seed(table)})
        except RuleViolation as exc:  # e.g. options that do not fit the player count
            raise ProblemError(422, "Game cannot start", exc.detail, "cannot-start", rule=exc.rule) from None
        stamp = now_iso()
        envs = seal_batch(game_id, 0, GENESIS, [dict(created, actor="integrator")], actor="integrator",
                          time=stamp, rules=module.RULES_VERSION)
        table = tables.fold(envs)
        more, table = self._append_events(game_id, table, start, actor="system", stamp=stamp)
        envs += more
        envs, table = self._settle(game_id, envs, table, stamp)
        self._write_meta(game_id, owner=owner, tournament=tournament)
        seats = self._new_tokens(game_id, list(players), replace=given)
        try:
            self._commit(game_id, None, table, envs)
        except VersionConflict:
            if not given:
                raise
            return self._reissue(game_id)  # created meanwhile by another attempt with this id
        self._index(game_id, table, created=True)
        return {"id": game_id, "game": game_type, "version": table["version"], "seats": seats}

    def _write_meta(self, game_id: str, *, owner: str | None = None, tournament: str | None = None,
                    origin: dict | None = None) -> None:
        """What a game's log does not say about it: who owns it, its tournament, where it came from."""
        meta = {"owner": owner, "tournament": tournament, "origin": dumps(origin).decode() if origin else None}
        meta = {k: v for k, v in meta.items() if v is not None}
        if meta:
            self.redis.hset(key(game_id, "meta"), mapping=meta)
        with self._lock:
            self._contexts.pop(game_id, None)

    def meta(self, game_id: str) -> dict:
        raw = {k.decode(): v.decode() for k, v in self.redis.hgetall(key(game_id, "meta")).items()}
        if "origin" in raw:
            raw["origin"] = loads(raw["origin"])
        return raw

    def tournament_seat_token(self, game_id: str, seat: int) -> str:
        """The seat token of a tournament table, derived from the service secret (never stored)."""
        return "st_" + self.secret.token("tournament-seat", game_id, seat)

    def _new_tokens(self, game_id: str, players: list[str], *, replace: bool) -> list[dict]:
        """A fresh token for every seat, stored hashed (``replace``: the game's earlier ones stop working).
        A tournament table's tokens are derived from the service secret instead of drawn."""
        if self.meta(game_id).get("tournament"):
            tokens = [self.tournament_seat_token(game_id, i) for i in range(len(players))]
        else:
            tokens = [f"st_{secrets.token_urlsafe(24)}" for _ in players]
        self.store.set_tokens(game_id, {token_hash(t): i for i, t in enumerate(tokens)}, replace=replace)
        if replace:
            with self._lock:
                self._auth.pop(game_id, None)
        return [{"seat": i, "player": p, "token": t} for i, (p, t) in enumerate(zip(players, tokens))]

    def _reissue(self, game_id: str) -> dict:
        """New seat tokens for an existing game (whose first ones were never handed out)."""
        table = self.table(game_id, fresh=True)
        seats = self._new_tokens(game_id, _players(table), replace=True)
        self._index(game_id, table, created=True)
        return {"id": game_id, "game": table["game"], "version": table["version"], "seats": seats}

    # ------------------------------------------------------------ the listing
    # A game's summary in INDEX_INFO (its type, status, players...) and its
    # place in the sorted sets of the listing change when the game is
    # created, joined, finished, reissued or imported: not at every move.  A
    # page reads the version and the time of each of its games' latest event
    # from the games themselves (one XREVRANGE each, in the page's one
    # pipeline), so the listing shows them current at no cost to moves.
    STATUSES = ("active", "finished")
    LISTING_BACKFILL = 20_000  # summaries a listing request indexes while the store's sets are being filled

    @staticmethod
    def _listing_key(game_type: str | None, status: str | None) -> str:
        """The sorted set of the listing with these filters."""
        if game_type and status:
            return f"{LISTED_BY}:type:{game_type}:status:{status}"
        if game_type:
            return f"{LISTED_BY}:type:{game_type}"
        if status:
            return f"{LISTED_BY}:status:{status}"
        return INDEX

    @classmethod
    def _listing_keys(cls, info: dict) -> list[str]:
        """Every filtered set a summary belongs to (INDEX holds them all)."""
        return [cls._listing_key(info["game"], None), cls._listing_key(None, info["status"]),
                cls._listing_key(info["game"], info["status"])]

    @classmethod
    def _unlisted_keys(cls, info: dict) -> list[str]:
        """The sets of the other statuses, which a summary leaves."""
        return [k for s in cls.STATUSES if s != info["status"]
                for k in (cls._listing_key(None, s), cls._listing_key(info["game"], s))]

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

    def _index(self, game_id: str, table: dict, created: bool = False) -> None:
        """List a game, or move it in the listing (its status changed).  ``created``:
        a new game (or one made again under its id): its summary replaces any stored."""
        ctx = self.context(game_id)
        info = {"id": game_id, "game": table["game"], "status": "finished" if _finished(table) else "active",
                "created_at": table["created_at"], "updated_at": table["updated_at"],
                "version": table["version"], "players": _players(table), "timed": tables.timed(table),
                "provenance": "imported" if ctx.origin else "native", "tournament": ctx.tournament}
        running_timed = info["timed"] and info["status"] == "active"
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(INDEX, {game_id: listing.now_ms()}, nx=True)  # a game keeps the place it was first listed at
        pipe.zscore(INDEX, game_id)
        if running_timed:
            pipe.sadd(RUNNING_TIMED, game_id)
            # an imported game's deadlines were never scheduled: the reconcile pass looks at it now
            pipe.zadd(DUE, {game_id: _time.time()}, nx=True)
        else:
            pipe.srem(RUNNING_TIMED, game_id)
            pipe.zrem(DUE, game_id)
        score = pipe.execute()[1]
        put = self.__dict__.get("_put_summary") or self.__dict__.setdefault(
            "_put_summary", self.redis.register_script(self._PUT_SUMMARY))
        if not put(keys=[INDEX_INFO], args=[game_id, table["version"], dumps(info), "1" if created else "0"]):
            return  # a later version's summary is stored, and listed where it belongs
        pipe = self.redis.pipeline(transaction=False)
        for k in self._listing_keys(info):
            pipe.zadd(k, {game_id: int(score)})
        for k in self._unlisted_keys(info):
            pipe.zrem(k, game_id)
        pipe.execute()

    def list_games(self, game_type: str | None = None, status: str | None = None, limit: int = 50,
                   offset: int = 0, cursor: str | None = None, viewer: Viewer | None = None) -> dict:
        """Games newest first, ``limit`` at a time, from the sorted set of the
        filters given (its cost does not grow with the store): after ``cursor``
        (a page's ``next_cursor``), else from ``offset``.  Each game shows its
        current version and the time of its latest event, as ``viewer`` may
        see them (None: the operator, who sees every game whole)."""
        if cursor is not None and offset:
            raise ProblemError(422, "Bad page", "give cursor or offset, not both", "bad-page")
        if listing.backfill(self.redis, ready=f"{LISTED_BY}:ready", info=INDEX_INFO, every=INDEX,
                            keys_of=self._listing_keys, budget=self.LISTING_BACKFILL):
            listed = self._listing_key(game_type, status)
        else:  # sets not filled yet (a store written before them): every game, filtered as read
            listed = INDEX

        def load(ids: list[str], scores: list[int]) -> list[dict | None]:
            return self._listing_rows(ids, scores, listed, game_type, status, viewer)

        try:
            found = listing.page(self.redis, listed, limit=limit, offset=offset, cursor=cursor, load=load)
        except listing.BadCursor as exc:
            raise ProblemError(422, "Bad cursor", str(exc), "bad-cursor") from None
        return {"total": found["total"], "games": found["rows"], "next_cursor": found["next_cursor"]}

    SUMMARY_FIELDS = ("id", "game", "status", "created_at", "updated_at", "version", "players", "timed",
                      "provenance")

    def _listing_rows(self, ids: list[str], scores: list[int], listed: str, game_type: str | None,
                      status: str | None, viewer: Viewer | None) -> list[dict | None]:
        """The rows of a page's games (None: not in this listing), with their
        current version and time; a game found in a set its status has left
        is moved to where it belongs."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(INDEX_INFO, ids)
        for gid in ids:
            pipe.xrevrange(key(gid, "events"), count=1)
        infos, *tails = pipe.execute()
        rows: list[dict | None] = []
        repair = self.redis.pipeline(transaction=False)
        for gid, score, raw, tail in zip(ids, scores, infos, tails):
            info = loads(raw) if raw else None
            if info is None or not tail:  # not a game of this store (any more)
                rows.append(None)
                continue
            if (game_type and info["game"] != game_type) or (status and info["status"] != status):
                if listed != INDEX:  # listed under a status it has left: listed again where it belongs
                    repair.zrem(listed, gid)
                    for k in self._listing_keys(info):
                        repair.zadd(k, {gid: score})
                rows.append(None)
                continue
            last = loads(tail[0][1][b"e"])
            row = {k: info[k] for k in self.SUMMARY_FIELDS if k in info}
            row["version"], row["updated_at"] = last["version"], last["time"]
            # a tournament's table (a summary written before tables were named: maybe one) may be held back
            if viewer is not None and info.get("tournament", True):
                row = self._listing_sight(gid, row, viewer)
            rows.append(row)
        if len(repair):
            repair.execute()
        return rows

    def _listing_sight(self, game_id: str, row: dict, viewer: Viewer) -> dict:
        """A table of a duplicate round shows what its view shows the caller:
        held at the round's public horizon (see :mod:`service.core.sight`)."""
        if viewer.sees_all or not self.context(game_id).duplicate:
            return row
        seen = self.sight(game_id, viewer)
        if seen.full or seen.horizon is None or row["version"] <= seen.horizon:
            return row
        at = self.store.read(game_id, seen.horizon - 1, seen.horizon)
        return {**row, "version": seen.horizon, "updated_at": at[0]["time"] if at else row["created_at"]}

    # ------------------------------------------------------------ loading
    def table(self, game_id: str, *, fresh: bool = False, trust_cache: bool = False) -> dict:
        """The game's table at its latest version.

        Other processes append too (other web workers, RQ workers), so a read
        checks the stored head version (one small round trip) and uses the
        cached table only when it is current.  A move may ``trust_cache``: the
        append script refuses it if the cache was behind, and it retries.
        """
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is not None and not fresh:
            if trust_cache or self.store.head(game_id)[0] == cached["version"]:
                return cached
        raw = self.store.snapshot(game_id)
        if raw is not None:
            table = loads(raw)
            behind = self.store.read(game_id, after=table["version"])
            if behind:
                table = tables.fold(behind, table)
        else:
            envs = list(self.store.iter_all(game_id))
            if not envs:
                raise not_found(game_id)
            table = tables.fold(envs)
        self._remember(game_id, table)
        return table

    def _remember(self, game_id: str, table: dict) -> None:
        with self._lock:
            cached = self._cache.get(game_id)
            if cached is None or cached["version"] <= table["version"]:
                self._cache[game_id] = table

    # Replays fold from checkpoints: the table at every REPLAY_EVERY-th version
    # is kept in the game's ``ckpt`` hash (built by the first fold that passes
    # it, then kept), so a fold reads and folds at most REPLAY_EVERY events;
    # the tables of recent folds are kept here too.  At most REPLAY_SLOTS
    # replays fold at once in a process; more get 503 with Retry-After.
    REPLAY_EVERY = 128
    REPLAY_CACHE = 256
    REPLAY_SLOTS = 2
    _replay_slots = threading.BoundedSemaphore(REPLAY_SLOTS)
    _CHECKPOINT_BATCH = 64  # checkpoints saved per write while a long log is folded the first time

    def fold_from_zero(self, game_id: str, until: int | None = None) -> dict:
        """The table at version ``until`` (default: the head) exactly as
        folding the log from its first event gives it, folded from the
        nearest checkpoint at or below ``until``."""
        if until is None:
            until = self.store.head(game_id)[0]
            if until == 0:
                raise not_found(game_id)
        found = self._recent_fold(game_id, until)
        if found is not None:
            return found
        return self._fold_checkpointed(game_id, until)

    def _recent_folds(self) -> LRUCache:
        return self._recent_fold_tables

    def _recent_fold(self, game_id: str, version: int) -> dict | None:
        """A table folded lately at ``version``, if the log still holds the event it was folded to
        (a game removed and imported again under its id has other events)."""
        recent = self._recent_folds()
        with self._lock:
            found = recent.get((game_id, version))
        if found is None:
            return None
        at = self.store.read(game_id, version - 1, version)
        return found if at and at[0]["hash"] == found["hash"] else None

    @staticmethod
    @functools.lru_cache(maxsize=1)
    def _fold_tag() -> str:
        """Names the code that folds tables (every module of the domain
        package): a checkpoint folded by other code is never used."""
        from pathlib import Path

        import domain

        digest = hashlib.sha256()
        for path in sorted(Path(domain.__file__).parent.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()[:16]

    def _fold_checkpointed(self, game_id: str, until: int) -> dict:
        every, tag = self.REPLAY_EVERY, self._fold_tag()
        below = until // every * every
        start, table, top = 0, None, 0
        if below:
            top, raw = self.store.checkpoint(game_id, tag, below)
            if raw is None and 0 < top < below:
                raw = self.store.checkpoint(game_id, tag, top)[1]
            if raw is not None:
                table = loads(raw)
                start = table["version"]
        # the checkpoint's own event is read too: it must be the event the checkpoint was folded to
        first = self.store.read(game_id, start - 1, start) if start else []
        stale = bool(start) and not (first and first[0]["hash"] == table["hash"])
        if stale:  # checkpoints of a log since removed (and another imported under its id): dropped
            start, table = 0, None
        built: dict[int, bytes] = {}
        fresh = top == 0 or stale
        after = start
        while after < until:
            chunk = self.store.read(game_id, after, until, count=2000)
            for env in chunk:
                table = tables.evolve(table, env)
                version = table["version"]
                if version % every == 0 and version > start:
                    built[version] = dumps(table)
                    if len(built) >= self._CHECKPOINT_BATCH:
                        self.store.save_checkpoints(game_id, tag, built, fresh=fresh)
                        built, fresh = {}, False
            if len(chunk) < 2000:
                break
            after = chunk[-1]["version"]
        if table is None:
            raise not_found(game_id)
        self.store.save_checkpoints(game_id, tag, built, fresh=fresh)
        if table["version"] == until:
            recent = self._recent_folds()
            with self._lock:
                recent[(game_id, until)] = table
        return table

    # ------------------------------------------------------------ moves
    def move(self, game_id: str, seat: int, move: dict, *, if_match: int | None = None,
             idempotency_key: str | None = None, actor: str | None = None) -> dict:
        """Decide and append one seat's move; returns ``{"version", "events"}``."""
        idem = f"{seat}:{idempotency_key}" if idempotency_key else None
        fingerprint = hashlib.sha256(dumps(move)).hexdigest() if idem else None
        if idem:
            prior = self.store.remember_response(game_id, idem)
            if prior is not None:
                return self._replayed(prior, fingerprint)
        table = self.table(game_id, trust_cache=True)
        for attempt in range(MAX_RETRIES):
            if if_match is not None and table["version"] != if_match:
                if attempt == 0:
                    table = self.table(game_id, fresh=True)
                if table["version"] != if_match:
                    raise ProblemError(412, "Version mismatch",
                                       f"If-Match names version {if_match} but the game is at version {table['version']}",
                                       "version-mismatch", current_version=table["version"])
            self._check_open(table)
            module = registry.get(table["game"])
            if attempt == 0:
                _check_fields(module.legal_moves(table["state"], seat), move)
            command = {**move, "seat": seat, "seed": _seed(table)}
            try:
                decided = module.decide(table["state"], command)
            except RuleViolation as exc:
                if attempt == 0 and not self._is_fresh(game_id, table):
                    table = self.table(game_id, fresh=True)
                    continue
                raise _rule_problem(exc, acting=seat in _to_act(table)) from None
            stamp = now_iso()
            envs, new_table = self._append_events(game_id, table, decided, actor=actor or f"seat:{seat}",
                                                  stamp=stamp)
            envs, new_table = self._settle(game_id, envs, new_table, stamp)
            seen = self.sight(game_id, Viewer("seat", seat=seat), new_table)
            response = {"version": new_table["version"],
                        "events": [e for e in (sights.envelope_for(env, seen) for env in envs) if e is not None],
                        "to_act": _to_act(new_table), "finished": _finished(new_table)}
            try:
                result = self._commit(game_id, table, new_table, envs, idempotency_key=idem,
                                      response=dumps({"fingerprint": fingerprint, "response": response}) if idem else None)
            except VersionConflict:
                if if_match is not None:
                    raise ProblemError(412, "Version mismatch",
                                       f"the game moved past version {if_match} before this move was applied",
                                       "version-mismatch") from None
                table = self.table(game_id, fresh=True)
                continue
            if result is not None:
                return self._replayed(result, fingerprint)
            return response
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")

    def join(self, game_id: str, player: str) -> dict:
        """A newcomer joins a running game (where its rules allow); returns its seat token once."""
        for _ in range(MAX_RETRIES):
            table = self.table(game_id, fresh=True)
            self._check_open(table)
            module = registry.get(table["game"])
            try:
                decided = module.decide(table["state"], {"type": "join", "seat": None, "player": player,
                                                         "seed": _seed(table)})
            except RuleViolation as exc:
                raise _rule_problem(exc) from None
            stamp = now_iso()
            envs, new_table = self._append_events(game_id, table, decided, actor="integrator", stamp=stamp)
            envs, new_table = self._settle(game_id, envs, new_table, stamp)
            seat = len(_players(new_table)) - 1
            token = f"st_{secrets.token_urlsafe(24)}"
            try:
                self._commit(game_id, table, new_table, envs)
            except VersionConflict:
                continue
            self.store.set_tokens(game_id, {token_hash(token): seat})
            self._index(game_id, new_table)
            return {"version": new_table["version"], "seat": seat, "player": player, "token": token}
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")

    def _is_fresh(self, game_id: str, table: dict) -> bool:
        version, _ = self.store.head(game_id)
        return version == table["version"]

    @staticmethod
    def _replayed(raw: bytes, fingerprint: str | None) -> dict:
        stored = loads(raw)
        if fingerprint is not None and stored.get("fingerprint") not in (None, fingerprint):
            raise ProblemError(422, "Idempotency key reused",
                               "this Idempotency-Key was used before with a different move", "idempotency-key-reused")
        return {**stored["response"], "replayed": True}

    @staticmethod
    def _check_open(table: dict) -> None:
        if table.get("frozen"):
            raise ProblemError(409, "Game frozen", "a reviewer has frozen this game; moves are refused", "game-frozen")
        if _finished(table):
            raise ProblemError(409, "Game over", "the game is finished; no more moves", "game-finished")

    def _settle(self, game_id: str, envs: list[dict], table: dict, stamp: str) -> tuple[list[dict], dict]:
        """What follows a batch of events in the same append: the moves of
        absent seats (each deal's reveal is placed by :meth:`_append_events`)."""
        return self._auto_moves(game_id, envs, table, stamp)

    @staticmethod
    def _append_events(game_id: str, table: dict, events: list[dict], *, actor: str,
                       stamp: str) -> tuple[list[dict], dict]:
        """Seal ``events`` after ``table`` and fold them; the ``DealRevealed`` of a
        deal whose hand is over comes right after the event that ended it, before
        any event of the next deal (so a deal is public as a whole once it may be)."""
        out: list[dict] = []
        for event in events:
            sealed = seal_batch(game_id, table["version"], table["hash"], [event], actor=actor, time=stamp,
                                rules=table["rules"])
            table = tables.fold(sealed, table)
            out += sealed
            reveals = tables.reveal_events(table)
            if reveals:
                sealed = seal_batch(game_id, table["version"], table["hash"], reveals, actor="system", time=stamp,
                                    rules=table["rules"])
                table = tables.fold(sealed, table)
                out += sealed
        return out, table

    MAX_AUTO_MOVES = 50  # moves made for absent seats in one append
    MAX_APPEND_EVENTS = 400  # events an append may reach with them (the reveals of deals come on top)

    def _auto_moves(self, game_id: str, envs: list[dict], table: dict, stamp: str) -> tuple[list[dict], dict]:
        """Seats marked absent are moved for at once by their timeout move.

        One append makes at most MAX_AUTO_MOVES such moves and holds at most
        MAX_APPEND_EVENTS events.  A game that owes more (one whose seats are
        all absent plays itself out) goes on in later appends: the scheduler
        queues a continuation job (:meth:`continue_absent`) behind the jobs
        already due, so the deadlines of other games wait at most one such
        append; and should that job be lost, the running clock of the absent
        seat to act times it out at its deadline and play goes on from there."""
        moved = 0
        while table["absent"] and moved < self.MAX_AUTO_MOVES:
            pending = [s for s in _to_act(table) if s in table["absent"]]
            if not pending:
                break
            more = self._timeout_events(table, pending[0], reason="absent")
            if len(envs) + len(more) > self.MAX_APPEND_EVENTS:
                break
            sealed, table = self._append_events(game_id, table, more, actor="worker", stamp=stamp)
            envs = envs + sealed
            moved += 1
        return envs, table

    @staticmethod
    def owes_absent_moves(table: dict) -> bool:
        """Whether an absent seat must act now: the last append stopped at its cap of moves made for them."""
        return bool(table.get("absent")) and any(s in table["absent"] for s in _to_act(table))

    def continue_absent(self, game_id: str, version: int) -> bool:
        """Go on moving for the absent seats of a game still at ``version``
        (the continuation job); returns True when an append was made."""
        table = self.table(game_id, fresh=True)
        if table["version"] != version or not self.owes_absent_moves(table):
            return False
        stamp = now_iso()
        envs, new_table = self._settle(game_id, [], table, stamp)
        if not envs:
            return False
        try:
            self._commit(game_id, table, new_table, envs)
        except VersionConflict:
            return False
        return True

    @staticmethod
    def _timeout_events(table: dict, seat: int, reason: str) -> list[dict]:
        module = registry.get(table["game"])
        move = module.timeout_move(table["state"], seat)
        decided = module.decide(table["state"], {**move, "seat": seat, "seed": _seed(table)})
        return [{"type": tables.TURN_TIMED_OUT, "data": {"seat": seat, "reason": reason, "move": move}}] + decided

    def _commit(self, game_id: str, old: dict | None, new: dict, envs: list[dict], *,
                idempotency_key: str | None = None, response: bytes | None = None) -> bytes | None:
        result = self.store.append(game_id, old["version"] if old else 0, envs, snapshot=dumps(new),
                                   idempotency_key=idempotency_key, response=response,
                                   also=self._due_mark(game_id, new))
        if result.replayed is not None:
            return result.replayed
        self._remember(game_id, new)
        listeners: list[Callable[[str, dict], None]] = []
        if old is not None and _finished(new) != _finished(old):
            self._index(game_id, new)
            listeners = self.on_finished
        elif old is not None and _finished(new) and tables.outcome(new) != tables.outcome(old):
            listeners = self.on_result_changed
        for listener in listeners:
            try:
                listener(game_id, new)
            except Exception:  # noqa: BLE001 - the move is stored; listeners catch up on their own
                log.exception("a finished-game listener failed for game %s", game_id)
        if self.scheduler is not None:
            try:
                self.scheduler(old or {}, new, game_id)
            except Exception:  # noqa: BLE001 - the move is stored; a lost timer must not fail it
                log.exception("could not schedule the deadlines of game %s at version %s", game_id, new["version"])
        return None

    @staticmethod
    def _due_mark(game_id: str, table: dict) -> Callable[[Any], None] | None:
        """What the append of a table with running clocks writes beside it, in
        the same round trip: the game's mark in DUE at the time of the append.
        Scheduling its deadlines moves the mark to the earliest of them
        (:func:`service.core.timers.attach_scheduler`); a mark left at the time of an
        append is a move stored whose deadlines were never scheduled, and the
        workers' reconcile pass schedules them (:func:`service.core.timers.reconcile`)."""
        if not any(entry.get("deadline") is not None for entry in (table.get("clock") or {}).values()):
            return None
        return lambda pipe: pipe.zadd(DUE, {game_id: _time.time()})

    def rearm_deadlines(self) -> int:
        """Schedule again the deadline of every seat of every running timed game.

        Job ids are unique to (game, version, seat), so re-scheduling a job
        that exists replaces it: nothing runs twice.  Workers call this when
        they start, so that deadlines lost with the queues' Redis come back;
        it reads the running timed games (RUNNING_TIMED), not every game, and
        fills the listing's sets of a store written before them.
        Returns the number of games with a running clock.
        """
        listing.backfill(self.redis, ready=f"{LISTED_BY}:ready", info=INDEX_INFO, every=INDEX,
                         keys_of=self._listing_keys, budget=None)
        if self.scheduler is None:
            return 0
        armed = 0
        for raw in self.redis.sscan_iter(RUNNING_TIMED, count=500):
            game_id = raw.decode()
            try:
                table = self.table(game_id, fresh=True)
            except ProblemError:
                self.redis.srem(RUNNING_TIMED, game_id)
                continue
            if _finished(table):
                self._index(game_id, table)  # finished while its summary said active: listed as finished
            elif table["clock"]:
                self.scheduler({}, table, game_id)
                armed += 1
        return armed

    # ------------------------------------------------------------ timeouts
    def enforce_deadline(self, game_id: str, version: int, seat: int) -> bool:
        """Time a seat out if the game is still where the deadline was set.

        Returns True when a timeout was appended.  A stale or repeated call
        meets a version conflict and appends nothing.
        """
        table = self.table(game_id, fresh=True)
        if table["version"] != version or table.get("frozen"):
            return False
        if seat not in _to_act(table):
            return False
        stamp = now_iso()
        envs, new_table = self._append_events(game_id, table, self._timeout_events(table, seat, "deadline"),
                                              actor="worker", stamp=stamp)
        envs, new_table = self._settle(game_id, envs, new_table, stamp)
        try:
            self._commit(game_id, table, new_table, envs)
        except VersionConflict:
            return False
        for hook in self.on_timeout:
            try:
                hook(game_id, table, seat)
            except Exception:  # noqa: BLE001 - the timeout is stored
                log.exception("a timeout hook failed for game %s", game_id)
        return True

    # ------------------------------------------------------------ reading
    # ------------------------------------------------------------ who sees what
    def context(self, game_id: str) -> GameContext:
        """Who owns a game, its tournament, and the tables dealt the same cards (cached once complete)."""
        with self._lock:
            ctx = self._contexts.get(game_id)
        if ctx is not None:
            return ctx
        meta = self.meta(game_id)
        extra = (self.tournament_context(game_id) if self.tournament_context is not None else None) or {}
        ctx = GameContext(owner=meta.get("owner"), tournament=extra.get("id") or meta.get("tournament"),
                          tournament_owner=extra.get("owner"), peers=tuple(extra.get("peers", ())),
                          duplicate=bool(extra.get("duplicate")), round_tables=int(extra.get("tables", 1)),
                          origin=meta.get("origin"))
        if extra.get("complete", True):
            with self._lock:
                self._contexts[game_id] = ctx
        return ctx

    def _peers_finished(self, game_id: str, ctx: GameContext) -> list[int] | None:
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
                counts.append(sights.deals_finished(self.table(peer)))
            except ProblemError:
                counts.append(0)
        counts += [0] * max(0, ctx.round_tables - 1 - len(ctx.peers))
        with self._lock:
            self._peer_counts[game_id] = counts
        return counts

    def sight(self, game_id: str, viewer: Viewer, table: dict | None = None) -> Sight:
        """The one decision of what ``viewer`` may see of a game (see :mod:`service.core.sight`)."""
        table = table or self.table(game_id)
        ctx = self.context(game_id)
        peers = self._peers_finished(game_id, ctx)
        if peers is not None and "starts" not in table["deals"]:
            table = self.fold_from_zero(game_id, table["version"])  # a table folded before deals kept their starts
        return sights.decide(viewer.kind, viewer.seat, viewer.key_id, viewer.scopes, ctx, table,
                             finished=_finished(table), peers_finished=peers)

    def require_full_sight(self, game_id: str, viewer: Viewer) -> Sight:
        """The whole log (audit, export): a review or admin key, or the key that owns the game or its tournament."""
        if not self.store.exists(game_id):
            raise not_found(game_id)
        found = self.sight(game_id, viewer)
        if not found.full:
            raise ProblemError(403, "Not entitled", "the whole log of a game is for keys with the 'review' scope "
                               "and for the key that owns the game or its tournament", "not-entitled")
        return found

    def provenance(self, game_id: str) -> dict:
        """Where a game's log was written: here, or elsewhere and imported (with who imported it)."""
        origin = self.context(game_id).origin
        return {"kind": "imported", **origin} if origin else {"kind": "native"}


    # ------------------------------------------------------------ reading
    def state_view(self, game_id: str, viewer: Viewer | Sight, table: dict | None = None) -> dict:
        """The game as ``viewer`` may see it: at its latest version, or at the
        version of ``table`` (a replay).  A caller held behind a duplicate
        round's embargo sees the game as it was at its horizon."""
        embargo = None
        if isinstance(viewer, Sight):
            table = table or self.table(game_id)
            seen = viewer
            if not seen.sees_version(table["version"]):
                raise _embargoed(seen)
        else:
            replaying = table is not None
            table = table or self.table(game_id)
            seen = self.sight(game_id, viewer, None if replaying else table)
            if not seen.sees_version(table["version"]):
                if replaying:
                    raise _embargoed(seen)
                embargo = {"version": seen.horizon, "reason": seen.reason}
                table = self.fold_from_zero(game_id, seen.horizon)  # checkpointed, recent ones cached
        module = registry.get(table["game"])
        state = table["state"]
        outcome = tables.outcome(table)
        to_act = _to_act(table)
        if seen.kind == "seat" and seen.seat not in _seats(table):
            raise ProblemError(403, "Not a seat", "this token's seat is not in the game", "forbidden")
        return {
            "id": game_id,
            "game": table["game"],
            "rules_version": table["rules"],
            "version": table["version"],
            "viewer": {"kind": seen.kind, "seat": seen.seat},
            "players": _players(table),
            "to_act": to_act,
            "deadlines": {s: _iso(c["deadline"]) for s, c in table["clock"].items()} if to_act else {},
            "bank": {s: round(v, 3) for s, v in table["bank"].items()} or None,
            "absent": table["absent"],
            "frozen": table.get("frozen", False),
            "finished": outcome is not None,
            "result": tables.ranked(table, outcome),
            "options": {**table["options"], **table["timing"]},
            "created_at": table["created_at"],
            "updated_at": table["updated_at"],
            "state": module.view(state, seen.domain_viewer),
            "embargo": embargo,
            "provenance": self.provenance(game_id),
        }

    def legal_moves(self, game_id: str, viewer: Viewer) -> dict:
        if viewer.kind == "spectator":
            raise ProblemError(401, "Seat token required", "legal moves are given to a seat; send its token",
                               "unauthorized")
        if viewer.kind != "seat":
            raise ProblemError(403, "Seat token required", "legal moves are given to a seat; send its token",
                               "seat-required")
        table = self.table(game_id)
        moves = [] if _finished(table) or table.get("frozen") \
            else registry.get(table["game"]).legal_moves(table["state"], viewer.seat)
        clock = table["clock"].get(str(viewer.seat))
        return {"version": table["version"], "seat": viewer.seat, "moves": moves,
                "deadline": _iso(clock["deadline"]) if clock and moves else None}

    def events(self, game_id: str, viewer: Viewer, after: int = 0, wait: float = 0, limit: int = 1000) -> dict:
        envs = self.store.read(game_id, after, count=limit)
        if not envs and wait > 0:
            if not self.store.exists(game_id):
                raise not_found(game_id)
            if self.store.wait(game_id, after, int(wait * 1000)):
                envs = self.store.read(game_id, after, count=limit)
        if not envs and not self.store.exists(game_id):
            raise not_found(game_id)
        version, _ = self.store.head(game_id)
        seen = self.sight(game_id, viewer)
        shown = []
        for env in envs:
            out = sights.envelope_for(env, seen)
            if out is None:
                break
            shown.append(out)
        held = seen.horizon is not None and not seen.full and not seen.own_seat
        return {"version": min(version, seen.horizon) if held else version, "events": shown,
                "embargo": {"version": seen.horizon, "reason": seen.reason} if held else None}

    def replay(self, game_id: str, viewer: Viewer, version: int, as_: str | None = None) -> dict:
        """The view at ``version`` from a viewpoint the caller is entitled to:
        ``as_`` is ``"reviewer"``, ``"spectator"``, ``"seat"`` (the caller's
        own seat) or ``"seat:<n>"``; by default the caller's own viewpoint."""
        head, _ = self.store.head(game_id)
        if head == 0:
            raise not_found(game_id)
        if not (1 <= version <= head):
            raise ProblemError(422, "No such version", f"version must be between 1 and {head}", "bad-version")
        as_viewer = self._viewpoint(game_id, viewer, as_)
        table = self._replay_table(game_id, version)
        return self.state_view(game_id, as_viewer, table)

    def _replay_table(self, game_id: str, version: int) -> dict:
        """The table of a replay: a recent one, or folded from a checkpoint
        in one of the process's REPLAY_SLOTS (none free: 503)."""
        found = self._recent_fold(game_id, version)
        if found is not None:
            return found
        if not self._replay_slots.acquire(blocking=False):
            raise ProblemError(503, "Too many replays", "this server is folding as many replays as it may at "
                               "once; retry in a moment", "unavailable", headers={"Retry-After": "1"})
        try:
            return self._fold_checkpointed(game_id, version)
        finally:
            self._replay_slots.release()

    def _viewpoint(self, game_id: str, viewer: Viewer, as_: str | None) -> Sight:
        """The sight of the viewpoint ``as_`` for a caller entitled to it."""
        mine = self.sight(game_id, viewer)
        if as_ is None:
            return mine
        if as_ == "spectator":
            return Sight("spectator", horizon=None if mine.full or mine.own_seat else mine.horizon,
                         reason=mine.reason)
        if as_ == "reviewer":
            if mine.full:
                return Sight("integrator", full=True)
            raise ProblemError(403, "Not entitled", "the reviewer's viewpoint needs a key with the 'review' scope "
                               "or the key that owns the game", "forbidden")
        seat: int | None = None
        if as_ == "seat":
            seat = viewer.seat
        elif as_.startswith("seat:") and as_[5:].isdigit():
            seat = int(as_[5:])
        else:
            raise ProblemError(422, "Bad viewpoint", "as must be 'reviewer', 'spectator', 'seat' or 'seat:<n>'",
                               "bad-viewpoint")
        if seat is None:
            raise ProblemError(403, "Not entitled", "as=seat needs a seat token (or name the seat: seat:<n>)",
                               "forbidden")
        if not (mine.full or (viewer.kind == "seat" and viewer.seat == seat)):
            raise ProblemError(403, "Not entitled", f"only seat {seat}'s token or a key that sees the whole game "
                               f"may see seat {seat}'s viewpoint", "forbidden")
        return Sight("seat", seat=seat, own_seat=True, full=mine.full and mine.kind != "integrator")

    # ------------------------------------------------------------ review
    def review(self, game_id: str, viewer: Viewer, kind: str, data: dict) -> dict:
        """Append a reviewer's event: ``freeze``, ``note`` or ``adjudicate``.

        Nothing is edited: the log only grows.  The event names the key that
        made it (``actor``) and carries the reason.
        """
        actor = f"reviewer:{viewer.key_id}"
        for _ in range(MAX_RETRIES):
            table = self.table(game_id, fresh=True)
            self._check_review(table, kind, data)
            event = self._review_event(table, kind, data)
            stamp = now_iso()
            # a ruling that ends the game mid-hand ends its deal: revealed in the same append
            envs, new_table = self._append_events(game_id, table, [event], actor=actor, stamp=stamp)
            try:
                self._commit(game_id, table, new_table, envs)
            except VersionConflict:
                continue
            return {"version": new_table["version"], "event": envs[0], "frozen": new_table["frozen"],
                    "result": tables.ranked(new_table, tables.outcome(new_table))}
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")

    @staticmethod
    def _check_review(table: dict, kind: str, data: dict) -> None:
        if kind == "adjudicate" and data.get("action") == "correct_score" and \
                len((table.get("adjudication") or {}).get("corrections") or ()) >= tables.MAX_CORRECTIONS:
            raise ProblemError(409, "Too many corrections", f"a game takes at most {tables.MAX_CORRECTIONS} score "
                               "corrections; award the corrected scores instead", "too-many-corrections")

    @staticmethod
    def _review_event(table: dict, kind: str, data: dict) -> dict:
        reason = data.get("reason") or ""
        n = len(_players(table))
        if kind == "freeze":
            if table.get("frozen"):
                raise ProblemError(409, "Already frozen", "the game is already frozen", "already-frozen")
            return {"type": tables.GAME_FROZEN, "data": {"reason": reason}}
        if kind == "note":
            at = data.get("version", table["version"])
            if not (1 <= at <= table["version"]):
                raise ProblemError(422, "No such version", f"version must be between 1 and {table['version']}",
                                   "bad-version")
            return {"type": tables.NOTE_ADDED, "data": {"at_version": at, "text": data["text"]}}
        action = data["action"]
        body: dict[str, Any] = {"action": action, "reason": reason}
        if action == "unfreeze":
            if not table.get("frozen"):
                raise ProblemError(409, "Not frozen", "the game is not frozen", "not-frozen")
        elif action == "award":
            scores = data.get("scores")
            if not isinstance(scores, list) or len(scores) != n:
                raise ProblemError(422, "Bad award", f"an award gives 'scores' for each of the {n} seats",
                                   "bad-adjudication")
            ranking = sorted(range(n), key=lambda s: -scores[s])
            best = max(scores)
            body["result"] = {"scores": scores, "ranking": ranking,
                              "winners": [s for s in range(n) if scores[s] == best]}
        elif action == "correct_score":
            deltas = data.get("deltas")
            if not isinstance(deltas, list) or len(deltas) != n:
                raise ProblemError(422, "Bad correction", f"a correction gives 'deltas' for each of the {n} seats",
                                   "bad-adjudication")
            if tables.outcome(table) is None:
                raise ProblemError(409, "No result yet", "scores can be corrected once the game has a result "
                                   "(award one, or wait for the end)", "no-result")
            from math import isfinite

            if not all(isfinite(a + b) for a, b in zip(tables.outcome(table)["scores"], deltas)):
                raise ProblemError(422, "Bad correction", "the corrected scores must stay finite numbers",
                                   "bad-adjudication")
            body["deltas"] = deltas
        elif action == "void":
            body["hand"] = data.get("hand")
        return {"type": tables.ADJUDICATED, "data": body}

    # ------------------------------------------------------------ export / import
    def export_lines(self, game_id: str):
        """The whole log as JSON Lines: a header, then every envelope whole."""
        table = self.table(game_id, fresh=True)  # one version: the header and the lines agree on it
        yield dumps({"format": EXPORT_FORMAT, "game_id": game_id, "game": table["game"],
                     "rules_version": table["rules"], "version": table["version"], "head_hash": table["hash"],
                     "outcome": tables.outcome(table), "exported_at": now_iso()}) + b"\n"
        for env in self.store.iter_all(game_id, until=table["version"]):
            yield dumps(env) + b"\n"

    def import_lines(self, lines: list[bytes | str], viewer: Viewer | None = None) -> dict:
        """Load an exported log into this store (the game must not exist here).

        Checked before anything is written: the id and the creation (game
        type, players, options) through the same validators as a game made
        here; the chain, the commitments and the outcome
        (:func:`service.core.verify.verify_export`).  Review events in the log
        (freezes, notes, adjudications) were made elsewhere, by reviewers
        this service does not know: only a key with the ``review`` scope may
        bring them in, and the game shows it was imported (its provenance),
        with every review entry of its audit marked as imported.  The
        importing key owns the game; seats get fresh tokens.  See
        docs/review.md.
        """
        rows = [line for line in lines if line and line.strip()]
        if len(rows) - 1 > MAX_IMPORT_EVENTS:
            raise ProblemError(413, "Export too large", f"an import holds at most {MAX_IMPORT_EVENTS} events",
                               "payload-too-large")
        report = verify_export(rows)
        header, envs = report["header"], report["events"]
        if isinstance(header, dict) and "game_id" in header and not ids.is_game_id(header["game_id"]):
            raise ProblemError(422, "Bad game id", f"the export's game_id is not a valid id: {ids.describe_game_id()}",
                               "bad-game-id")
        if not report["ok"]:
            raise ProblemError(422, "Export does not verify", report["problems"][0], "bad-export",
                               problems=report["problems"][:20])
        self._check_creation(envs[0])
        review = [e["version"] for e in envs if e["type"] in tables.REVIEW_EVENTS]
        if review and (viewer is None or "review" not in viewer.scopes):
            raise ProblemError(403, "Review events need the review scope",
                               f"the log holds review events (versions {', '.join(map(str, review[:10]))}); "
                               "importing them needs a key with the 'review' scope", "review-authority")
        game_id = header["game_id"]
        if self.store.exists(game_id):
            raise ProblemError(409, "Game exists", f"game '{game_id}' is already in this store", "game-exists")
        table = tables.fold(envs)
        origin = {"imported_at": now_iso(), "imported_by": viewer.key_id if viewer else None,
                  "imported_version": table["version"], "source_head_hash": table["hash"],
                  "exported_at": header.get("exported_at") if isinstance(header.get("exported_at"), str) else None,
                  "review_events": len(review)}
        self._write_meta(game_id, owner=viewer.key_id if viewer else None, origin=origin)
        try:
            self.store.append(game_id, 0, envs, snapshot=dumps(table))
        except VersionConflict:
            raise ProblemError(409, "Game exists", f"game '{game_id}' is already in this store",
                               "game-exists") from None
        seats = self._new_tokens(game_id, _players(table), replace=False)
        self._remember(game_id, table)
        self._index(game_id, table, created=True)
        return {"id": game_id, "game": table["game"], "version": table["version"], "seats": seats,
                "provenance": self.provenance(game_id)}

    def _check_creation(self, first: dict) -> None:
        """An imported game's creation passes the checks a game made here passes."""
        data = first.get("data") or {}
        if first.get("type") != tables.GAME_CREATED or first.get("version") != 1:
            raise ProblemError(422, "Export does not verify", "the log does not start with GameCreated",
                               "bad-export")
        game_type, players = data.get("game"), data.get("players")
        try:
            module = registry.get(game_type)
        except (registry.UnknownGame, TypeError):
            raise ProblemError(422, "Unknown game type", "the export's game type is not one this service hosts",
                               "unknown-game") from None
        if not isinstance(players, list) or not all(
                isinstance(p, str) and 1 <= len(p) <= 64 and p.isprintable() for p in players):
            raise ProblemError(422, "Bad players", "players must be names of 1 to 64 printable characters",
                               "invalid-players")
        if not (module.MIN_PLAYERS <= len(players) <= module.MAX_PLAYERS):
            raise ProblemError(422, "Wrong number of players",
                               f"{module.TITLE} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, "
                               f"the export has {len(players)}", "player-count")
        options = data.get("options")
        if not isinstance(options, dict):
            raise ProblemError(422, "Invalid options", "options: not an object", "invalid-options")
        self.validate_options(game_type, options)

    def audit(self, game_id: str) -> dict:
        envs, head_version, head_hash, check = self.store.checked_log(game_id)
        if not envs:
            raise not_found(game_id)
        provenance = self.provenance(game_id)
        imported_until = provenance.get("imported_version", 0)
        review = [{"version": e["version"], "time": e["time"], "actor": e["actor"], "type": e["type"],
                   **{k: v for k, v in e["data"].items() if k in ("action", "reason", "text", "at_version")},
                   # a review entry written elsewhere and imported is the exporter's word, not this service's
                   "authority": "imported" if e["version"] <= imported_until else "this service"}
                  for e in envs if e["type"] in tables.REVIEW_EVENTS]
        return {"id": game_id, "version": head_version, "head_hash": head_hash, "chain": check,
                "provenance": provenance, "review": review, "events": envs}


@functools.lru_cache(maxsize=None)
def _options_validator(game_type: str):
    """The JSON Schema of a game's options plus the timing options, compiled once."""
    module = registry.get(game_type)
    schema = dict(module.OPTIONS)
    schema["properties"] = {**schema.get("properties", {}), **tables.TABLE_OPTIONS}
    schema["additionalProperties"] = False
    cls = jsonschema.validators.validator_for(schema)
    return schema, cls(schema)


@functools.lru_cache(maxsize=None)
def _constraints(game_type: str) -> tuple[tuple[dict, ...], tuple[Callable[[dict], bool], ...]]:
    """What a creation of the game must satisfy beyond each option's own schema, as GET /game-types
    states it: the player count, then the game's ``CONSTRAINTS``; each with its compiled check."""
    module = registry.get(game_type)
    count = {"id": "player-count", "on": ["player_count"],
             "description": f"{module.TITLE} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players",
             "schema": {"properties": {"player_count": {"minimum": module.MIN_PLAYERS,
                                                        "maximum": module.MAX_PLAYERS}}}}
    constraints = (count, *getattr(module, "CONSTRAINTS", ()))
    checks = tuple(jsonschema.Draft202012Validator(c["schema"]).is_valid for c in constraints)
    return constraints, checks


def _embargoed(seen: Sight) -> ProblemError:
    return ProblemError(403, "Embargoed", f"this version is not public yet ({seen.reason}); the latest version "
                        f"the caller may see is {seen.horizon}", "embargoed", visible_version=seen.horizon)


def _check_fields(legal: list[dict], move: dict) -> None:
    """A move carries the fields its type has in legal-moves and no others: an
    unknown field (a smuggled ``seat`` say) is refused, not silently dropped,
    and a missing one is not filled in.  A type the seat may not play now is
    left to the rules, which say why."""
    listed = [m for m in legal if m.get("type") == move.get("type")]
    if not listed:
        return
    known = set().union(*(m.keys() for m in listed))
    missing = sorted(set.intersection(*(set(m) for m in listed)) - set(move))
    if missing:
        raise ProblemError(422, "Malformed move",
                           f"a '{move['type']}' move needs the field {', '.join(repr(m) for m in missing)}",
                           "malformed-move", rule="missing-field")
    unknown = sorted(set(move) - known)
    if unknown:
        names = ", ".join(repr(str(name)[:40]) for name in unknown[:5])
        raise ProblemError(422, "Malformed move",
                           f"unknown field {names} in a '{move['type']}' move (its fields: {', '.join(sorted(known))})",
                           "malformed-move", rule="unknown-field")


def _seed(table: dict) -> int:
    """A command's seed: fresh randomness, or in duplicate play the seed all
    tables sharing the game's ``deal_seed`` get at this deal."""
    derived = tables.deal_seed(table)
    return derived if derived is not None else secrets.randbits(63)


def _rule_problem(exc: RuleViolation, *, acting: bool | None = None) -> ProblemError:
    """The problem of a refused command.  ``acting``: whether the commanding seat is among the
    game's to_act: a seat that is, refused for its turn or phase, made a move of another phase
    (``wrong-phase``); ``not-your-turn`` is for the seats that are not to act."""
    if exc.kind == "turn":
        if acting:
            return ProblemError(409, "Wrong phase", exc.detail, "wrong-phase", rule=exc.rule)
        return ProblemError(409, "Not your turn", exc.detail, "not-your-turn", rule=exc.rule)
    if exc.kind == "invalid":
        return ProblemError(422, "Malformed move", exc.detail, "malformed-move", rule=exc.rule)
    return ProblemError(422, "Illegal move", exc.detail, "illegal-move", rule=exc.rule)


def _finished(table: dict) -> bool:
    return tables.outcome(table) is not None


def _to_act(table: dict) -> list[int]:
    """The seats that must act now; none once the game is over or frozen."""
    if table.get("frozen") or tables.outcome(table) is not None:
        return []
    # between two events of one move a game may name no seat yet (None)
    return [s for s in registry.get(table["game"]).to_act(table["state"]) if s is not None]


def _players(table: dict) -> list[str]:
    state = table["state"]
    return list(state.get("players", []))


def _seats(table: dict) -> range:
    return range(len(_players(table)))


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
