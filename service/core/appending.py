"""The one way events reach a game's log: sealed into the hash chain and folded, followed in the
same append by the moves of absent seats and the reveal of finished deals, then committed with
the table's snapshot, the listing, the finished-game listeners and the deadlines' scheduler."""

from __future__ import annotations

import logging
import time as _time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from domain import registry
from domain import table as tables
from events.envelope import dumps, seal_batch
from events.store import AlsoFailed
from service.core import afterwards, facts
from service.core import sight as sights
from service.core.errors import Unplayable
from service.core.listing import DUE, ENDING, FINISH_GRACE, FINISHING

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.appending")

MAX_RETRIES = 8  # attempts of a command whose append met a concurrent one
FINISH_BATCH = 100  # marks one pass of the workers takes


class Appender:
    """Seals, settles and commits appends; every service that writes a game goes through it."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes
        self._salt_key: bytes | None = None

    @property
    def salt_key(self) -> bytes:
        """The key of the events' salts (:func:`events.envelope.event_salt`), from the service secret."""
        if self._salt_key is None:
            self._salt_key = self.naipes.secret.derive("event-salt")
        return self._salt_key

    def settle(self, game_id: str, envs: list[dict], table: dict, stamp: str) -> tuple[list[dict], dict]:
        """What follows a batch of events in the same append: the moves of
        absent seats (each deal's reveal is placed by :meth:`_append_events`)."""
        return self._auto_moves(game_id, envs, table, stamp)

    def append_events(
        self, game_id: str, table: dict, events: list[dict], *, actor: str, stamp: str
    ) -> tuple[list[dict], dict]:
        """Seal ``events`` after ``table`` and fold them; the ``DealRevealed`` of a
        deal whose hand is over comes right after the event that ended it, before
        any event of the next deal (so a deal is public as a whole once it may be)."""
        out: list[dict] = []
        for event in events:
            table, sealed = self._seal(game_id, table, [event], actor, stamp)
            out += sealed
            reveals = tables.reveal_events(table)
            if reveals:
                table, sealed = self._seal(game_id, table, reveals, "system", stamp)
                out += sealed
        return out, table

    def _seal(self, game_id: str, table: dict, events: list[dict], actor: str, stamp: str) -> tuple[dict, list[dict]]:
        """Seal events (cards as the rules' values) as the log writes them, and fold them as they are."""
        sealed = seal_batch(
            game_id,
            table["version"],
            table["hash"],
            [tables.encode(table, e) for e in events],
            actor=actor,
            time=stamp,
            rules=table["rules"],
            salt_key=self.salt_key,
        )
        for env, event in zip(sealed, events):
            table = tables.evolve_decoded(
                table, {**env, "data": event.get("data") or {}, "private": event.get("private")}
            )
        return table, sealed

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
            pending = [s for s in facts.to_act(table) if s in table["absent"]]
            if not pending:
                break
            more = self.timeout_events(table, pending[0], reason="absent")
            if len(envs) + len(more) > self.MAX_APPEND_EVENTS:
                break
            sealed, table = self.append_events(game_id, table, more, actor="worker", stamp=stamp)
            envs = envs + sealed
            moved += 1
        return envs, table

    @staticmethod
    def owes_absent_moves(table: dict) -> bool:
        """Whether an absent seat must act now: the last append stopped at its cap of moves made for them."""
        return bool(table.get("absent")) and any(s in table["absent"] for s in facts.to_act(table))

    @staticmethod
    def timeout_events(table: dict, seat: int, reason: str) -> list[dict]:
        module = registry.get(table["game"])
        move = module.timeout_move(table["state"], seat)
        decided = module.decide(table["state"], {**move, "seat": seat, "seed": facts.seed(table)})
        # the move is the seat's own: it may hold cards no other seat sees (taxes given, a card passed to a
        # partner, cards kept); the events it brings about show publicly what it does publicly
        timed_out = {"type": tables.TURN_TIMED_OUT, "data": {"seat": seat, "reason": reason}}
        return [{**timed_out, "private": {str(seat): {"move": move}}}] + decided

    def commit(
        self,
        game_id: str,
        old: dict | None,
        new: dict,
        envs: list[dict],
        *,
        idempotency_key: str | None = None,
        response: bytes | None = None,
        beside: list[Callable[[Any], None]] | None = None,
        schedule: bool = True,
    ) -> bytes | None:
        """Append ``envs`` (``old`` to ``new``) with what an append writes beside it, and set going what
        follows it.  ``beside``: more writes of the game's own keys for the same round trip (a new game's
        owner and seat tokens): the game is of no use without them, and an error reply to one of
        them fails the request (503) though the append was made; an error reply to the other writes
        beside a move (its deadlines' marks) is logged, the move stands.  ``schedule=False``: the
        deadlines (and a bot's turn) are left to the caller's :meth:`schedule`, once what the game needs
        besides its log is written (an import's owner, tokens and listing)."""
        try:
            result = self.naipes.store.append(
                game_id,
                old["version"] if old else 0,
                envs,
                snapshot=dumps(new),
                idempotency_key=idempotency_key,
                response=response,
                also=self._due_mark(game_id, new, old, beside or (), schedule=schedule),
            )
        except AlsoFailed as exc:
            log.error("writes beside the append of game %s at version %s failed: %s", game_id, new["version"], exc)
            if beside and not self._written_again(game_id, beside):
                raise Unplayable(
                    503,
                    "Service Unavailable",
                    f"game {game_id} was stored, but the event store refused its owner and seat tokens (logged): "
                    "it cannot be played; create the game again",
                    "unavailable",
                ) from None
            result = exc.result
        if result.replayed is not None:
            return result.replayed
        self.naipes.tables.remember(game_id, new)
        if _finishing(old, new):  # once the request is answered (see service.core.afterwards)
            afterwards.later(self._tell_end_as_it_is, game_id, new)
        elif old is not None and facts.finished(new) and tables.outcome(new) != tables.outcome(old):
            for listener in self.naipes.on_result_changed:
                try:
                    listener(game_id, new)
                except Exception:  # the move is stored; the tournament's recheck catches up
                    log.exception("a result listener failed for game %s", game_id)
        elif old is not None and sights.deals_finished(new) > sights.deals_finished(old):  # a held peer may be listed
            try:
                self.naipes.listing.relist_held_peers(game_id)
            except Exception:  # the move is stored; the listing's next read, or the round's next end, lists them
                log.exception("could not list again the held tables of the round of game %s", game_id)
        scheduler = self.naipes.scheduler
        if scheduler is not None and schedule:  # what the append could not carry: bots' turns, continuations
            try:
                getattr(scheduler, "after_append", scheduler)(old or {}, new, game_id)
            except Exception:  # the move is stored; a lost timer must not fail it
                log.exception("could not schedule the deadlines of game %s at version %s", game_id, new["version"])
        return None

    def schedule(self, game_id: str, table: dict) -> None:
        """The deadlines of a table committed with ``schedule=False``, and its bot's turn, written now.
        Should this fail, the listing's mark of a running timed game has the workers' reconcile pass
        write them."""
        scheduler = self.naipes.scheduler
        if scheduler is None:
            return
        try:
            scheduler({}, table, game_id)
        except Exception:  # the game is stored; the reconcile pass catches up
            log.exception("could not schedule the deadlines of game %s at version %s", game_id, table["version"])

    def _written_again(self, game_id: str, beside: list[Callable[[Any], None]]) -> bool:
        """The writes a new game cannot do without (its owner, its seat tokens), made once more on their
        own after an error reply beside its append (which may have been another write's: its deadlines'
        marks, which the workers' passes catch up on); whether they were made."""
        pipe = self.naipes.redis.pipeline(transaction=False)
        for write in beside:
            write(pipe)
        try:
            pipe.execute()
        except Exception:  # the creation fails (503); the error is logged
            log.exception("the owner and seat tokens of game %s could not be written", game_id)
            return False
        return True

    def _tell_end_as_it_is(self, game_id: str, ended: dict) -> None:
        """:meth:`tell_end`, once the answer of the append that ended the game was sent, with the game
        as it is by then: a reviewer's ruling may have come in between (its corrected result told
        before this end would otherwise be followed by the result it corrected)."""
        table = self.naipes.tables.table(game_id)
        self.tell_end(game_id, table if facts.finished(table) else ended)

    def tell_end(self, game_id: str, table: dict) -> bool:
        """What a game's end sets going once its append is stored: the finished-game listeners (its
        tournament's advance, ``game.finished`` webhooks), then its place in the listing (after them: a
        duplicate round's table is listed finished or held by the embargo as the round's counts stand
        once its tournament has read them anew).  The append marked the game in ``FINISHING`` in its
        own round trip; the mark goes once all of it ran, so a process that dies in between leaves it
        for the workers (:func:`finish_pending`).  Every listener may run twice: each one's work is
        idempotent.  Whether all ran."""
        ok = True
        for listener in self.naipes.on_finished:
            try:
                listener(game_id, table)
            except Exception:  # the move is stored; the workers run the listeners again
                log.exception("a finished-game listener failed for game %s", game_id)
                ok = False
        try:
            self.naipes.listing.index(game_id, table)
        except Exception:
            log.exception("could not list game %s as finished", game_id)
            ok = False
        if ok:
            try:
                self.naipes.redis.zrem(FINISHING, game_id)
            except Exception:  # the workers find the mark, and run the listeners again
                log.exception("could not clear the finishing mark of game %s", game_id)
        return ok

    def _due_mark(
        self,
        game_id: str,
        table: dict,
        old: dict | None = None,
        beside: Iterable[Callable[[Any], None]] = (),
        *,
        schedule: bool = True,
    ) -> Callable[[Any], None] | None:
        """What the append of a table writes beside it, in the same round trip: ``beside``, the caller's
        own writes (a new game's owner and seat tokens), then the game's mark
        in DUE at the time of the append when a clock runs, and the scheduler's writes of its
        deadlines when the schedule shares the games' Redis (the entries of ``table`` added, those
        of ``old`` dropped: :meth:`service.core.timers.DeadlineScheduler.in_append`).  Writing
        the deadlines moves the mark to the earliest of them; a mark left at the time of an append
        is a move stored whose deadlines were never written, and the workers' reconcile pass
        writes them (:func:`service.core.timers.reconcile`)."""
        writes: list[Callable[[Any], None]] = list(beside)  # the caller's own, first
        if _finishing(old, table):
            writes.append(lambda pipe: pipe.zadd(FINISHING, {game_id: _time.time()}))
            writes.append(lambda pipe: pipe.zadd(ENDING, {game_id: _time.time()}))
        if schedule:  # (else the caller's :meth:`schedule` writes them)
            if any(entry.get("deadline") is not None for entry in (table.get("clock") or {}).values()):
                writes.append(lambda pipe: pipe.zadd(DUE, {game_id: _time.time()}))
            in_append = getattr(self.naipes.scheduler, "in_append", None)
            scheduled = in_append(game_id, old or {}, table) if in_append is not None else None
            if scheduled is not None:
                writes.append(scheduled)
        if not writes:
            return None
        return lambda pipe: [write(pipe) for write in writes]


