"""Turn deadlines: seats timed out when their clocks run out (every seat of a game that is due in
one append), moves continued for absent seats, and every running clock scheduled again when
workers start (the schedule and its batches are :mod:`service.core.timers`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from domain import table as tables
from events.envelope import now_iso, parse_time
from events.store import VersionConflict
from service.core import bots, facts, pages
from service.core.errors import ProblemError
from service.core.listing import INDEX, INDEX_INFO, LISTED_BY, RUNNING_TIMED

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.deadlines")


class Deadlines:
    """What the deadline jobs of the workers call."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes

    def continue_absent(self, game_id: str, version: int) -> bool:
        """Go on moving for the absent seats of a game still at ``version``
        (the continuation job); returns True when an append was made."""
        table = self.naipes.tables.table(game_id, fresh=True)
        if table["version"] != version or not self.naipes.appender.owes_absent_moves(table):
            return False
        stamp = now_iso()
        envs, new_table = self.naipes.appender.settle(game_id, [], table, stamp)
        if not envs:
            return False
        try:
            self.naipes.appender.commit(game_id, table, new_table, envs)
        except VersionConflict:
            return False
        return True

    MAX_TIMEOUTS = 32  # seats one append times out

    def enforce_due(self, game_id: str, version: int, *, table: dict | None = None) -> int:
        """Time out, in one append, every person's seat whose deadline has passed, if the game is
        still at ``version``: the earliest first, each followed by the moves of absent seats, as
        one enforcement after another would (a seat whose deadline passes meanwhile included).
        Bots' turns are left to the bots' queue.  ``table``: the game at ``version``, if the caller
        has it (the append refuses it if the game moved on).

        Returns the number of seats timed out; a stale or repeated call appends nothing."""
        if table is None or table["version"] != version:
            table = self.naipes.tables.table(game_id, fresh=True)
        if table["version"] != version or table.get("frozen"):
            return 0
        stamp = now_iso()
        now = parse_time(stamp)  # the timeouts' time: no deadline after it is enforced
        envs: list[dict] = []
        new_table, timed = table, []
        while len(timed) < self.MAX_TIMEOUTS and len(envs) < self.naipes.appender.MAX_APPEND_EVENTS:
            acting = facts.to_act(new_table)
            due = [
                (clock["deadline"], int(seat))
                for seat, clock in (new_table.get("clock") or {}).items()
                if clock.get("deadline") is not None
                and clock["deadline"] <= now
                and int(seat) in acting
                and tables.bot(new_table, seat) is None
            ]
            if not due:
                break
            seat = min(due)[1]
            more, new_table = self.naipes.appender.append_events(
                game_id,
                new_table,
                self.naipes.appender.timeout_events(new_table, seat, "deadline"),
                actor="worker",
                stamp=stamp,
            )
            envs, new_table = self.naipes.appender.settle(game_id, envs + more, new_table, stamp)
            timed.append(seat)
        if not envs:
            return 0
        return len(timed) if self._commit_timeouts(game_id, table, new_table, envs, timed) else 0

    def _commit_timeouts(self, game_id: str, table: dict, new_table: dict, envs: list[dict], seats: list[int]) -> bool:
        """Append the timeouts of ``seats`` (False: the game moved on first), then tell the timeout hooks."""
        try:
            self.naipes.appender.commit(game_id, table, new_table, envs)
        except VersionConflict:
            return False
        for seat in seats:
            for hook in self.naipes.on_timeout:
                try:
                    hook(game_id, table, seat)
                except Exception:  # the timeout is stored
                    log.exception("a timeout hook failed for game %s", game_id)
        return True

    def enforce_deadline(self, game_id: str, version: int, seat: int) -> bool:
        """Time a seat out if the game is still where the deadline was set.

        Returns True when a timeout was appended.  A stale or repeated call
        meets a version conflict and appends nothing.
        """
        table = self.naipes.tables.table(game_id, fresh=True)
        if table["version"] != version or table.get("frozen"):
            return False
        if seat not in facts.to_act(table):
            return False
        stamp = now_iso()
        if tables.bot(table, seat) is not None:  # a bot's turn: the bot moves
            return self._bot_move(game_id, table, seat, stamp)
        envs, new_table = self.naipes.appender.append_events(
            game_id, table, self.naipes.appender.timeout_events(table, seat, "deadline"), actor="worker", stamp=stamp
        )
        envs, new_table = self.naipes.appender.settle(game_id, envs, new_table, stamp)
        return self._commit_timeouts(game_id, table, new_table, envs, [seat])

    def _bot_move(self, game_id: str, table: dict, seat: int, stamp: str) -> bool:
        actor, decided = bots.events(table, seat)
        envs, new_table = self.naipes.appender.append_events(game_id, table, decided, actor=actor, stamp=stamp)
        envs, new_table = self.naipes.appender.settle(game_id, envs, new_table, stamp)
        try:
            self.naipes.appender.commit(game_id, table, new_table, envs)
        except VersionConflict:
            return False
        return True

    def rearm_deadlines(self) -> int:
        """Schedule again the deadline of every seat of every running timed game.

        Entries are unique to (game, version, seat), so writing one again
        changes nothing, and an entry enforced twice appends nothing the second
        time.  Workers call this when they start, so that deadlines lost with
        the queues' Redis, or with a worker killed mid-batch, come back at once;
        it reads the running timed games (RUNNING_TIMED), not every game, and
        fills the listing's sets of a store written before them.
        Returns the number of games with a running clock.
        """
        pages.backfill(
            self.naipes.redis,
            ready=f"{LISTED_BY}:ready",
            info=INDEX_INFO,
            every=INDEX,
            keys_of=self.naipes.listing.listing_keys,
            budget=None,
        )
        self.naipes.listing.backfill_held()
        if self.naipes.scheduler is None:
            return 0
        armed = 0
        for raw in self.naipes.redis.sscan_iter(RUNNING_TIMED, count=500):
            game_id = raw.decode()
            try:
                table = self.naipes.tables.table(game_id, fresh=True)
            except ProblemError:
                self.naipes.redis.srem(RUNNING_TIMED, game_id)
                continue
            if facts.finished(table):
                self.naipes.listing.index(game_id, table)  # finished while its summary said active: listed as finished
            elif table["clock"]:
                self.naipes.scheduler({}, table, game_id)
                armed += 1
        return armed
