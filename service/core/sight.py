"""Who may see what of a game: the one place that decides it.

Every read of a game (its view, its events, the live stream, a replay, the
audit, the export, the viewer page's data) asks :func:`decide` for the
caller's :class:`Sight` and shows exactly that.  The rules, in order:

* **Full sight** (every private part: all hands, the deck and its salt, the
  duplicate deal secret) goes to a key with the ``review`` or ``admin``
  scope, to the key that owns the game (the key that created or imported it),
  and to the key that owns the game's tournament.  It also goes to everyone
  once a game whose table chose ``public_after_end`` is over, unless an
  embargo (below) still holds; but that sight by the table's option never
  shows the table's setup secret (``private.setup`` of ``GameCreated``, the
  duplicate deal secret): every table of a duplicate round (every game made
  with one ``deal_seed``) deals from it, including tables still playing deals
  the finished one never reached.  Nor does it open the whole log (audit,
  export), which holds it.
* **A seat** sees its own private parts and the public ones.
* **Everyone else** (no credential, a key of another owner, a seat of another
  game sending no token) is a spectator: public parts only.

**The duplicate embargo.**  Every table of a duplicate round is dealt the
same cards, so whatever one table shows (a card played, a blind scored, a
revealed deck) is the secret of a table still playing that deal.  A deal of
such a game is public only once every table of the round has finished it.
Until then the game's public horizon is the version before that deal began:
spectators see the game as it was there (view, events, replays, stream),
and a seat of the game sees its own table live except the ``DealRevealed``
events past the horizon (they publish the whole deck).  Full sight by
credential is not embargoed; full sight by ``public_after_end`` waits for
the embargo to lift.
"""

from __future__ import annotations

from dataclasses import dataclass

from events.envelope import for_viewer

REVEAL_EVENT = "DealRevealed"
TIMED_OUT_EVENT = "TurnTimedOut"


@dataclass(frozen=True)
class GameContext:
    """What the decision needs to know about a game beside its table."""

    owner: str | None = None  # key id that created or imported the game
    tournament: str | None = None  # tournament id, for a tournament table
    tournament_owner: str | None = None  # key id that owns that tournament
    peers: tuple[str, ...] = ()  # the other games of its duplicate round (dealt the same cards)
    duplicate: bool = False  # a table of a duplicate round
    round_tables: int = 1  # how many tables that round has
    origin: dict | None = None  # where an imported game came from (None: made here)


@dataclass(frozen=True)
class Sight:
    """One caller's sight of one game.

    ``kind``/``seat`` say whose viewpoint the views are drawn from
    (``integrator`` with ``full`` is the reviewer's), ``full`` whether every
    private part is shown, ``horizon`` the last version whose public parts
    the caller may see (None: no limit)."""

    kind: str  # "seat" | "spectator" | "integrator"
    seat: int | None = None
    full: bool = False
    horizon: int | None = None
    own_seat: bool = False  # a seat token of this very game (sees its own table live under embargo)
    reason: str | None = None  # why a horizon holds
    setup: bool = False  # the table's setup secret too (full sight by credential only)

    @property
    def domain_viewer(self):
        from domain.base import REVIEWER, SPECTATOR

        if self.kind == "seat":
            return self.seat
        return REVIEWER if self.full else SPECTATOR

    def sees_version(self, version: int) -> bool:
        """Whether the caller may see the game as it was at ``version``."""
        return self.full or self.own_seat or self.horizon is None or version <= self.horizon

    @property
    def held(self) -> bool:
        """Whether a duplicate round's embargo holds the caller at ``horizon``."""
        return self.horizon is not None and not self.full and not self.own_seat

    def last_version(self, head: int) -> int:
        """The last version the caller is shown of a log whose head is ``head``."""
        return min(head, self.horizon) if self.held and self.horizon is not None else head


def credential_full(kind: str, key_id: str | None, scopes: frozenset, ctx: GameContext) -> bool:
    """Whether a credential sees every private part of the game by itself."""
    if kind != "integrator":
        return False
    if {"review", "admin"} & scopes:
        return True
    return key_id is not None and key_id in {ctx.owner, ctx.tournament_owner}


