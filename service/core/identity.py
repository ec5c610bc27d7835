"""Who is asking: integrator keys, seat tokens, or nobody (a spectator)."""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain.base import REVIEWER, SPECTATOR
from service.core.errors import ProblemError, not_found

if TYPE_CHECKING:
    from service.core.naipes import Naipes


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


SEAT_TOKEN_PREFIX = "st_"
AUTH_TTL = 2.0  # seconds a process trusts its copy of a game's seat tokens


def seat_token(game_id: str, secret: str | None = None) -> str:
    """A new seat token of ``game_id``: ``st_<game id>.<secret>`` (a game id holds no '.'), so a token
    tells which game it is for (GET /me); ``secret`` drawn fresh unless given (a tournament's, derived)."""
    return f"{SEAT_TOKEN_PREFIX}{game_id}.{secret if secret is not None else secrets.token_urlsafe(24)}"


def token_game(token: str) -> str | None:
    """The game a seat token names (None for a token that names none: one issued before tokens did)."""
    if not token.startswith(SEAT_TOKEN_PREFIX) or "." not in token:
        return None
    game_id = token[len(SEAT_TOKEN_PREFIX) :].split(".", 1)[0]
    return game_id or None


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
_SEAT_VIEWERS = tuple(Viewer("seat", seat=seat) for seat in range(64))  # the viewers of seats, made once


def seat_viewer(seat: int) -> Viewer:
    return _SEAT_VIEWERS[seat] if 0 <= seat < len(_SEAT_VIEWERS) else Viewer("seat", seat=seat)


class _Tokens:
    """A game's seat tokens as this process read them, trusted until ``until`` (monotonic seconds):
    ``by_hash`` as stored (SHA-256 of a token -> seat), ``by_token`` the tokens this process has
    since seen match, so that a token's next request is not hashed again."""

    __slots__ = ("by_hash", "by_token", "until")

    def __init__(self, by_hash: dict[str, int], until: float):
        self.by_hash = by_hash
        self.by_token: dict[str, int] = {}
        self.until = until


log = logging.getLogger("naipes.identity")


class Identity:
    """Resolves a bearer credential into a :class:`Viewer`: an integrator key (with its scopes), a
    seat token of one game, or nothing."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes
        # game id -> its seat tokens, read again after AUTH_TTL seconds: a seat token revoked by
        # another process (a seat left, a rematch's new token) stops working everywhere within that.
        # At most cache_size games, the longest unread dropped first.
        self._auth: dict[str, _Tokens] = {}
        self._size = naipes.cache_size

    def integrator(self, key: str | None) -> Viewer | None:
        rec = self.naipes.keys.lookup(key)
        if rec is None:
            return None
        return Viewer("integrator", key_id=rec.id, scopes=rec.scopes)

    def require(self, credential: str | None, scope: str, *alternatives: str, game_id: str | None = None) -> Viewer:
        """An integrator key holding ``scope`` (or one of ``alternatives``), or a 401/403 problem; a
        seat token of ``game_id`` (the path's game) is known, and refused as a seat's (403)."""
        if not credential:
            raise ProblemError(
                401, "Integrator key required", "this operation needs an integrator key as bearer token", "unauthorized"
            )
        viewer = self.integrator(credential)
        if viewer is None and game_id is not None and self.seat_for_token(game_id, credential) is not None:
            raise ProblemError(
                403,
                "Integrator key required",
                "this is a seat token of the game: it sees the game through its seat (GET /games/{game_id}, "
                "its events, its replay); this operation needs an integrator key",
                "forbidden",
            )
        if viewer is None:
            raise ProblemError(
                401,
                "Unknown credential",
                "the bearer token is not a live integrator key (a seat token is not one)",
                "unauthorized",
            )
        if not viewer.scopes & {scope, *alternatives}:
            named = " or ".join(f"'{s}'" for s in (scope, *alternatives))
            raise ProblemError(
                403,
                "Scope missing",
                f"this key lacks the {named} scope",
                "scope-missing",
                scope=scope,
                scopes=[scope, *alternatives],
            )
        return viewer

    def seat_for_token(self, game_id: str, token: str) -> int | None:
        known = self._auth.get(game_id)
        if known is not None and known.until > time.monotonic():
            seat = known.by_token.get(token)
            if seat is None:
                seat = known.by_hash.get(token_hash(token))
            if seat is not None:
                known.by_token[token] = seat
                return seat
        # not known, or a token this copy lacks (issued since it was read): read the game's again
        known = _Tokens(self.naipes.store.tokens(game_id), time.monotonic() + AUTH_TTL)
        self._auth.pop(game_id, None)
        self._auth[game_id] = known  # the newest last
        while len(self._auth) > self._size:
            try:
                del self._auth[next(iter(self._auth))]
            except (KeyError, RuntimeError, StopIteration):  # another thread got there first
                break
        seat = known.by_hash.get(token_hash(token))
        if seat is not None:
            known.by_token[token] = seat
        return seat

    def forget(self, game_id: str) -> None:
        """Drop the cached seat tokens of a game (they were replaced)."""
        self._auth.pop(game_id, None)

    def viewer(self, game_id: str | None, credential: str | None, *, seat_only: bool = False) -> Viewer:
        """Resolve a bearer credential: integrator key, seat token, or nothing.

        ``seat_only``: the operation is a seat's (a move, its legal moves): no credential is a 401
        and an integrator key a 403.  A credential that is no key, sent to a game that does not
        exist, is answered 404 (as a seat token of that game would be)."""
        if not credential:
            if seat_only:
                raise ProblemError(
                    401,
                    "Seat token required",
                    "this operation is a seat's: send the seat's token as bearer token",
                    "unauthorized",
                )
            return SPECTATOR_VIEWER
        found = self.integrator(credential)
        if found:
            if seat_only:
                raise ProblemError(
                    403,
                    "Seat token required",
                    "this operation is a seat's: send the seat's token (an integrator key acts for no seat)",
                    "seat-required",
                )
            return found
        if game_id is not None:
            seat = self.seat_for_token(game_id, credential)
            if seat is not None:
                return seat_viewer(seat)
            if not self.naipes.store.exists(game_id):
                raise not_found(game_id)
        raise ProblemError(
            401,
            "Unknown credential",
            "the bearer token is neither an integrator key nor a seat token of this game",
            "unauthorized",
        )
