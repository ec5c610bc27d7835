"""What the application reads off a game's table, alike for every game (who is to act, who
plays, whether it is over), and a command's seed."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from domain import registry
from domain import table as tables
from service.core.errors import ProblemError


def check_fields(legal: list[dict], move: dict) -> None:
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
        raise ProblemError(
            422,
            "Malformed move",
            f"a '{move['type']}' move needs the field {', '.join(repr(m) for m in missing)}",
            "malformed-move",
            rule="missing-field",
        )
    unknown = sorted(set(move) - known)
    if unknown:
        names = ", ".join(repr(str(name)[:40]) for name in unknown[:5])
        raise ProblemError(
            422,
            "Malformed move",
            f"unknown field {names} in a '{move['type']}' move (its fields: {', '.join(sorted(known))})",
            "malformed-move",
            rule="unknown-field",
        )


def seed(table: dict) -> int:
    """A command's seed: fresh randomness, or in duplicate play the seed all
    tables sharing the game's ``deal_seed`` get at this deal."""
    derived = tables.deal_seed(table)
    return derived if derived is not None else secrets.randbits(63)


def finished(table: dict) -> bool:
    return tables.outcome(table) is not None


def to_act(table: dict) -> list[int]:
    """The seats that must act now; none before the game starts (open seats wait for players), once
    it is over or while it is frozen."""
    if not tables.started(table) or table.get("frozen") or tables.outcome(table) is not None:
        return []
    # between two events of one move a game may name no seat yet (None)
    return [s for s in registry.get(table["game"]).to_act(table["state"]) if s is not None]


def players(table: dict) -> list[str]:
    """The players' names, seat by seat: the one place every view, label and listing reads them.
    The table keeps them in its state: a seat claimed with an invitation takes its player's name
    there (:mod:`domain.table`), an open seat holds a placeholder (see :func:`open_seats`)."""
    state = table["state"]
    return list(state.get("players", []))


def open_seats(table: dict) -> list[int]:
    """The seats waiting for a player; a game with any has not started."""
    return tables.open_seats(table)


def started(table: dict) -> bool:
    return tables.started(table)


def seats(table: dict) -> range:
    return range(len(players(table)))


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