def deals_finished(table: dict) -> int:
    """How many of a table's deals have had their hand played out."""
    deals = table["deals"]
    return deals["count"] - len(deals["open"])


def deal_starts(table: dict) -> list[int]:
    """The version at which each deal of the table began (its commitment)."""
    return list(table["deals"].get("starts") or [])


def horizon(table: dict, peers_finished: list[int]) -> int | None:
    """The last version of ``table`` whose public parts may be shown to
    anyone but its own seats, given how many deals each peer table of its
    duplicate round has finished (None: nothing is embargoed)."""
    if not peers_finished:
        return None
    done_everywhere = min([deals_finished(table), *peers_finished])
    starts = deal_starts(table)
    if len(starts) <= done_everywhere:
        return None
    return starts[done_everywhere] - 1


def decide(
    kind: str,
    seat: int | None,
    key_id: str | None,
    scopes: frozenset,
    ctx: GameContext,
    table: dict,
    *,
    finished: bool,
    peers_finished: list[int] | None,
) -> Sight:
    """The caller's sight of a game at its current table.

    ``kind``/``seat``/``key_id``/``scopes`` describe the credential (a seat
    token of *this* game has kind ``seat``); ``peers_finished`` the deals
    finished by each other table of a duplicate round (None outside one)."""
    if credential_full(kind, key_id, scopes, ctx):
        return Sight("integrator", full=True, setup=True)
    limit = horizon(table, peers_finished) if peers_finished is not None else None
    reason = (
        None
        if limit is None
        else ("duplicate round: a deal of this game is public once every table of its round has finished it")
    )
    public_end = finished and bool(table["timing"].get("public_after_end")) and limit is None
    if kind == "seat":
        return Sight("seat", seat=seat, full=public_end, horizon=limit, own_seat=True, reason=reason)
    if public_end:
        return Sight("integrator" if kind == "integrator" else "spectator", full=True)
    return Sight("integrator" if kind == "integrator" else "spectator", horizon=limit, reason=reason)


def envelopes_for(envs: list[dict], sight: Sight) -> list[dict]:
    """The envelopes ``sight`` may see, in order, up to the first one past its horizon."""
    shown = []
    for env in envs:
        out = envelope_for(env, sight)
        if out is None:
            break
        shown.append(out)
    return shown


def envelope_for(env: dict, sight: Sight) -> dict | None:
    """An envelope as ``sight`` may see it, or None when it is past the
    caller's horizon.  Other seats' private parts and the table's setup
    secret are removed (``redacted`` says so); a seat under embargo gets its
    table's ``DealRevealed`` past the horizon without the deck."""
    if sight.full:
        if sight.setup or "setup" not in (env.get("private") or ()):
            return env
        return without_setup(env)
    past = sight.horizon is not None and env["version"] > sight.horizon
    if past and not sight.own_seat:
        return None
    out = for_viewer(env, sight.seat)  # other seats' private parts (and the setup secret) removed
    if env["type"] == TIMED_OUT_EVENT and "move" in env["data"] and env["data"].get("seat") != sight.seat:
        # a log written before the timeout move was kept in its seat's private part holds it in the
        # public data: it may hold cards only that seat sees (taxes given, a card passed)
        out = {**out, "data": {k: v for k, v in env["data"].items() if k != "move"}, "redacted": True}
        out.pop("salt", None)
    if past and env["type"] == REVEAL_EVENT:
        out = dict(out)
        out["data"] = {"deal_version": env["data"].get("deal_version"), "embargoed": True}
        out["redacted"] = True
    return out


def without_setup(env: dict) -> dict:
    """An envelope without the table's setup secret (``private.setup``), marked ``redacted``; its salt goes
    with it, as with every part removed (see :func:`events.envelope.for_viewer`)."""
    out = dict(env)
    private = {k: v for k, v in env["private"].items() if k != "setup"}
    if private:
        out["private"] = private
    else:
        del out["private"]
    out["redacted"] = True
    out.pop("salt", None)
    return out
