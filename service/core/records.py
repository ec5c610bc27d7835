"""A game's records: reviewers' events (freeze, note, adjudication), export, import and audit."""

from __future__ import annotations

import base64
import contextlib
import logging
import secrets
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain import registry, wire
from domain import table as tables
from events.envelope import dumps, loads, now_iso, parse_time
from events.store import VersionConflict
from service.core import catalogue, facts, ids
from service.core.appending import MAX_RETRIES
from service.core.errors import ProblemError, not_found
from service.core.games import check_distinct_players
from service.core.house_secret import HouseSecret
from service.core.identity import Viewer
from service.core.seats import rematch_reservation
from service.core.verify import EXPORT_FORMAT, unrevealed_deal_problems, verify_export
from service.core.visibility import IMPORTING

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.records")

MAX_IMPORT_EVENTS = 200_000  # whatever the game: the most events an import holds (with the 32 MiB body)

# The longest log a game can reach, from its creation (see :func:`longest_game`): each game's unit of
# play (the option counting them), and a bound on the moves of one unit per seat.  El Gran Dalmuti: a
# hand plays at most its 80 cards, each play followed by at most one pass of every other seat, plus a
# revolution answer per seat, taxes and newcomers placed (82n + 10 <= 100n for n >= 4).  Cego (54
# cards), ¡Muerte al rey! (40 or 48) and Cripple Mr Onion (a few betting parts per seat, whatever the
# sizes of the bets) play far fewer moves per seat and unit (random play: about 15, 10 and 10): 100
# leaves them a wide margin.
UNITS = {"dalmuti": "hands", "cego": "rounds", "muerte": "games", "onion": "rounds"}
MOVES_PER_SEAT_AND_UNIT = 100
EVENTS_PER_UNIT = 4  # a deal's commitment, its reveal, the end of a hand: the table's own events per unit
TABLE_SLACK = 1_000  # reviewers' notes, freezes, rulings; seats claimed, left or given to a bot


def longest_game(game: str, players: int, options: dict) -> int:
    """The most events a game of ``game`` with ``players`` seats and ``options`` can log: every move of
    every seat may come after its ``TurnTimedOut`` (so twice the moves), and the table's own events
    (deals revealed, review and seat events) come on top.  A game that takes newcomers
    (``allow_joining``) is counted at its largest table.  An import holding more is refused."""
    unit = UNITS.get(game)
    if unit is None:
        return MAX_IMPORT_EVENTS
    schema, _validator = catalogue.options_validator(game)
    units = options.get(unit) if isinstance(options, dict) else None
    if not isinstance(units, int) or isinstance(units, bool) or units < 1:
        units = schema["properties"][unit]["default"]
    seats = players
    if isinstance(options, dict) and options.get("allow_joining"):
        seats = max(seats, registry.get(game).MAX_PLAYERS)
    moves = units * MOVES_PER_SEAT_AND_UNIT * seats
    return min(MAX_IMPORT_EVENTS, 2 * moves + EVENTS_PER_UNIT * units + TABLE_SLACK)


def _timestamp(value: str) -> bool:
    """An envelope's time as the service writes it: ISO 8601, in UTC (``Z`` or ``+00:00``).  A log's times
    are shown as they are (the audit, the views' deadlines) and a timed game's clocks are folded from them."""
    if len(value) > 40 or not (value.endswith("Z") or value.endswith("+00:00")):
        return False
    try:
        parse_time(value)
    except (ValueError, OverflowError):
        return False
    return True


def _refused_event(env: dict, why: str) -> ProblemError:
    etype, version = env.get("type"), env.get("version")
    return ProblemError(
        422,
        "Export does not verify",
        f"{etype} at version {version}: {why}. An import brings a game's own log; its seats and its links to "
        "other games are this service's to make",
        "bad-export",
        event=etype,
        version=version,
    )


def sealed_text(game_id: object, version: object, head_hash: object) -> bytes:
    """What an export's seal signs: the game, its version and its head hash (which the chain binds to
    every event before it)."""
    return f"naipes export\n{game_id}\n{version}\n{head_hash}".encode()


