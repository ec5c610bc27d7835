"""The game cache: a game's latest table, and its tables at past versions folded from checkpoints."""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cachetools import LRUCache

from domain import table as tables
from events.envelope import dumps, loads
from service.core.errors import ProblemError, not_found

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.tables")


class Tables:
    """Loads and folds tables; shared by every service (they read games only through it)."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes
        self._cache: LRUCache = LRUCache(maxsize=naipes.cache_size)
        self._recent_fold_tables: LRUCache = LRUCache(maxsize=self.REPLAY_CACHE)  # replays' tables
        self._lock = threading.Lock()

    def table(self, game_id: str, *, fresh: bool = False, trust_cache: bool = False) -> dict:
        """The game's table at its latest version.

        Other processes append too (other web workers, RQ workers), so a read
        checks the stored head version and uses the cached table when it is
        current; when it is a few events behind (moves made through another
        process), the same round trip brings those events and they are folded
        onto it.  Otherwise the snapshot and the events after it are read.  A
        move may ``trust_cache``: the append script refuses it if the cache was
        behind, and it retries.
        """
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is not None and not fresh:
            if trust_cache:
                return cached
            head, behind = self.naipes.store.since(game_id, cached["version"], self.CATCH_UP)
            if head == cached["version"]:
                return cached
            if (
                behind
                and behind[0]["version"] == cached["version"] + 1
                and behind[0]["prev_hash"] == cached["hash"]
                and behind[-1]["version"] == head
            ):  # a few events behind (another process's moves): folded onto the cached table
                return self.advance(game_id, cached, behind)
        raw = self.naipes.store.snapshot(game_id)
        if raw is not None:
            table = loads(raw)
            behind = self.naipes.store.read(game_id, after=table["version"])
            if behind:
                table = tables.fold(behind, table)
        else:
            envs = list(self.naipes.store.iter_all(game_id))
            if not envs:
                raise not_found(game_id)
            table = tables.fold(envs)
        self.remember(game_id, table)
        return table

    def current(self, game_ids: list[str], wanted: Callable[[str, int], bool] | None = None) -> dict[str, dict | None]:
        """Many games' tables at their head version, as :meth:`table` reads one, for those whose head
        version is ``wanted`` (default: all): the heads in one round trip, then the snapshots of the
        games not cached here in another.  A game that is gone maps to None."""
        found: dict[str, dict | None] = {}
        fetch: list[tuple[str, int]] = []
        for game_id, head in zip(game_ids, self.naipes.store.head_versions(game_ids)):
            if head is None:
                found[game_id] = None
                continue
            if wanted is not None and not wanted(game_id, head):
                continue
            cached = self.cached(game_id)
            if cached is not None and cached["version"] == head:
                found[game_id] = cached
            else:
                fetch.append((game_id, head))
        if not fetch:
            return found
        for (game_id, version), raw in zip(fetch, self.naipes.store.snapshots([g for g, _ in fetch])):
            table = loads(raw) if raw is not None else None
            if table is None or table["version"] != version:  # behind its head: folded up to it
                try:
                    table = self.table(game_id, fresh=True)
                except ProblemError:
                    table = None
            else:
                self.remember(game_id, table)
            found[game_id] = table
        return found

    def cached(self, game_id: str) -> dict | None:
        """The table this process last folded or appended for the game (maybe behind the store)."""
        with self._lock:
            return self._cache.get(game_id)

    def advance(self, game_id: str, table: dict, envs: list[dict]) -> dict:
        """``table`` with ``envs`` (the events that follow it) folded onto it, and cached: the table
        this process already cached at the last of them (its own append's, the same hash) when there
        is one, else the fold."""
        last = envs[-1]
        cached = self.cached(game_id)
        if cached is not None and cached["version"] == last["version"] and cached.get("hash") == last["hash"]:
            return cached
        folded = tables.fold(envs, table)
        self.remember(game_id, folded)
        return folded

    def remember(self, game_id: str, table: dict) -> None:
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

    CATCH_UP = 64  # a cached table this few events behind its head is caught up from the log, not the snapshot

    REPLAY_CACHE = 256

    REPLAY_SLOTS = 2

    _replay_slots = threading.BoundedSemaphore(REPLAY_SLOTS)

    _CHECKPOINT_BATCH = 64  # checkpoints saved per write while a long log is folded the first time

    def fold_from_zero(self, game_id: str, until: int | None = None) -> dict:
        """The table at version ``until`` (default: the head) exactly as
        folding the log from its first event gives it, folded from the
        nearest checkpoint at or below ``until``."""
        if until is None:
            until = self.naipes.store.head(game_id)[0]
            if until == 0:
                raise not_found(game_id)
        found = self.recent_fold(game_id, until)
        if found is not None:
            return found
        return self.fold_checkpointed(game_id, until)

    def _recent_folds(self) -> LRUCache:
        return self._recent_fold_tables

    def recent_fold(self, game_id: str, version: int) -> dict | None:
        """A table folded lately at ``version``, if the log still holds the event it was folded to
        (a game removed and imported again under its id has other events)."""
        recent = self._recent_folds()
        with self._lock:
            found = recent.get((game_id, version))
        if found is None:
            return None
        at = self.naipes.store.read(game_id, version - 1, version)
        return found if at and at[0]["hash"] == found["hash"] else None

    @staticmethod
    def fold_tag() -> str:
        """Names the code that folds tables: a checkpoint folded by other code is never used."""
        import domain

        return code_tag(Path(domain.__file__).parent)

    def fold_checkpointed(self, game_id: str, until: int) -> dict:
        every, tag = self.REPLAY_EVERY, self.fold_tag()
        below = until // every * every
        start, table, top = 0, None, 0
        if below:
            top, raw = self.naipes.store.checkpoint(game_id, tag, below)
            if raw is None and 0 < top < below:
                raw = self.naipes.store.checkpoint(game_id, tag, top)[1]
            if raw is not None:
                table = loads(raw)
                start = table["version"]
        # the checkpoint's own event is read too: it must be the event the checkpoint was folded to
        first = self.naipes.store.read(game_id, start - 1, start) if start else []
        stale = bool(start) and not (first and first[0]["hash"] == table["hash"])
        if stale:  # checkpoints of a log since removed (and another imported under its id): dropped
            start, table = 0, None
        built: dict[int, bytes] = {}
        fresh = top == 0 or stale
        after = start
        while after < until:
            chunk = self.naipes.store.read(game_id, after, until, count=2000)
            for env in chunk:
                table = tables.evolve(table, env)
                version = table["version"]
                if version % every == 0 and version > start:
                    built[version] = dumps(table)
                    if len(built) >= self._CHECKPOINT_BATCH:
                        self.naipes.store.save_checkpoints(game_id, tag, built, fresh=fresh)
                        built, fresh = {}, False
            if len(chunk) < 2000:
                break
            after = chunk[-1]["version"]
        if table is None:
            raise not_found(game_id)
        self.naipes.store.save_checkpoints(game_id, tag, built, fresh=fresh)
        if table["version"] == until:
            recent = self._recent_folds()
            with self._lock:
                recent[(game_id, until)] = table
        return table

    def replay_table(self, game_id: str, version: int) -> dict:
        """The table of a replay: a recent one, or folded from a checkpoint
        in one of the process's REPLAY_SLOTS (none free: 503)."""
        found = self.recent_fold(game_id, version)
        if found is not None:
            return found
        if not self._replay_slots.acquire(blocking=False):
            raise ProblemError(
                503,
                "Too many replays",
                "this server is folding as many replays as it may at once; retry in a moment",
                "unavailable",
                headers={"Retry-After": "1"},
            )
        try:
            return self.fold_checkpointed(game_id, version)
        finally:
            self._replay_slots.release()


@functools.lru_cache(maxsize=8)
def code_tag(root: Path) -> str:
    """A digest of every Python module under ``root``, games' packages included, by relative path."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
