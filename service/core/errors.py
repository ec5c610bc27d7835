"""The errors a client can act on: the application raises them, the HTTP edge answers them as
problem+json (the kinds are listed in :mod:`service.core.problems`)."""

from __future__ import annotations

from typing import Any

from domain.base import RuleViolation
from service.core.sight import Sight


class ProblemError(Exception):
    """An error a client can act on; the HTTP layer turns it into problem+json."""

    def __init__(self, status: int, title: str, detail: str, kind: str, **extra: Any):
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail
        self.kind = kind
        self.extra = extra


class Unplayable(ProblemError):
    """A game was stored but cannot be played (its owner and seat tokens could not be written): what
    its creation held for it (a search bot's slot) is given back."""


def not_found(game_id: str) -> ProblemError:
    return ProblemError(404, "Game not found", f"there is no game '{game_id}'", "game-not-found")


def embargoed(seen: Sight) -> ProblemError:
    return ProblemError(
        403,
        "Embargoed",
        f"this version is not public yet ({seen.reason}); the latest version the caller may see is {seen.horizon}",
        "embargoed",
        visible_version=seen.horizon,
    )


def rule_problem(exc: RuleViolation, *, acting: bool | None = None) -> ProblemError:
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
