"""Seats that change hands: open seats claimed with an invitation, seats left, a finished game's
rematch with the same players, and the lobby of games waiting for players.

An open seat (a ``None`` player at creation, :meth:`service.core.games.Games.create_game`) has an
invitation, stored only hashed beside the game's other keys (``naipes:{<game>}:invitations``, seat
-> SHA-256 of the code).  Claiming it appends the table event ``SeatClaimed`` and answers the
seat's token once; the append that claims the last open seat starts the game.  The game's log is
the one truth of which seat is open: two claims of one seat append at the same version, and the
second, retried, finds the seat taken.

Leaving appends ``SeatLeft``: before the start the seat is open again (its owner asks a new
invitation), after it the seat is absent for good and the rules' timeout move plays it; the
seat's token stops working either way.

A rematch is reserved by appending ``RematchCreated`` (naming the new game's id) to the finished
game, at the version read: concurrent calls append one, and every caller then finds the same new
game.  Each seat of the old game gets its own token of the new game from its old token; the owning
key gets all of them.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time as _time
from typing import TYPE_CHECKING

from domain import registry
from domain import table as tables
from domain.base import RuleViolation
from events.envelope import now_iso
from events.feed import TOKENS_CHANGED
from events.store import VersionConflict, key
from service.core import catalogue, facts
from service.core.appending import MAX_RETRIES
from service.core.errors import ProblemError, not_found
from service.core.identity import SPECTATOR_VIEWER, Viewer, seat_token, token_hash

if TYPE_CHECKING:
    from service.core.naipes import Naipes


def rematch_reservation(game_id: str) -> str:
    """The key that keeps ``game_id`` for the rematch of the game it holds (written before the link)."""
    return key(game_id, "rematch-of")


log = logging.getLogger("naipes.seats")

INVITATION_PREFIX = "inv_"
REMATCH_WAIT = 5.0  # seconds a rematch call waits for the game another call is creating

# KEYS: a game's token hash; ARGV: seat, the new token's hash ('' = none), the game's channel ('' = none: a
# Redis Cluster), the message of a change of tokens.  The seat's earlier tokens are dropped and the new one
# stored, in one step, and the processes following the game are told (first: a server refusing to publish
# writes nothing), so the streams of the earlier tokens end.
_SEAT_TOKEN = """
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if all[i + 1] == ARGV[1] then redis.call('HDEL', KEYS[1], all[i]) end
end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], ARGV[2], ARGV[1]) end
return 1
"""

# KEYS: a game's invitations; ARGV: seat, the used invitation's hash.  The invitation is dropped only
# if it is still the one used (a new invitation asked meanwhile stays).
_USED_INVITATION = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


def claim_url(game_id: str, seat: int) -> str:
    return f"/games/{game_id}/seats/{seat}/claim"


def _contention() -> ProblemError:
    return ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")


class Seats:
    """Invitations, claims, leaving, rematches and the lobby."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes
        self._seat_token = naipes.redis.register_script(_SEAT_TOKEN)
        self._used_invitation = naipes.redis.register_script(_USED_INVITATION)

    # ------------------------------------------------------------ invitations
    def invite(self, game_id: str, seats: list[int], *, replace: bool = False) -> list[dict]:
        """A fresh invitation for each of ``seats`` (an earlier one of the seat stops working);
        the codes are returned once and stored only hashed."""
        codes = {seat: INVITATION_PREFIX + secrets.token_urlsafe(18) for seat in seats}
        pipe = self.naipes.redis.pipeline(transaction=True)
        if replace:
            pipe.delete(key(game_id, "invitations"))
        if codes:
            pipe.hset(key(game_id, "invitations"), mapping={str(s): token_hash(c) for s, c in codes.items()})
        pipe.execute()
        return [{"seat": s, "invitation": c, "url": claim_url(game_id, s)} for s, c in codes.items()]

    def new_invitation(self, game_id: str, seat: int, viewer: Viewer) -> dict:
        """A new invitation for an open seat (one left before the start), for the key that owns the game."""
        table = self._table(game_id)
        self._check_owner(game_id, viewer)
        self._check_seat(table, seat)
        self._check_not_finished(table)
        if seat not in facts.open_seats(table):
            raise ProblemError(
                409, "Seat not open", f"seat {seat} has a player; only an open seat has an invitation", "seat-not-open"
            )
        return {"id": game_id, **self.invite(game_id, [seat])[0]}

    def _invitation_matches(self, game_id: str, seat: int, code: str) -> bool:
        stored = self.naipes.redis.hget(key(game_id, "invitations"), str(seat))
        return stored is not None and hmac.compare_digest(stored.decode(), token_hash(code))

    # ------------------------------------------------------------ claiming
    def claim(self, game_id: str, seat: int, invitation: str, player: str) -> dict:
        """Exchange an open seat's invitation for its token (returned once), under ``player``'s name;
        the claim of the last open seat starts the game in the same append."""
        self._check_name(player)
        token = seat_token(game_id)
        stored_token = False
        try:
            for _ in range(MAX_RETRIES):
                # the invitation is read before the log: a claim that won meanwhile drops it only after
                # its append, so a used invitation is found used (410), never wrong (409)
                matches = self._invitation_matches(game_id, seat, invitation)
                table = self._table(game_id)
                self._check_seat(table, seat)
                self._check_not_finished(table)
                if seat not in facts.open_seats(table):
                    # a seat given its player at creation never had an invitation (a table folded before
                    # claims were kept, from an older snapshot, tells none apart: its invitation was used)
                    if "claimed" in table and seat not in table["claimed"]:
                        raise ProblemError(
                            409,
                            "Seat not open",
                            f"seat {seat} was given its player when the game was made: it never had an invitation",
                            "seat-not-open",
                        )
                    raise ProblemError(
                        410,
                        "Invitation used",
                        f"seat {seat} is claimed already: its invitation was used (an invitation works once)",
                        "invitation-used",
                    )
                if not matches:
                    raise ProblemError(
                        409,
                        "Wrong invitation",
                        f"this is not the invitation of seat {seat}; no token is given",
                        "wrong-invitation",
                    )
                self._check_name_free(table, seat, player)
                stamp = now_iso()
                event = {"type": tables.SEAT_CLAIMED, "data": {"seat": seat, "player": player}}
                envs, new = self.naipes.appender.append_events(game_id, table, [event], actor="integrator", stamp=stamp)
                if not facts.open_seats(new):
                    more, new = self._start(game_id, new, stamp)
                    envs += more
                envs, new = self.naipes.appender.settle(game_id, envs, new, stamp)
                if not stored_token:  # shown to nobody unless the claim is stored
                    self.naipes.store.set_tokens(game_id, {token_hash(token): seat})
                    stored_token = True
                try:
                    self.naipes.appender.commit(game_id, table, new, envs)
                except VersionConflict:
                    continue
                stored_token = False  # the claim is stored: the token is the seat's
                self._used_invitation(keys=[key(game_id, "invitations")], args=[str(seat), token_hash(invitation)])
                self.naipes.listing.index(game_id, new)
                return {
                    "id": game_id,
                    "version": new["version"],
                    "seat": seat,
                    "player": player,
                    "token": token,
                    "started": facts.started(new),
                }
            raise _contention()
        finally:
            if stored_token:  # the claim failed: the token drawn for it never works
                self.naipes.store.drop_tokens(game_id, [token_hash(token)])

    def _start(self, game_id: str, table: dict, stamp: str) -> tuple[list[dict], dict]:
        """The game's ``start``, decided once every seat has its player."""
        module = registry.get(table["game"])
        try:
            start = module.decide(table["state"], {"type": "start", "seat": None, "seed": facts.seed(table)})
        except RuleViolation as exc:
            raise ProblemError(422, "Game cannot start", exc.detail, "cannot-start", rule=exc.rule) from None
        return self.naipes.appender.append_events(game_id, table, start, actor="system", stamp=stamp)

    # ------------------------------------------------------------ leaving
    def leave(self, game_id: str, seat: int, viewer: Viewer) -> dict:
        """The caller's seat leaves: open again before the start, absent for good after it (the
        rules' timeout move plays it).  Its token stops working."""
        if viewer.kind != "seat" or viewer.seat != seat:
            raise ProblemError(403, "Not your seat", f"only seat {seat}'s token may leave seat {seat}", "forbidden")
        for _ in range(MAX_RETRIES):
            table = self._table(game_id)
            self._check_seat(table, seat)
            self._check_not_finished(table)
            if seat in facts.open_seats(table) or seat in table.get("left", ()):
                raise ProblemError(409, "Seat not taken", f"seat {seat} has no player to leave", "seat-not-open")
            stamp = now_iso()
            player = facts.players(table)[seat]
            event = {"type": tables.SEAT_LEFT, "data": {"seat": seat, "player": player}}
            envs, new = self.naipes.appender.append_events(game_id, table, [event], actor=f"seat:{seat}", stamp=stamp)
            envs, new = self.naipes.appender.settle(game_id, envs, new, stamp)
            # the seat's tokens as they are now: a seat open again may be claimed by a new player
            # right after the append, whose token must keep working
            held = [h for h, s in self.naipes.store.tokens(game_id).items() if s == seat]
            try:
                self.naipes.appender.commit(game_id, table, new, envs)
            except VersionConflict:
                continue
            if held:
                self.naipes.store.drop_tokens(game_id, held)
            self.naipes.identity.forget(game_id)
            self.naipes.listing.index(game_id, new)
            return {"id": game_id, "version": new["version"], "seat": seat, "open": seat in facts.open_seats(new)}
        raise _contention()

    def seat_bot(self, game_id: str, seat: int, bot: str, viewer: Viewer) -> dict:
        """The owning key puts a bot (``random``, ``heuristic``, ``search``) in a seat whose player is
        absent (timed out ``absent_after`` times in a row, or left): it plays the seat from now on."""
        self._check_owner(game_id, viewer)
        if bot not in tables.BOT_KINDS:
            raise ProblemError(
                422, "Unknown bot", f"bot: one of {', '.join(tables.BOT_KINDS)}", "invalid-request", field="/bot"
            )
        for _ in range(MAX_RETRIES):
            table = self._table(game_id)
            self._check_seat(table, seat)
            self._check_not_finished(table)
            if tables.bot(table, seat) is not None:
                raise ProblemError(
                    409, "A bot plays it", f"a {tables.bot(table, seat)} bot plays seat {seat}", "seat-not-absent"
                )
            if seat not in table["absent"]:
                raise ProblemError(
                    409,
                    "Seat not absent",
                    f"seat {seat}'s player is at the table: a bot takes only an absent player's seat "
                    f"(absent: {table['absent'] or 'none'})",
                    "seat-not-absent",
                )
            catalogue.check_search_seats({**(table["timing"].get("bots") or {}), str(seat): bot})
            stamp = now_iso()
            player = facts.players(table)[seat]
            event = {"type": tables.BOT_SEATED, "data": {"seat": seat, "player": player, "bot": bot}}
            envs, new = self.naipes.appender.append_events(game_id, table, [event], actor="integrator", stamp=stamp)
            # a search bot: the game takes a slot of its owner's if it held none (service.core.quotas), given
            # back unless the bot was seated
            owner = self.naipes.visibility.context(game_id).owner if bot == "search" else None
            seated = lambda: tables.bot(self._table(game_id), seat) == bot  # noqa: E731
            try:
                with self.naipes.search_quota.holding(owner, game_id, written=seated):
                    self.naipes.appender.commit(game_id, table, new, envs)
            except VersionConflict:
                continue
            return {"id": game_id, "version": new["version"], "seat": seat, "bot": bot}
        raise _contention()

    def seat_token(self, game_id: str, seat: int) -> str:
        """A fresh token for ``seat``; the seat's earlier tokens stop working."""
        token = seat_token(game_id)
        store = self.naipes.store
        self._seat_token(
            keys=[key(game_id, "auth")], args=[str(seat), token_hash(token), store.channel(game_id), TOKENS_CHANGED]
        )
        self.naipes.identity.forget(game_id)
        return token

    # ------------------------------------------------------------ rematch
    def rematch(self, game_id: str, viewer: Viewer) -> dict:
        """The finished game's rematch (created by the first call): the same type, options and
        players, seats rotated by one (Dalmuti: the players in the last order).  A seat whose player
        left the finished game is open in the rematch.  A seat's token gets that player's new token
        (a fresh one at each call); the owning key gets every seat's, and the open seats' invitations."""
        table = self._table(game_id)
        if viewer.kind == "seat":
            if viewer.seat not in facts.seats(table) or viewer.seat in table.get("left", ()):
                raise ProblemError(403, "Not a seat", "this token's seat is not in the game", "forbidden")
        elif viewer.kind == "integrator":
            self._check_owner(game_id, viewer)
        else:
            raise ProblemError(
                401,
                "Credential required",
                "a rematch is asked by one of the game's seats (its token) or the key that owns the game",
                "unauthorized",
            )
        if self.naipes.visibility.context(game_id).tournament:
            # a tournament's table is followed by the tournament's next round; a rematch would also
            # publish how the table ended (its seating) while a duplicate round still hides it
            raise ProblemError(
                409,
                "Tournament table",
                "a tournament's table has no rematch: the tournament decides what it plays next",
                "tournament-table",
            )
        new_id, table = self._reserve_rematch(game_id, table, viewer)
        names, new_seat = self.rematch_seating(table)
        gone = {new_seat[old] for old in table.get("left", ())}  # whoever left plays no rematch
        players = [None if s in gone else name for s, name in enumerate(names)]
        created = None
        if not self.naipes.store.exists(new_id):
            try:
                created = self._create_rematch(game_id, new_id, table, players)
            except ProblemError as exc:
                if exc.kind != "search-game-limit" or viewer.kind == "integrator":
                    raise
                # a seat learns that the owner's limit holds, not how many games its key runs
                raise ProblemError(
                    429,
                    exc.title,
                    "the key that owns this game runs as many games with search bots as it may at once; "
                    "retry once one of them has ended",
                    "search-game-limit",
                ) from None
        rematch = self._table(new_id)  # as it is now: its open seats may have been claimed since
        self._check_own_rematch(game_id, table, new_id, rematch)
        if viewer.kind == "seat" and not self._still_given(table, viewer.seat, new_seat[viewer.seat], rematch):
            # the player gave that seat of the rematch up (before its start, or for good after): the seat is
            # open, or someone else's by an invitation, and the finished game's token gives nothing back
            raise ProblemError(
                403,
                "Seat given up",
                "this player left its seat of the rematch; the finished game's token no longer gives it",
                "forbidden",
            )
        waiting = facts.open_seats(rematch)
        names = facts.players(rematch)
        answer = {"id": new_id, "game": table["game"], "rematch_of": game_id, "version": rematch["version"]}
        if viewer.kind == "seat":
            seat = new_seat[viewer.seat]
            answer["seat"] = seat
            answer["seats"] = [{"seat": seat, "player": names[seat], "token": self.seat_token(new_id, seat)}]
        else:
            seated = [s for s in facts.seats(rematch) if s not in waiting]
            answer["seats"] = self.naipes.games.new_tokens(new_id, names, replace=True, only=seated)
            if waiting:
                answer["invitations"] = (created or {}).get("invitations") or self.invite(new_id, waiting, replace=True)
        return answer

    def _reserve_rematch(self, game_id: str, table: dict, viewer: Viewer) -> tuple[str, dict]:
        """The rematch's id: named in the finished game's log by the first call (``RematchCreated``)."""
        for _ in range(MAX_RETRIES):
            # the checks come before the link: a log that names a rematch (which only a finished,
            # started game's own rematch appends) never stands in for them
            if table.get("frozen") or not facts.finished(table):
                raise ProblemError(
                    409,
                    "Game not finished",
                    "a rematch follows a finished game; this one is not over",
                    "game-not-finished",
                )
            if not facts.started(table):  # its open seats hold placeholders, nobody's names
                raise ProblemError(
                    409,
                    "Game not started",
                    "a rematch has the same players; this game ended before its open seats were claimed",
                    "game-not-started",
                )
            if table.get("rematch"):
                return table["rematch"], table
            new_id = secrets.token_hex(8)
            # the id is kept for the rematch before the log publishes it: an import may not take it in the
            # moment between the link and the creation (or while the creation waits for the owner's limit)
            self.naipes.redis.set(rematch_reservation(new_id), game_id)
            actor = f"seat:{viewer.seat}" if viewer.kind == "seat" else "integrator"
            event = {"type": tables.REMATCH_CREATED, "data": {"game": new_id}}
            envs, new = self.naipes.appender.append_events(game_id, table, [event], actor=actor, stamp=now_iso())
            try:
                self.naipes.appender.commit(game_id, table, new, envs)
            except VersionConflict:
                table = self._table(game_id)
                continue
            return new_id, new
        raise _contention()

    def _check_own_rematch(self, game_id: str, table: dict, new_id: str, rematch: dict) -> None:
        """The game named as the rematch is one this game's rematch created: it says it follows this
        game (``rematch_of``) and has the same owner.  Anything else (a link written by a forged log)
        hands out no token of it."""
        ours = self.naipes.visibility.context(game_id)
        theirs = self.naipes.visibility.context(new_id)
        if (
            rematch.get("rematch_of") != game_id
            or theirs.owner != ours.owner
            or theirs.tournament is not None
            or rematch.get("game") != table["game"]
        ):
            log.warning("game %s names %s as its rematch, which does not follow it", game_id, new_id)
            raise ProblemError(
                403,
                "Not this game's rematch",
                "the game this one names as its rematch was not created as its rematch; no token of it is given",
                "forbidden",
            )

    @staticmethod
    def _still_given(table: dict, old_seat: int, seat: int, rematch: dict) -> bool:
        """Whether the rematch's ``seat`` is still the one the rematch gave the player of the finished game's
        ``old_seat``.  Read off what every fold of the rematch keeps, a snapshot stored by earlier code
        included: a seat left after the start is in ``left``; one left before it is open again, or claimed
        by a newcomer under another name than the player's.  ``released`` (every seat ever left, folded
        since) also tells a claim made under the leaver's own name."""
        names = facts.players(rematch)
        return (
            0 <= seat < len(names)
            and names[seat] == facts.players(table)[old_seat]
            and seat not in facts.open_seats(rematch)
            and seat not in rematch.get("left", ())
            and seat not in rematch.get("released", ())
        )

    def _create_rematch(self, game_id: str, new_id: str, table: dict, names: list[str | None]) -> dict | None:
        """Create the rematch once: the call that takes the creation's mark makes it, the others wait
        for it (and make it themselves should the first have failed)."""
        mark = key(new_id, "creating")
        if not self.naipes.redis.set(mark, "1", nx=True, ex=int(REMATCH_WAIT * 6)):
            deadline = _time.monotonic() + REMATCH_WAIT
            while _time.monotonic() < deadline:
                if self.naipes.store.exists(new_id):
                    return None
                _time.sleep(0.05)
        if self.naipes.store.exists(new_id):
            return None
        owner = self.naipes.visibility.context(game_id).owner
        options = {**table["options"], **table["timing"]}
        try:
            return self.naipes.games.create_game(
                table["game"], names, options, game_id=new_id, owner=owner, rematch_of=game_id, tokens=False
            )
        except BaseException:  # refused (a key past its games with search bots) or failed: the next call tries
            self.naipes.redis.delete(mark)  # at once, not after waiting out the mark
            raise

    @staticmethod
    def rematch_seating(table: dict) -> tuple[list[str], dict[int, int]]:
        """The rematch's players and where each old seat sits in it: rotated by one (the next seat
        deals and leads); in El Gran Dalmuti in the order the last hand left them (the outcome's
        ``last_order``, the Greater Dalmuti first)."""
        players = facts.players(table)
        n = len(players)
        result = registry.get(table["game"]).outcome(table["state"]) or {}
        order = result.get("last_order")
        if not (isinstance(order, list) and sorted(order) == list(range(n))):
            order = [(s + 1) % n for s in range(n)]
        return [players[s] for s in order], {old: new for new, old in enumerate(order)}

    # ------------------------------------------------------------ reading
    def seats(self, game_id: str, viewer: Viewer | None = None) -> dict:
        """Who sits where, which seats are open (with their claim URLs, never the invitations),
        and the games before and after this one; the version as far as ``viewer`` may see the game
        (a table of a duplicate round is held at its round's public horizon)."""
        table = self._table(game_id)
        seen = self.naipes.visibility.sight(game_id, viewer or SPECTATOR_VIEWER, table)
        if not seen.sees_version(table["version"]):  # the game as it was at the horizon
            table = self.naipes.tables.fold_from_zero(game_id, seen.horizon)
        waiting = facts.open_seats(table)
        left = set(table.get("left", ()))
        return {
            "id": game_id,
            "game": table["game"],
            "version": table["version"],
            "started": facts.started(table),
            "open": waiting,
            "seats": [
                {
                    "seat": s,
                    "player": None if s in waiting else name,
                    "open": s in waiting,
                    "left": s in left,
                    **({"url": claim_url(game_id, s)} if s in waiting else {}),
                }
                for s, name in enumerate(facts.players(table))
            ],
            "rematch": table.get("rematch"),
            "rematch_of": table.get("rematch_of"),
        }

    def lobby(
        self, game_type: str | None, limit: int = 50, cursor: str | None = None, viewer: Viewer | None = None
    ) -> dict:
        """Games waiting for players, newest first, each with its open seats and their claim URLs."""
        page = self.naipes.listing.list_games(game_type, "open", limit, cursor=cursor, viewer=viewer, extra=("open",))
        for row in page["games"]:
            waiting = row.pop("open", None) or []
            row["open_seats"] = [{"seat": s, "url": claim_url(row["id"], s)} for s in waiting]
        return page

    # ------------------------------------------------------------ checks
    def _table(self, game_id: str) -> dict:
        if not self.naipes.store.exists(game_id):
            raise not_found(game_id)
        return self.naipes.tables.table(game_id, fresh=True)

    def _check_owner(self, game_id: str, viewer: Viewer) -> None:
        owner = self.naipes.visibility.context(game_id).owner
        if viewer.kind != "integrator" or not (
            (owner is not None and viewer.key_id == owner) or "admin" in viewer.scopes
        ):
            raise ProblemError(403, "Not the owner", "only the key that created the game may do this", "forbidden")

    @staticmethod
    def _check_seat(table: dict, seat: int) -> None:
        if not (isinstance(seat, int) and 0 <= seat < len(facts.players(table))):
            raise ProblemError(
                422, "No such seat", f"the game has seats 0 to {len(facts.players(table)) - 1}", "bad-seat"
            )

    @staticmethod
    def _check_not_finished(table: dict) -> None:
        if facts.finished(table):
            raise ProblemError(409, "Game over", "the game is finished; its seats no longer change", "game-finished")

    @staticmethod
    def _check_name_free(table: dict, seat: int, player: str) -> None:
        """No other seat has the name, nor may it be another seat's placeholder (``seat 2``: the name an
        open seat shows while it waits)."""
        names = facts.players(table)
        if any(p == player for s, p in enumerate(names) if s != seat):
            raise ProblemError(409, "Name taken", f"another seat of this game is '{player}'", "name-taken")
        if any(player == tables.placeholder(s) for s in range(len(names)) if s != seat):
            raise ProblemError(
                409, "Name taken", f"'{player}' is the name an open seat of this game shows", "name-taken"
            )

    @staticmethod
    def _check_name(player: object) -> None:
        if not (isinstance(player, str) and 1 <= len(player) <= 64 and player.isprintable() and player.strip()):
            raise ProblemError(
                422, "Bad player name", "a player's name is 1 to 64 printable characters", "invalid-players"
            )