def _finishing(old: dict | None, new: dict) -> bool:
    """Whether the append of ``new`` after ``old`` ends the game (a game created finished, an import,
    has no append that ends it)."""
    return old is not None and facts.finished(new) and not facts.finished(old)


def finish_pending(naipes: Naipes, now: float | None = None) -> list[str]:
    """Run the finished-game listeners of the games whose mark in ``FINISHING`` is older than
    ``FINISH_GRACE``: the process that appended their end died (or failed) before its listeners
    all ran.  A mark of an append that was refused (the mark is written beside the append, whatever
    its fate) names a game not finished: it is dropped.  Workers run this every few seconds, one at
    a time.  Returns the games whose listeners ran."""
    now = _time.time() if now is None else now
    marks = naipes.redis.zrangebyscore(FINISHING, "-inf", now - FINISH_GRACE, start=0, num=FINISH_BATCH)
    if not marks:
        return []
    ids = [raw.decode() for raw in marks]
    found = naipes.tables.current(ids)
    done, dropped, failed = [], [], []
    for game_id in ids:
        table = found.get(game_id)
        if table is None or not facts.finished(table):
            dropped.append(game_id)
        elif naipes.appender.tell_end(game_id, table):
            done.append(game_id)
        else:
            failed.append(game_id)
    if dropped:
        naipes.redis.zrem(FINISHING, *dropped)
    if failed:  # tried again after another grace, behind the marks that came since (none starves them)
        naipes.redis.zadd(FINISHING, dict.fromkeys(failed, now), xx=True)
    return done
