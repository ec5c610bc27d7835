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
from cachetools import LRUCache

from domain import registry
from domain import table as tables
from domain.base import REVIEWER, SPECTATOR, RuleViolation
from events.envelope import GENESIS, dumps, loads, now_iso, seal_batch, for_viewer
from events.store import EventStore, VersionConflict

from .access import KeyStore
from .verify import EXPORT_FORMAT, verify_export

log = logging.getLogger("naipes.application")

MAX_RETRIES = 8
INDEX = "naipes:games"            # sorted set: game id by creation time (ms)
INDEX_INFO = "naipes:games:info"  # hash: game id -> JSON summary
RUNNING_TIMED = "naipes:games:timed"  # set: the timed games not finished (whose deadlines the workers watch)


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
        """Integrator keys that run games or review them see every card."""
        return self.kind == "integrator" and bool({"games", "review"} & self.scopes)


SPECTATOR_VIEWER = Viewer("spectator")


class Naipes:
    def __init__(self, client: redis.Redis, *, api_keys: list[str] | None = None,
                 scheduler: Callable[[dict, dict], None] | None = None, cache_size: int = 4096,
                 queue_client: redis.Redis | None = None):
        self.redis = client
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

    # ------------------------------------------------------------ identity
    def integrator(self, key: str | None) -> Viewer | None:
        rec = self.keys.lookup(key)
        if rec is None:
            return None
        return Viewer("integrator", key_id=rec.id, scopes=rec.scopes)

    def require(self, credential: str | None, scope: str, *alternatives: str) -> Viewer:
        """An integrator key holding ``scope`` (or one of ``alternatives``), or a 401/403 problem."""
        viewer = self.integrator(credential)
        if viewer is None:
            raise ProblemError(401, "Integrator key required",
                               "this operation needs a live integrator key as bearer token", "unauthorized")
        if not viewer.scopes & {scope, *alternatives}:
            named = " or ".join(f"'{s}'" for s in (scope, *alternatives))
            raise ProblemError(403, "Scope missing", f"this key lacks the {named} scope", "scope-missing",
                               scope=scope)
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

    def viewer(self, game_id: str | None, credential: str | None) -> Viewer:
        """Resolve a bearer credential: integrator key, seat token, or nothing."""
        if not credential:
            return SPECTATOR_VIEWER
        found = self.integrator(credential)
        if found:
            return found
        if game_id is not None:
            seat = self.seat_for_token(game_id, credential)
            if seat is not None:
                return Viewer("seat", seat=seat)
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
            })
        return out

    @staticmethod
    def validate_options(game_type: str, options: dict) -> dict:
        schema, validator = _options_validator(game_type)
        error = jsonschema.exceptions.best_match(validator.iter_errors(options))
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "options"
            raise ProblemError(422, "Invalid options", f"{where}: {error.message}", "invalid-options")
        filled = {name: spec.get("default") for name, spec in schema["properties"].items()}
        filled.update(options)
        return filled

    # ------------------------------------------------------------ creation
    def create_game(self, game_type: str, players: list[str], options: dict | None = None,
                    *, seed: int | None = None, deal_seed: str | None = None, game_id: str | None = None) -> dict:
        """Create and start a game.  Games created with the same ``deal_seed``
        are dealt the same cards, deal by deal (duplicate play); the secret is
        kept in a private part of ``GameCreated`` that no seat receives.

        ``game_id``: the id to use, reserved by the caller beforehand (a
        tournament table).  If a game of that id exists already, an earlier
        attempt created it and its answer (the seat tokens, stored only
        hashed) was lost: the seats get new tokens and the game is returned,
        so that a retried creation never makes a second game."""
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
        envs += seal_batch(game_id, 1, envs[0]["hash"], start, actor="system", time=stamp,
                           rules=module.RULES_VERSION)
        table = tables.fold(envs)
        envs, table = self._settle(game_id, envs, table, stamp)
        seats = self._new_tokens(game_id, list(players), replace=given)
        try:
            self._commit(game_id, None, table, envs)
        except VersionConflict:
            if not given:
                raise
            return self._reissue(game_id)  # created meanwhile by another attempt with this id
        self._index(game_id, table, created=True)
        return {"id": game_id, "game": game_type, "version": table["version"], "seats": seats}

    def _new_tokens(self, game_id: str, players: list[str], *, replace: bool) -> list[dict]:
        """A fresh token for every seat, stored hashed (``replace``: the game's earlier ones stop working)."""
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

    def _index(self, game_id: str, table: dict, created: bool = False) -> None:
        info = {"id": game_id, "game": table["game"], "status": "finished" if _finished(table) else "active", "created_at": table["created_at"], "updated_at": table["updated_at"],
                "version": table["version"], "players": _players(table), "timed": tables.timed(table)}
        pipe = self.redis.pipeline(transaction=False)
        if created:
            pipe.zadd(INDEX, {game_id: int(_time.time() * 1000)})
        pipe.hset(INDEX_INFO, game_id, dumps(info))
        if info["timed"] and info["status"] == "active":
            pipe.sadd(RUNNING_TIMED, game_id)
        else:
            pipe.srem(RUNNING_TIMED, game_id)
        pipe.execute()

    def list_games(self, game_type: str | None = None, status: str | None = None, limit: int = 50,
                   offset: int = 0) -> dict:
        ids = [i.decode() for i in self.redis.zrevrange(INDEX, 0, -1)]
        infos = self.redis.hmget(INDEX_INFO, ids) if ids else []
        rows = [loads(r) for r in infos if r]
        rows = [r for r in rows if (not game_type or r["game"] == game_type) and (not status or r["status"] == status)]
        return {"total": len(rows), "games": rows[offset:offset + limit]}

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

    def fold_from_zero(self, game_id: str, until: int | None = None) -> dict:
        envs = self.store.read(game_id, 0, until)
        if not envs:
            raise not_found(game_id)
        return tables.fold(envs)

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
                raise _rule_problem(exc) from None
            stamp = now_iso()
            envs = seal_batch(game_id, table["version"], table["hash"], decided, actor=actor or f"seat:{seat}",
                              time=stamp, rules=table["rules"])
            new_table = tables.fold(envs, table)
            envs, new_table = self._settle(game_id, envs, new_table, stamp)
            response = {"version": new_table["version"], "events": [for_viewer(e, seat) for e in envs],
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
            envs = seal_batch(game_id, table["version"], table["hash"], decided, actor="integrator",
                              time=stamp, rules=table["rules"])
            new_table = tables.fold(envs, table)
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
        absent seats, then the reveal of every deal whose hand is over."""
        envs, table = self._auto_moves(game_id, envs, table, stamp)
        reveals = tables.reveal_events(table)
        if reveals:
            sealed = seal_batch(game_id, table["version"], table["hash"], reveals, actor="system", time=stamp,
                                rules=table["rules"])
            table = tables.fold(sealed, table)
            envs = envs + sealed
        return envs, table

    def _auto_moves(self, game_id: str, envs: list[dict], table: dict, stamp: str) -> tuple[list[dict], dict]:
        """Seats marked absent are moved for at once by their timeout move."""
        for _ in range(10_000):
            if not table["absent"]:
                break
            pending = [s for s in _to_act(table) if s in table["absent"]]
            if not pending:
                break
            seat = pending[0]
            more = self._timeout_events(table, seat, reason="absent")
            sealed = seal_batch(game_id, table["version"], table["hash"], more, actor="worker", time=stamp,
                                rules=table["rules"])
            table = tables.fold(sealed, table)
            envs = envs + sealed
        return envs, table

    @staticmethod
    def _timeout_events(table: dict, seat: int, reason: str) -> list[dict]:
        module = registry.get(table["game"])
        move = module.timeout_move(table["state"], seat)
        decided = module.decide(table["state"], {**move, "seat": seat, "seed": _seed(table)})
        return [{"type": tables.TURN_TIMED_OUT, "data": {"seat": seat, "reason": reason, "move": move}}] + decided

    def _commit(self, game_id: str, old: dict | None, new: dict, envs: list[dict], *,
                idempotency_key: str | None = None, response: bytes | None = None) -> bytes | None:
        result = self.store.append(game_id, old["version"] if old else 0, envs, snapshot=dumps(new),
                                   idempotency_key=idempotency_key, response=response)
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

    def rearm_deadlines(self) -> int:
        """Schedule again the deadline of every seat of every running game.

        Job ids are unique to (game, version, seat), so re-scheduling a job
        that exists replaces it: nothing runs twice.  Workers call this when
        they start, so that deadlines lost with the queues' Redis come back.
        Returns the number of games with a running clock.
        """
        if self.scheduler is None:
            return 0
        armed = 0
        for game_id, raw in self.redis.hgetall(INDEX_INFO).items():
            info = loads(raw)
            if info.get("status") != "active" or not info.get("timed"):
                continue
            game_id = game_id.decode()
            try:
                table = self.table(game_id, fresh=True)
            except ProblemError:
                continue
            if table["clock"] and not _finished(table):
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
        envs = seal_batch(game_id, table["version"], table["hash"], self._timeout_events(table, seat, "deadline"),
                          actor="worker", time=stamp, rules=table["rules"])
        new_table = tables.fold(envs, table)
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
    def state_view(self, game_id: str, viewer: Viewer, table: dict | None = None) -> dict:
        table = table or self.table(game_id)
        module = registry.get(table["game"])
        state = table["state"]
        outcome = tables.outcome(table)
        to_act = _to_act(table)
        if viewer.kind == "seat" and viewer.seat not in _seats(table):
            raise ProblemError(403, "Not a seat", "this token's seat is not in the game", "forbidden")
        return {
            "id": game_id,
            "game": table["game"],
            "rules_version": table["rules"],
            "version": table["version"],
            "viewer": {"kind": viewer.kind, "seat": viewer.seat},
            "players": _players(table),
            "to_act": to_act,
            "deadlines": {s: _iso(c["deadline"]) for s, c in table["clock"].items()} if to_act else {},
            "bank": {s: round(v, 3) for s, v in table["bank"].items()} or None,
            "absent": table["absent"],
            "frozen": table.get("frozen", False),
            "finished": outcome is not None,
            "result": outcome,
            "options": {**table["options"], **table["timing"]},
            "created_at": table["created_at"],
            "updated_at": table["updated_at"],
            "state": module.view(state, REVIEWER if outcome is not None and table["timing"].get("public_after_end")
                                 else viewer.domain_viewer),
        }

    def legal_moves(self, game_id: str, viewer: Viewer) -> dict:
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
        everything = viewer.sees_all or self._public_now(game_id)
        return {"version": version,
                "events": [_public_envelope(for_viewer(e, viewer.seat, everything), viewer) for e in envs]}

    def _public_now(self, game_id: str) -> bool:
        """Whether the whole log is public: the game is over and its table chose so."""
        table = self.table(game_id)
        return bool(table["timing"].get("public_after_end")) and _finished(table)

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
        table = self.fold_from_zero(game_id, version)
        return self.state_view(game_id, as_viewer, table)

    def _viewpoint(self, game_id: str, viewer: Viewer, as_: str | None) -> Viewer:
        if as_ is None:
            return viewer
        if as_ == "spectator":
            return SPECTATOR_VIEWER
        if as_ == "reviewer":
            if viewer.sees_all or self._public_now(game_id):
                return Viewer("integrator", key_id=viewer.key_id, scopes=frozenset({"review"}))
            raise ProblemError(403, "Not entitled", "the reviewer's viewpoint needs an integrator key with the "
                               "'games' or 'review' scope", "forbidden")
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
        if not (viewer.sees_all or (viewer.kind == "seat" and viewer.seat == seat) or self._public_now(game_id)):
            raise ProblemError(403, "Not entitled", f"only seat {seat}'s token or an integrator key may see "
                               f"seat {seat}'s viewpoint", "forbidden")
        return Viewer("seat", seat=seat)

    # ------------------------------------------------------------ review
    def review(self, game_id: str, viewer: Viewer, kind: str, data: dict) -> dict:
        """Append a reviewer's event: ``freeze``, ``note`` or ``adjudicate``.

        Nothing is edited: the log only grows.  The event names the key that
        made it (``actor``) and carries the reason.
        """
        actor = f"reviewer:{viewer.key_id}"
        for _ in range(MAX_RETRIES):
            table = self.table(game_id, fresh=True)
            event = self._review_event(table, kind, data)
            stamp = now_iso()
            envs = seal_batch(game_id, table["version"], table["hash"], [event], actor=actor, time=stamp,
                              rules=table["rules"])
            new_table = tables.fold(envs, table)
            try:
                self._commit(game_id, table, new_table, envs)
            except VersionConflict:
                continue
            return {"version": new_table["version"], "event": envs[-1], "frozen": new_table["frozen"],
                    "result": tables.outcome(new_table)}
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")

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

    def import_lines(self, lines: list[bytes | str]) -> dict:
        """Load an exported log into this store (the game must not exist here).

        The chain, the commitments and the outcome are checked first
        (:func:`service.verify.verify_export`); nothing is written when a
        check fails.  Seats get fresh tokens.
        """
        report = verify_export(lines)
        if not report["ok"]:
            raise ProblemError(422, "Export does not verify", report["problems"][0], "bad-export",
                               problems=report["problems"][:20])
        header, envs = report["header"], report["events"]
        game_id = header["game_id"]
        if self.store.exists(game_id):
            raise ProblemError(409, "Game exists", f"game '{game_id}' is already in this store", "game-exists")
        table = tables.fold(envs)
        try:
            self.store.append(game_id, 0, envs, snapshot=dumps(table))
        except VersionConflict:
            raise ProblemError(409, "Game exists", f"game '{game_id}' is already in this store",
                               "game-exists") from None
        seats = self._new_tokens(game_id, _players(table), replace=False)
        self._remember(game_id, table)
        self._index(game_id, table, created=True)
        return {"id": game_id, "game": table["game"], "version": table["version"], "seats": seats}

    def audit(self, game_id: str) -> dict:
        envs, head_version, head_hash, check = self.store.checked_log(game_id)
        if not envs:
            raise not_found(game_id)
        review = [{"version": e["version"], "time": e["time"], "actor": e["actor"], "type": e["type"],
                   **{k: v for k, v in e["data"].items() if k in ("action", "reason", "text", "at_version")}}
                  for e in envs if e["type"] in tables.REVIEW_EVENTS]
        return {"id": game_id, "version": head_version, "head_hash": head_hash, "chain": check, "review": review,
                "events": envs}


@functools.lru_cache(maxsize=None)
def _options_validator(game_type: str):
    """The JSON Schema of a game's options plus the timing options, compiled once."""
    module = registry.get(game_type)
    schema = dict(module.OPTIONS)
    schema["properties"] = {**schema.get("properties", {}), **tables.TABLE_OPTIONS}
    schema["additionalProperties"] = False
    cls = jsonschema.validators.validator_for(schema)
    return schema, cls(schema)


def _public_envelope(env: dict, viewer: Viewer) -> dict:
    """Table secrets (the duplicate deal seed) go to nobody but full viewers."""
    if viewer.sees_all or "private" not in env or "setup" not in env["private"]:
        return env
    out = dict(env)
    out["private"] = {k: v for k, v in env["private"].items() if k != "setup"}
    if not out["private"]:
        del out["private"]
    return out


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


def _rule_problem(exc: RuleViolation) -> ProblemError:
    if exc.kind == "turn":
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
