"""Reading a game as a caller may see it: its view, legal moves, events and replays."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from domain import registry, wire
from domain import table as tables
from service.core import facts, words
from service.core import sight as sights
from service.core.errors import ProblemError, embargoed, not_found
from service.core.identity import Viewer
from service.core.sight import Sight

_SEAT_VIEWPOINT = re.compile(r"seat:(?:0|[1-9][0-9]{0,2})")  # seat:<n>, n written as the contract writes it

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.reads")


class Reads:
    """Every read goes through :class:`service.core.visibility.Visibility`."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes

    def state_view(self, game_id: str, viewer: Viewer | Sight, table: dict | None = None) -> dict:
        """The game as ``viewer`` may see it: at its latest version, or at the
        version of ``table`` (a replay).  A caller held behind a duplicate
        round's embargo sees the game as it was at its horizon."""
        embargo = None
        if isinstance(viewer, Sight):
            table = table or self.naipes.tables.table(game_id)
            seen = viewer
            if not seen.sees_version(table["version"]):
                raise embargoed(seen)
        else:
            replaying = table is not None
            table = table or self.naipes.tables.table(game_id)
            seen = self.naipes.visibility.sight(game_id, viewer, None if replaying else table)
            if not seen.sees_version(table["version"]):
                if replaying:
                    raise embargoed(seen)
                embargo = {"version": seen.horizon, "reason": seen.reason}
                table = self.naipes.tables.fold_from_zero(game_id, seen.horizon)  # checkpointed, recent ones cached
        module = registry.get(table["game"])
        state = table["state"]
        outcome = tables.outcome(table)
        to_act = facts.to_act(table)
        if seen.kind == "seat" and seen.seat not in facts.seats(table):
            raise ProblemError(403, "Not a seat", "this token's seat is not in the game", "forbidden")
        return {
            "id": game_id,
            "game": table["game"],
            "rules_version": table["rules"],
            "version": table["version"],
            "viewer": {"kind": seen.kind, "seat": seen.seat, "full": seen.full},
            "players": facts.players(table),
            "to_act": to_act,
            "deadlines": {s: facts.iso(c["deadline"]) for s, c in table["clock"].items()} if to_act else {},
            "bank": {s: round(v, 3) for s, v in table["bank"].items()} or None,
            "absent": table["absent"],
            "frozen": table.get("frozen", False),
            "finished": outcome is not None,
            "result": tables.ranked(table, outcome),
            "options": {**table["options"], **table["timing"]},
            "created_at": table["created_at"],
            "updated_at": table["updated_at"],
            "state": wire.encode_view(table["game"], module.view(state, seen.domain_viewer)),
            "embargo": embargo,
            "provenance": self.naipes.visibility.provenance(game_id),
        }

    def legal_moves(self, game_id: str, viewer: Viewer, lang: str = "en") -> dict:
        """The moves the caller's seat may make now, each with its ``label`` in ``lang`` (a move
        may be posted back with its label, which the move ignores)."""
        if viewer.kind == "spectator":
            raise ProblemError(
                401, "Seat token required", "legal moves are given to a seat; send its token", "unauthorized"
            )
        if viewer.kind != "seat":
            raise ProblemError(
                403, "Seat token required", "legal moves are given to a seat; send its token", "seat-required"
            )
        table = self.naipes.tables.table(game_id)
        moves = (
            []
            if facts.finished(table) or table.get("frozen") or tables.bot(table, viewer.seat) is not None
            else registry.get(table["game"]).legal_moves(table["state"], viewer.seat)
        )  # a bot's seat has none: the service plays it
        if moves:
            module = registry.get(table["game"])
            view = module.view(table["state"], viewer.seat)
            moves = [
                {
                    **wire.encode_move(table["game"], m),
                    "label": words.move_label(table["game"], view, viewer.seat, m, lang),
                }
                for m in moves
            ]
        clock = table["clock"].get(str(viewer.seat))
        return {
            "version": table["version"],
            "seat": viewer.seat,
            "moves": moves,
            "deadline": facts.iso(clock["deadline"]) if clock and moves else None,
        }

    def events(self, game_id: str, viewer: Viewer, after: int = 0, limit: int = 1000, lang: str = "en") -> dict:
        """The log after ``after`` as the caller may see it, each event with its ``label`` in ``lang``
        (outside the hash, like ``redacted``).  A long-poll waits at the HTTP edge, on the game's live
        reader (service/web/live.py), and asks again."""
        envs = self.naipes.store.read(game_id, after, count=limit)
        if not envs and not self.naipes.store.exists(game_id):
            raise not_found(game_id)
        version, _ = self.naipes.store.head(game_id)
        table = self.naipes.tables.table(game_id)
        seen = self.naipes.visibility.sight(game_id, viewer, table)
        shown = words.label_events(table, sights.envelopes_for(envs, seen), lang)
        return {
            "version": seen.last_version(version),
            "events": shown,
            "embargo": {"version": seen.horizon, "reason": seen.reason} if seen.held else None,
        }

    def resumable(self, game_id: str, viewer: Viewer, after: int) -> None:
        """Refuse (409) a wait for the events after ``after`` (a stream resumed from Last-Event-ID, a
        long-poll) when ``after`` is past the last version the caller is shown: no event it was sent has
        that version, so the log it followed is not this one (its end was lost, a failover) or the
        position is a client's mistake, and waiting would be silent until other events reached it."""
        if after <= 0:
            return
        head, _ = self.naipes.store.head(game_id)
        if head == 0:
            raise not_found(game_id)
        shown = self.naipes.visibility.sight(game_id, viewer).last_version(head)
        if after > shown:  # the round's counts once more, uncached (another process may have seen a lift first)
            self.naipes.visibility.refresh_round(game_id)
            shown = self.naipes.visibility.sight(game_id, viewer).last_version(head)
        if after > shown:
            raise ProblemError(
                409,
                "Past the end of the log",
                f"version {after} is past the last event you are shown (version {shown}): no event you were sent "
                f"has it; resume from version {shown} or less, or read the game anew",
                "after-past-end",
            )

    def replay(self, game_id: str, viewer: Viewer, version: int, as_: str | None = None) -> dict:
        """The view at ``version`` from a viewpoint the caller is entitled to:
        ``as_`` is ``"reviewer"``, ``"spectator"``, ``"seat"`` (the caller's
        own seat) or ``"seat:<n>"``; by default the caller's own viewpoint."""
        head, _ = self.naipes.store.head(game_id)
        if head == 0:
            raise not_found(game_id)
        as_viewer = self._viewpoint(game_id, viewer, as_)
        # a caller held back by a duplicate round's embargo is told nothing of the log past its horizon,
        # its length included: any version past it is embargoed, whether the table has reached it or not
        if as_viewer.horizon is not None and not as_viewer.sees_version(version):
            raise embargoed(as_viewer)
        if not (1 <= version <= head):
            raise ProblemError(422, "No such version", f"version must be between 1 and {head}", "bad-version")
        table = self.naipes.tables.replay_table(game_id, version)
        if as_viewer.kind == "seat" and as_viewer.seat not in facts.seats(table):
            seats = len(facts.seats(table))
            raise ProblemError(
                422,
                "Bad viewpoint",
                f"the game has no seat {as_viewer.seat} at version {version} (its seats then: 0 to {seats - 1})",
                "bad-viewpoint",
            )
        return self.state_view(game_id, as_viewer, table)

    def _viewpoint(self, game_id: str, viewer: Viewer, as_: str | None) -> Sight:
        """The sight of the viewpoint ``as_`` for a caller entitled to it."""
        mine = self.naipes.visibility.sight(game_id, viewer)
        if as_ is None:
            return mine
        if as_ == "spectator":
            return Sight("spectator", horizon=None if mine.full or mine.own_seat else mine.horizon, reason=mine.reason)
        if as_ == "reviewer":
            if mine.full:
                return Sight("integrator", full=True, setup=mine.setup)
            raise ProblemError(
                403,
                "Not entitled",
                "the reviewer's viewpoint needs a key with the 'review' scope or the key that owns the game",
                "forbidden",
            )
        seat: int | None = None
        if as_ == "seat":
            seat = viewer.seat
        elif _SEAT_VIEWPOINT.fullmatch(as_):
            seat = int(as_[5:])
        else:
            raise ProblemError(
                422, "Bad viewpoint", "as must be 'reviewer', 'spectator', 'seat' or 'seat:<n>'", "bad-viewpoint"
            )
        if seat is None:
            raise ProblemError(
                403, "Not entitled", "as=seat needs a seat token (or name the seat: seat:<n>)", "forbidden"
            )
        if not (mine.full or (viewer.kind == "seat" and viewer.seat == seat)):
            seats = len(facts.seats(self.naipes.tables.table(game_id)))
            if seat >= seats:  # what seats a game has is public: a seat it lacks is a bad request, not a refusal
                raise ProblemError(
                    422,
                    "Bad viewpoint",
                    f"the game has no seat {seat} (its seats: 0 to {seats - 1})",
                    "bad-viewpoint",
                )
            raise ProblemError(
                403,
                "Not entitled",
                f"only seat {seat}'s token or a key that sees the whole game may see seat {seat}'s viewpoint",
                "forbidden",
            )
        return Sight("seat", seat=seat, own_seat=True, full=mine.full and mine.kind != "integrator")
