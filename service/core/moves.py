"""A seat's move: checked against the legal moves, decided by the game, appended once
(idempotency keys, If-Match, retried on a concurrent append)."""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING

from domain import registry, wire
from domain import table as tables
from domain.base import RuleViolation
from events.envelope import canonical, dumps, loads, now_iso
from events.store import VersionConflict
from service.core import catalogue, facts, words
from service.core import sight as sights
from service.core.appending import MAX_RETRIES
from service.core.errors import ProblemError, rule_problem
from service.core.identity import seat_viewer

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.moves")


class Moves:
    """Decides and appends seats' moves."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes

    def move(
        self,
        game_id: str,
        seat: int,
        move: dict,
        *,
        if_match: int | None = None,
        idempotency_key: str | None = None,
        actor: str | None = None,
        lang: str = "en",
    ) -> dict:
        """Decide and append one seat's move; returns ``{"version", "events"}`` (each event with its
        ``label`` in ``lang``).  A move may carry the ``label`` legal-moves gave it: it is ignored."""
        move = {k: v for k, v in move.items() if k != "label"}
        idem = f"{seat}:{idempotency_key}" if idempotency_key else None
        # the move's members in any order are the same move (a JSON object's members have none)
        fingerprint = hashlib.sha256(canonical(move)).hexdigest() if idem else None
        try:
            return self._move(game_id, seat, move, if_match, idem, fingerprint, actor, lang)
        except ProblemError:
            # a retry of a move already made: the game has moved on (its version, or the move no longer
            # legal); its first answer is stored under the key.  Asked only on a refusal, so that the
            # move itself costs one round trip, the append (whose script answers a retry that races it)
            prior = self.naipes.store.remember_response(game_id, idem) if idem else None
            if prior is not None:
                return self._replayed(prior, fingerprint)
            raise

    def _move(
        self,
        game_id: str,
        seat: int,
        move: dict,
        if_match: int | None,
        idem: str | None,
        fingerprint: str | None,
        actor: str | None,
        lang: str,
    ) -> dict:
        table = self.naipes.tables.table(game_id, trust_cache=True)
        for attempt in range(MAX_RETRIES):
            if if_match is not None and table["version"] != if_match:
                if attempt == 0:
                    table = self.naipes.tables.table(game_id)  # the cache may be behind: caught up
                if table["version"] != if_match:
                    raise ProblemError(
                        412,
                        "Version mismatch",
                        f"If-Match names version {if_match} but the game is at version {table['version']}",
                        "version-mismatch",
                        current_version=table["version"],
                    )
            self.check_open(table)
            self.check_person(table, seat, actor)
            module = registry.get(table["game"])
            if attempt == 0:
                facts.check_fields(module.legal_moves(table["state"], seat), move)
                rules_move = self.values(table["game"], move)
                catalogue.check_move(table["game"], move)  # its type's schema: names the field that is wrong
            command = {**rules_move, "seat": seat, "seed": facts.seed(table)}
            try:
                decided = module.decide(table["state"], command)
            except RuleViolation as exc:
                if attempt == 0:  # refused by a cached table that may be behind: decided again on the current one
                    current = self.naipes.tables.table(game_id)
                    if current["version"] != table["version"]:
                        table = current
                        continue
                raise rule_problem(exc, acting=seat in facts.to_act(table)) from None
            stamp = now_iso()
            if self.late(table, seat, stamp, actor):
                if attempt == 0:  # a cached table may be behind: the seat's clock read again
                    current = self.naipes.tables.table(game_id)
                    if current["version"] != table["version"]:
                        table = current
                        continue
                self._expired(game_id, table, seat)
            envs, new_table = self.naipes.appender.append_events(
                game_id, table, decided, actor=actor or f"seat:{seat}", stamp=stamp
            )
            envs, new_table = self.naipes.appender.settle(game_id, envs, new_table, stamp)
            seen = self.naipes.visibility.sight(game_id, seat_viewer(seat), new_table)
            response = {
                "version": new_table["version"],
                "events": words.label_events(
                    new_table, [e for e in (sights.envelope_for(env, seen) for env in envs) if e is not None], lang
                ),
                "to_act": facts.to_act(new_table),
                "finished": facts.finished(new_table),
            }
            try:
                result = self.naipes.appender.commit(
                    game_id,
                    table,
                    new_table,
                    envs,
                    idempotency_key=idem,
                    response=dumps({"fingerprint": fingerprint, "response": response}) if idem else None,
                )
            except VersionConflict:
                if if_match is not None:
                    raise ProblemError(
                        412,
                        "Version mismatch",
                        f"the game moved past version {if_match} before this move was applied",
                        "version-mismatch",
                    ) from None
                table = self.naipes.tables.table(game_id)
                continue
            if result is not None:
                return self._replayed(result, fingerprint)
            return response
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")

    @staticmethod
    def late(table: dict, seat: int, stamp: str, actor: str | None) -> bool:
        """Whether a person's move comes after its seat's deadline (its turn and bank spent): the move would
        be stamped after it.  A bot's deadline is its turn's start (the workers make its move at once)."""
        if (actor or "").startswith("bot:"):
            return False
        deadline = ((table.get("clock") or {}).get(str(seat)) or {}).get("deadline")
        return deadline is not None and tables.epoch(stamp) > deadline

    def _expired(self, game_id: str, table: dict, seat: int) -> None:
        """Refuse a move that came after its seat's deadline, once the seats whose time is up are timed
        out here (what a worker does when their deadlines fall due; the first to append wins, the other
        appends nothing).  No move is stored after its seat's deadline: the log shows the timeout instead."""
        deadline = table["clock"][str(seat)]["deadline"]
        try:
            self.naipes.deadlines.enforce_due(game_id, table["version"], table=table)
        except Exception:  # the workers time the seat out when its deadline's entry comes up
            log.exception("could not time out the seats of game %s at version %s", game_id, table["version"])
        raise ProblemError(
            409,
            "Time is up",
            f"seat {seat}'s time for this decision ran out at {facts.iso(deadline)}: its timeout move is made "
            "instead (the game's rules notes say which); read the game again",
            "turn-expired",
            deadline=facts.iso(deadline),
        )

    @staticmethod
    def values(game: str, move: dict) -> dict:
        """A posted move with its cards, written as codes, as the rules' own values; a card that is
        not a code of the game (the integer a game used before its notation, say) is refused with
        the field named."""
        try:
            return wire.decode_move(game, move)
        except wire.CardError as exc:
            raise ProblemError(
                422,
                "Malformed move",
                f"{exc.path}: {exc.detail}; cards are written in the game's notation (GET /game-types/{game})",
                "malformed-move",
                rule="card-code",
                field=exc.path,
            ) from None

    @staticmethod
    def _replayed(raw: bytes, fingerprint: str | None) -> dict:
        stored = loads(raw)
        if fingerprint is not None and stored.get("fingerprint") not in (None, fingerprint):
            raise ProblemError(
                422,
                "Idempotency key reused",
                "this Idempotency-Key was used before with a different move",
                "idempotency-key-reused",
            )
        return {**stored["response"], "replayed": True}

    @staticmethod
    def check_person(table: dict, seat: int, actor: str | None) -> None:
        """A seat the service's bot plays takes no move from a person (its seat token, say): the workers
        make the bot's moves, and two players for one seat would race each other."""
        kind = tables.bot(table, seat)
        if kind is not None and not (actor or "").startswith("bot:"):
            raise ProblemError(
                403,
                "Seat played by a bot",
                f"seat {seat} is played by the service's '{kind}' bot (table option bots); the workers make its "
                "moves, not a seat token",
                "forbidden",
                bot=kind,
            )

    @staticmethod
    def check_open(table: dict) -> None:
        if not facts.started(table):
            raise ProblemError(
                409,
                "Game not started",
                f"the game waits for players in its open seats {facts.open_seats(table)}; no move before it starts",
                "game-not-started",
                open=facts.open_seats(table),
            )
        if table.get("frozen"):
            raise ProblemError(409, "Game frozen", "a reviewer has frozen this game; moves are refused", "game-frozen")
        if facts.finished(table):
            raise ProblemError(409, "Game over", "the game is finished; no more moves", "game-finished")