def export_seal(secret: HouseSecret, game_id: object, version: object, head_hash: object) -> str:
    """A service's word that it wrote the log of ``game_id`` up to ``version`` ending in ``head_hash``: an
    Ed25519 signature (base64) by its key, which GET /seal-key publishes.  A chain of hashes proves a log
    unchanged since it was written, not who wrote it, and anyone may write a chain."""
    return base64.b64encode(secret.signing_key.sign(sealed_text(game_id, version, head_hash))).decode()


def seal_holds(public_key: str, seal: object, game_id: object, version: object, head_hash: object) -> bool:
    """Whether ``seal`` is the signature, by the key ``public_key`` (base64), of that game's log."""
    if not isinstance(seal, str) or not isinstance(public_key, str):
        return False
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(base64.b64decode(seal, validate=True), sealed_text(game_id, version, head_hash))
    except (ValueError, InvalidSignature):
        return False
    return True


WHOLE_LIMIT = 2**53  # a whole score stays exact as a JSON number any client reads (a double's integers)


class Records:
    """Review, export, import and audit."""

    # At most AUDIT_SLOTS audits are read, checked and written out at once in a process; more get 503
    # with Retry-After (an audit reads and hashes the whole log, as long as its game may be).
    AUDIT_SLOTS = 2
    _audit_slots = threading.BoundedSemaphore(AUDIT_SLOTS)

    def __init__(self, naipes: Naipes):
        self.naipes = naipes

    def review(self, game_id: str, viewer: Viewer, kind: str, data: dict) -> dict:
        """Append a reviewer's event: ``freeze``, ``note`` or ``adjudicate``.

        Nothing is edited: the log only grows.  The event names the key that
        made it (``actor``) and carries the reason.
        """
        actor = f"reviewer:{viewer.key_id}"
        for _ in range(MAX_RETRIES):
            table = self.naipes.tables.table(game_id, fresh=True)
            self._check_review(table, kind, data)
            event = self._review_event(table, kind, data)
            stamp = now_iso()
            # a ruling that ends the game mid-hand ends its deal: revealed in the same append
            envs, new_table = self.naipes.appender.append_events(game_id, table, [event], actor=actor, stamp=stamp)
            try:
                self.naipes.appender.commit(game_id, table, new_table, envs)
            except VersionConflict:
                continue
            return {
                "version": new_table["version"],
                "event": envs[0],
                "frozen": new_table["frozen"],
                "result": tables.ranked(new_table, tables.outcome(new_table)),
            }
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")

    @staticmethod
    def _check_review(table: dict, kind: str, data: dict) -> None:
        if (
            kind == "adjudicate"
            and data.get("action") == "correct_score"
            and len((table.get("adjudication") or {}).get("corrections") or ()) >= tables.MAX_CORRECTIONS
        ):
            raise ProblemError(
                409,
                "Too many corrections",
                f"a game takes at most {tables.MAX_CORRECTIONS} score corrections; award the corrected scores instead",
                "too-many-corrections",
            )

    @staticmethod
    def _review_event(table: dict, kind: str, data: dict) -> dict:
        reason = data.get("reason") or ""
        n = len(facts.players(table))
        if kind == "freeze":
            if table.get("frozen"):
                raise ProblemError(409, "Already frozen", "the game is already frozen", "already-frozen")
            return {"type": tables.GAME_FROZEN, "data": {"reason": reason}}
        if kind == "note":
            at = data.get("version", table["version"])
            if not (1 <= at <= table["version"]):
                raise ProblemError(
                    422, "No such version", f"version must be between 1 and {table['version']}", "bad-version"
                )
            return {"type": tables.NOTE_ADDED, "data": {"at_version": at, "text": data["text"]}}
        action = data["action"]
        body: dict[str, Any] = {"action": action, "reason": reason}
        if action == "unfreeze":
            if not table.get("frozen"):
                raise ProblemError(409, "Not frozen", "the game is not frozen", "not-frozen")
        elif action == "award":
            scores = data.get("scores")
            if not isinstance(scores, list) or len(scores) != n:
                raise ProblemError(
                    422, "Bad award", f"an award gives 'scores' for each of the {n} seats", "bad-adjudication"
                )
            scores = Records._whole(table, scores, "scores")
            ranking = sorted(range(n), key=lambda s: -scores[s])
            best = max(scores)
            body["result"] = {
                "scores": scores,
                "ranking": ranking,
                "winners": [s for s in range(n) if scores[s] == best],
            }
        elif action == "correct_score":
            deltas = data.get("deltas")
            if not isinstance(deltas, list) or len(deltas) != n:
                raise ProblemError(
                    422, "Bad correction", f"a correction gives 'deltas' for each of the {n} seats", "bad-adjudication"
                )
            if tables.outcome(table) is None:
                raise ProblemError(
                    409,
                    "No result yet",
                    "scores can be corrected once the game has a result (award one, or wait for the end)",
                    "no-result",
                )
            from math import isfinite

            if not all(isfinite(a + b) for a, b in zip(tables.outcome(table)["scores"], deltas)):
                raise ProblemError(
                    422, "Bad correction", "the corrected scores must stay finite numbers", "bad-adjudication"
                )
            body["deltas"] = Records._whole(table, deltas, "deltas")
        elif action == "void":
            body["hand"] = data.get("hand")
        return {"type": tables.ADJUDICATED, "data": body}

    @staticmethod
    def _whole(table: dict, values: list, field: str) -> list:
        """An award's scores or a correction's deltas for the game of ``table``.  A game whose
        scores are whole numbers (its module says ``WHOLE_SCORES``: Cripple Mr Onion's are chips)
        takes whole numbers only and keeps them integers: the API reads every number as a float,
        and a score of 3 came back as 3.0."""
        if not getattr(registry.get(table["game"]), "WHOLE_SCORES", False):
            return values
        if not all(isinstance(v, int | float) and float(v).is_integer() and abs(v) <= WHOLE_LIMIT for v in values):
            detail = (
                f"this game's scores are whole numbers: every number in '{field}' must be whole, "
                f"finite and at most {WHOLE_LIMIT} in size"
            )
            raise ProblemError(422, "Bad adjudication", detail, "bad-adjudication")
        return [int(v) for v in values]

    def seal(self, game_id: str, version: int, head_hash: str) -> str:
        """This service's word that it wrote the log of ``game_id`` up to ``version`` ending in ``head_hash``
        (:func:`export_seal`)."""
        return export_seal(self.naipes.secret, game_id, version, head_hash)

    def sealed(self, header: dict, version: int, head_hash: str) -> bool:
        """Whether an export's header carries this service's seal over the log that follows it."""
        public = self.naipes.secret.public_key
        return seal_holds(public, header.get("seal"), header["game_id"], version, head_hash)

    def export_lines(self, game_id: str):
        """The whole log as JSON Lines: a header, then every envelope whole.  The header's ``seal`` is this
        service's word that it wrote the log: a game imported without this service's seal (a log written
        elsewhere, or rewritten) is exported with none (``null``), so that an import does not launder a log
        into one this service vouches for."""
        table = self.naipes.tables.table(game_id, fresh=True)  # one version: the header and the lines agree on it
        # read after the table, from the store: an import marks its game before its events and writes its
        # origin after them, so an export in between (or after a failed write of the origin) finds the mark
        meta = self.naipes.visibility.meta(game_id)
        origin = meta.get("origin")
        vouched = origin.get("sealed") is True if origin else IMPORTING not in meta
        yield (
            dumps(
                {
                    "format": EXPORT_FORMAT,
                    "game_id": game_id,
                    "game": table["game"],
                    "rules_version": table["rules"],
                    "version": table["version"],
                    "head_hash": table["hash"],
                    "outcome": tables.outcome(table),
                    "exported_at": now_iso(),
                    "seal": self.seal(game_id, table["version"], table["hash"]) if vouched else None,
                    "seal_key": self.naipes.secret.public_key,
                }
            )
            + b"\n"
        )
        for env in self.naipes.store.iter_all(game_id, until=table["version"]):
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
            raise ProblemError(
                413,
                "Export too large",
                f"an import holds at most {MAX_IMPORT_EVENTS} events",
                "payload-too-large",
                max_events=MAX_IMPORT_EVENTS,
            )
        try:  # each line read once; a line that cannot be read, or is no object, is named by verify_export
            read = [loads(row) for row in rows]
            rows = read if all(isinstance(row, dict) for row in read) else rows
        except Exception:  # noqa: BLE001
            pass
        self._check_length(rows)
        self._refuse_cheaply(rows, viewer)  # what needs no hash nor fold is refused before them
        report = verify_export(rows)
        header, envs = report["header"], report["events"]
        if isinstance(header, dict) and "game_id" in header and not ids.is_game_id(header["game_id"]):
            raise ProblemError(
                422, "Bad game id", f"the export's game_id is not a valid id: {ids.describe_game_id()}", "bad-game-id"
            )
        if not report["ok"]:
            raise ProblemError(
                422, "Export does not verify", report["problems"][0], "bad-export", problems=report["problems"][:20]
            )
        self._check_creation(envs[0])
        catalogue.check_bot_seats(envs[0]["data"]["options"], len(envs[0]["data"]["players"]))
        self._check_shapes(envs)
        unrevealed = unrevealed_deal_problems(envs)  # a reveal checks its deal; one still to come is checked here
        if unrevealed:
            raise ProblemError(422, "Export does not verify", unrevealed[0], "bad-export", problems=unrevealed)
        review = [e["version"] for e in envs if e["type"] in tables.REVIEW_EVENTS]
        _check_review_authority(review, viewer)  # made already by _refuse_cheaply, on the lines as read
        game_id = header["game_id"]
        self._check_free(game_id)
        table = self._fold_checked(envs)
        catalogue.check_search_seats(table["timing"].get("bots") or {})  # its bots as seated by its log too
        origin = {
            "imported_at": now_iso(),
            "imported_by": viewer.key_id if viewer else None,
            "imported_version": table["version"],
            "source_head_hash": table["hash"],
            "exported_at": header.get("exported_at") if isinstance(header.get("exported_at"), str) else None,
            "review_events": len(review),
            "sealed": self.sealed(header, table["version"], table["hash"]),
        }
        owner = viewer.key_id if viewer else None
        envs, table = self._restart_clocks(game_id, envs, table)
        # a running game whose search bots will play on here takes a slot of its owner's (service.core.quotas)
        searching = not facts.finished(table) and "search" in (table["timing"].get("bots") or {}).values()
        with self.naipes.search_quota.holding(owner if searching else None, game_id):
            try:
                # this attempt's own key: the store answers its own append sent again as made, and another
                # import of the same log (the same bytes) as a conflict
                attempt = f"import:{secrets.token_hex(8)}"
                if not origin["sealed"]:  # before the events: no export seals them meanwhile
                    self.naipes.visibility.mark_import(game_id)
                # its deadlines and bots' turns once its owner, tokens and listing are written: a bot's move
                # that ended the game before them would tell its end to no owner, and be listed over
                self.naipes.appender.commit(game_id, None, table, envs, idempotency_key=attempt, schedule=False)
            except VersionConflict:
                raise ProblemError(
                    409, "Game exists", f"game '{game_id}' is already in this store", "game-exists"
                ) from None
            # after the append: an import racing another of the same id must not name itself the owner of
            # the game that won
            self.naipes.visibility.write_meta(game_id, owner=owner, origin=origin)
            seats = self.naipes.games.new_tokens(game_id, facts.players(table), replace=False)
            self.naipes.listing.index(game_id, table, created=True)
        self.naipes.appender.schedule(game_id, table)
        return {
            "id": game_id,
            "game": table["game"],
            "version": table["version"],
            "seats": seats,
            "provenance": self.naipes.visibility.provenance(game_id),
        }

    def _restart_clocks(self, game_id: str, envs: list[dict], table: dict) -> tuple[list[dict], dict]:
        """A running game whose clock runs (a seat's turn, or a bot's) starts its clocks again here: a
        ``ClocksRestarted`` event follows the imported log, so each seat to act gets a fresh turn from the
        import instead of being timed out for the time between the export and the import; its deadlines
        are scheduled once the game's owner, tokens and listing are written.  A finished or frozen game
        runs no clock."""
        if tables.outcome(table) is not None or not table.get("clock"):
            return envs, table
        event = {"type": tables.CLOCKS_RESTARTED, "data": {"reason": "imported"}}
        more, table = self.naipes.appender.append_events(game_id, table, [event], actor="system", stamp=now_iso())
        return envs + more, table

    def _refuse_cheaply(self, rows: list, viewer: Viewer | None) -> None:
        """The refusals that read no more than each line's type and the header's id, made before the
        chain is hashed and the log folded (seconds of a worker's CPU for a large log): review events
        brought by a key without the ``review`` scope, and a game this store holds already.  A line that
        cannot be read is left to :func:`verify_export`, which names it, and so is a log with no events
        (nothing to hash: what is wrong with it is told before where its id stands)."""
        if len(rows) < 2:
            return
        try:
            header = _read(rows[0])
            types = [_read(row).get("type") for row in rows[1:]]
        except Exception:  # noqa: BLE001 - verify_export names what cannot be read
            return
        # (a type that is no string, a list say, is no review event: verify_export refuses it)
        review = [v for v, t in enumerate(types, start=1) if isinstance(t, str) and t in tables.REVIEW_EVENTS]
        _check_review_authority(review, viewer)
        game_id = header.get("game_id") if isinstance(header, dict) else None
        if isinstance(game_id, str) and ids.is_game_id(game_id):
            self._check_free(game_id)

    def _check_free(self, game_id: str) -> None:
        """An import's id is no game's of this store, nor kept for one (409 ``game-exists``)."""
        if self.naipes.store.exists(game_id):
            raise ProblemError(409, "Game exists", f"game '{game_id}' is already in this store", "game-exists")
        if self.naipes.redis.exists(rematch_reservation(game_id)):
            # a finished game's log names this id as its rematch: the id is that rematch's, made or not yet
            raise ProblemError(
                409, "Game exists", f"game id '{game_id}' is kept for the rematch of another game", "game-exists"
            )

    @staticmethod
    def _check_length(rows: list) -> None:
        """No more events than the game the log creates can reach (:func:`longest_game`), checked before
        the log is folded."""
        try:
            first = _read(rows[1]) if len(rows) > 1 else None
        except Exception:  # noqa: BLE001 - verify_export names what cannot be read
            return
        data = first.get("data") if isinstance(first, dict) else None
        if not isinstance(data, dict) or not isinstance(data.get("players"), list):
            return
        game = data.get("game")
        if game not in UNITS:
            return
        limit = longest_game(game, len(data["players"]), data.get("options") or {})
        if len(rows) - 1 > limit:
            raise ProblemError(
                413,
                "Export too large",
                f"the log holds {len(rows) - 1} events; a game of {game} with {len(data['players'])} seats and "
                f"these options holds at most {limit}",
                "payload-too-large",
                max_events=limit,
            )

    def _fold_checked(self, envs: list[dict]) -> dict:
        """The imported log folded, each seat event checked against the table before it: only what this
        service would have appended for the game itself (a claim of an open seat under a free name, a
        seat left by its player, a bot given an absent player's seat), no rematch it names (a game
        of this store, whose seats a rematch hands out), and a restart of the clocks only as a service
        writes it on an import (by ``system``, in a running game)."""
        table = None
        for env in envs:
            if table is not None and env["type"] in tables.SEAT_EVENTS:
                self._check_seat_event(table, env)
            elif table is not None and env["type"] == tables.CLOCKS_RESTARTED:
                if env.get("actor") != "system" or tables.outcome(table) is not None:
                    raise _refused_event(env, "the clocks restart only by the service's own hand, in a running game")
            table = tables.evolve(table, env)
        return table

    @staticmethod
    def _check_seat_event(table: dict, env: dict) -> None:
        etype, data = env["type"], env.get("data")
        if etype == tables.REMATCH_CREATED:
            raise _refused_event(env, "a rematch named by a log made elsewhere would be a game of this store")
        names = facts.players(table)
        seat = data.get("seat") if isinstance(data, dict) else None
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(names):
            raise _refused_event(env, f"the game has seats 0 to {len(names) - 1}")
        if facts.finished(table):
            raise _refused_event(env, "the game is finished; its seats no longer change")
        waiting = facts.open_seats(table)
        player = data.get("player")
        if etype == tables.SEAT_CLAIMED:
            if seat not in waiting:
                raise _refused_event(env, f"seat {seat} is not open")
            if not (isinstance(player, str) and 1 <= len(player) <= 64 and player.isprintable() and player.strip()):
                raise _refused_event(env, "a player's name is 1 to 64 printable characters")
            if any(p == player or tables.placeholder(s) == player for s, p in enumerate(names) if s != seat):
                raise _refused_event(env, f"another seat of the game is '{player}'")
            return
        if player != names[seat]:
            raise _refused_event(env, f"seat {seat}'s player is '{names[seat]}'")
        if etype == tables.SEAT_LEFT:
            if seat in waiting or seat in table.get("left", ()):
                raise _refused_event(env, f"seat {seat} has no player to leave")
        elif etype == tables.BOT_SEATED:
            if data.get("bot") not in tables.BOT_KINDS:
                raise _refused_event(env, f"bot: one of {', '.join(tables.BOT_KINDS)}")
            if tables.bot(table, seat) is not None or seat not in table["absent"]:
                raise _refused_event(env, f"a bot takes only an absent player's seat, and seat {seat}'s is not")
        else:
            raise _refused_event(env, "not a seat event this service appends")

    @staticmethod
    def _check_shapes(envs: list[dict]) -> None:
        """Every event has the shape this service writes: the envelope's members, and its public and secret
        parts as the game's event schemas give them (GET /game-types/{game} ``event_schemas``).  A chain
        proves nothing about shapes: a log with a seat written as a list would be stored, and every view of
        it would fail.  A log written before the card notation (its cards the rules' values) is checked for
        its envelopes only."""
        game = envs[0]["data"].get("game")
        # a list: a rules version written as a list or an object is looked up by equality, and refused
        folds = [registry.get(game).RULES_VERSION, *getattr(registry.get(game), "FOLDS_RULES", ())]
        checks = catalogue.event_checks(game) if envs[0]["data"].get("cards") == "codes" else None
        for env in envs:
            members = (
                ("type", str),
                ("actor", str),
                ("time", str),
                ("data", dict),
            )
            for name, kind in members:
                if not isinstance(env.get(name), kind):
                    raise _refused_event(env, f"its {name} is not a {kind.__name__}")
            if not _timestamp(env["time"]):
                raise _refused_event(env, f"its time {env['time'][:40]!r} is not an ISO 8601 timestamp in UTC")
            if env.get("rules") is not None and env["rules"] not in folds:
                raise _refused_event(env, f"rules version {str(env['rules'])[:20]!r} is not one of {sorted(folds)}")
            if "private" in env and not isinstance(env["private"], dict):
                raise _refused_event(env, "its private part is not an object")
            if "salt" in env and not (isinstance(env["salt"], str) and len(env["salt"]) <= 64):
                raise _refused_event(env, "its salt is not a short string")
            if checks is None:
                continue
            shape = checks.get(env["type"])
            if shape is None:
                raise _refused_event(env, f"no {game} event has this type")
            data_check, private_check = shape
            found = data_check(env["data"]) if data_check else None
            if found is None and "private" in env:
                if private_check is None:
                    raise _refused_event(env, "this event has no private part")
                found = private_check(env["private"])
                found = found and (f"/private{found[0]}", found[1])
            elif found is not None:
                found = (f"/data{found[0]}", found[1])
            if found is not None:
                raise _refused_event(env, f"{found[0]}: {found[1]}")

    def _check_creation(self, first: dict) -> None:
        """An imported game's creation passes the checks a game made here passes."""
        data = first.get("data") or {}
        if first.get("type") != tables.GAME_CREATED or first.get("version") != 1:
            raise ProblemError(422, "Export does not verify", "the log does not start with GameCreated", "bad-export")
        game_type, players = data.get("game"), data.get("players")
        try:
            module = registry.get(game_type)
        except (registry.UnknownGame, TypeError):
            raise ProblemError(
                422, "Unknown game type", "the export's game type is not one this service hosts", "unknown-game"
            ) from None
        if not isinstance(players, list) or not all(
            isinstance(p, str) and 1 <= len(p) <= 64 and p.isprintable() for p in players
        ):
            raise ProblemError(
                422, "Bad players", "players must be names of 1 to 64 printable characters", "invalid-players"
            )
        if not (module.MIN_PLAYERS <= len(players) <= module.MAX_PLAYERS):
            raise ProblemError(
                422,
                "Wrong number of players",
                f"{module.TITLE} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, "
                f"the export has {len(players)}",
                "player-count",
            )
        check_distinct_players(players, where="the export's GameCreated: ")
        if "rematch_of" in data:  # a game of this store, whose seats a rematch would hand out
            raise ProblemError(
                422,
                "Export does not verify",
                f"GameCreated at version {first.get('version')}: rematch_of names a game this import does not "
                "bring; an imported game follows no game of this store",
                "bad-export",
                event=tables.GAME_CREATED,
                version=first.get("version"),
                field="/data/rematch_of",
            )
        waiting = data.get("open") or []
        if not (
            isinstance(waiting, list)
            and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < len(players) for s in waiting)
            and len(set(waiting)) == len(waiting)
            and all(players[s] == tables.placeholder(s) for s in waiting)
        ):
            raise ProblemError(
                422,
                "Export does not verify",
                "GameCreated: open lists seats of the game, each once, each under its placeholder ('seat 1')",
                "bad-export",
            )
        if data.get("cards") not in (None, wire.CODES):
            raise ProblemError(
                422,
                "Export does not verify",
                f"cards: {wire.CODES!r} or absent (a log of the rules' values)",
                "bad-export",
            )
        options = data.get("options")
        if not isinstance(options, dict):
            raise ProblemError(422, "Invalid options", "options: not an object", "invalid-options")
        catalogue.validate_options(game_type, options)

    @contextlib.contextmanager
    def audit_slot(self) -> Iterator[None]:
        """One of the process's AUDIT_SLOTS for an audit read and written out (none free: 503)."""
        if not self._audit_slots.acquire(blocking=False):
            raise ProblemError(
                503,
                "Too many audits",
                "this server is reading as many audits as it may at once; retry in a moment",
                "unavailable",
                headers={"Retry-After": "1"},
            )
        try:
            yield
        finally:
            self._audit_slots.release()

    def audit(self, game_id: str) -> dict:
        envs, head_version, head_hash, check = self.naipes.store.checked_log(game_id)
        if not envs:
            raise not_found(game_id)
        provenance = self.naipes.visibility.provenance(game_id)
        imported_until = provenance.get("imported_version", 0)
        review = [
            {
                "version": e["version"],
                "time": e["time"],
                "actor": e["actor"],
                "type": e["type"],
                **{k: v for k, v in e["data"].items() if k in ("action", "reason", "text", "at_version")},
                # a review entry written elsewhere and imported is the exporter's word, not this service's
                "authority": "imported" if e["version"] <= imported_until else "this service",
            }
            for e in envs
            if e["type"] in tables.REVIEW_EVENTS
        ]
        return {
            "id": game_id,
            "version": head_version,
            "head_hash": head_hash,
            "chain": check,
            "provenance": provenance,
            "review": review,
            "events": envs,
        }


def _read(row: bytes | str | dict) -> object:
    """A line of an import, read (or read already)."""
    return row if isinstance(row, dict) else loads(row)


def _check_review_authority(review: list[int], viewer: Viewer | None) -> None:
    """Review events (at these versions) come in only with a key of the ``review`` scope (403)."""
    if review and (viewer is None or "review" not in viewer.scopes):
        raise ProblemError(
            403,
            "Review events need the review scope",
            f"the log holds review events (versions {', '.join(map(str, review[:10]))}); "
            "importing them needs a key with the 'review' scope",
            "review-authority",
        )
