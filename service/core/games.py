"""Games come into being: creation (and a retried creation), seat tokens, a newcomer joining."""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING

from domain import registry
from domain import table as tables
from domain.base import RuleViolation
from events.envelope import GENESIS, now_iso, seal_batch
from events.store import VersionConflict
from service.core import catalogue, facts, ids
from service.core.appending import MAX_RETRIES
from service.core.errors import ProblemError, Unplayable, not_found, rule_problem
from service.core.identity import Viewer, seat_token, token_hash
from service.core.listing import DUE

if TYPE_CHECKING:
    from service.core.naipes import Naipes

log = logging.getLogger("naipes.games")


def check_distinct_players(names: list, *, where: str = "") -> None:
    """Two seats never hold one name (an open seat's placeholder, ``seat 1``, counts as its name): labels,
    views and claims tell the players apart by their names.  422 ``duplicate-player`` naming the field of
    the second seat with the name."""
    seen: dict[str, int] = {}
    for seat, name in enumerate(names):
        if name in seen:
            raise ProblemError(
                422,
                "Duplicate player",
                f"{where}players[{seat}]: '{name}' sits at seat {seen[name]} already; each seat's player has a "
                "name of its own",
                "duplicate-player",
                field=f"/players/{seat}",
            )
        seen[name] = seat


class Games:
    """Creates games and hands out their seats' tokens."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes

    def create_game(
        self,
        game_type: str,
        players: list[str | None],
        options: dict | None = None,
        *,
        seed: int | None = None,
        deal_seed: str | None = None,
        game_id: str | None = None,
        owner: str | None = None,
        tournament: str | None = None,
        rematch_of: str | None = None,
        tokens: bool = True,
    ) -> dict:
        """Create and start a game.

        A ``None`` among ``players`` is a seat left open: the game is created
        but does not start (no deal, no seat to act) until every open seat is
        claimed with its invitation (:mod:`service.core.seats`); the answer
        holds one ``invitation`` per open seat, stored only hashed.
        ``rematch_of``: the finished game this one follows.  ``tokens``: False
        to store no seat token (a rematch hands each seat its own).  Games created with the same ``deal_seed``
        are dealt the same cards, deal by deal (duplicate play); the secret is
        kept in a private part of ``GameCreated`` that no seat receives.

        ``game_id``: the id to use, reserved by the caller beforehand (a
        tournament table).  If a game of that id exists already, an earlier
        attempt created it and its answer (the seat tokens, stored only
        hashed) was lost: the seats get new tokens and the game is returned,
        so that a retried creation never makes a second game.

        ``owner``: the key id that sees the whole game (see
        :mod:`service.core.sight`).  ``tournament``: the tournament whose table
        this is; its seats' tokens are derived from the service secret, so
        the tournament's owner can be shown them again and no copy is
        stored."""
        if game_id is not None and not ids.is_game_id(game_id):
            raise ProblemError(422, "Bad game id", ids.describe_game_id(), "bad-game-id")
        if game_id is not None and self.naipes.store.exists(game_id):
            return self.reissue(game_id)
        try:
            module = registry.get(game_type)
        except registry.UnknownGame:
            known = ", ".join(registry.GAME_MODULES)
            raise ProblemError(
                422, "Unknown game type", f"'{game_type}' is not a game type (known: {known})", "unknown-game"
            ) from None
        if not (module.MIN_PLAYERS <= len(players) <= module.MAX_PLAYERS):
            raise ProblemError(
                422,
                "Wrong number of players",
                f"{module.TITLE} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, got {len(players)}",
                "player-count",
            )
        opts = catalogue.validate_options(game_type, options or {})
        catalogue.check_bot_seats(opts, len(players))
        given = game_id is not None
        game_id = game_id or secrets.token_hex(8)
        open_seats = [i for i, p in enumerate(players) if p is None]
        names = [tables.placeholder(i) if p is None else p for i, p in enumerate(players)]
        check_distinct_players(names)
        # a tournament's tables are counted as the tournament (service.core.quotas)
        quota = owner if tournament is None and "search" in (opts.get("bots") or {}).values() else None
        with self.naipes.search_quota.holding(quota, game_id):
            created = tables.created_event(
                game_type, names, opts, module.RULES_VERSION, open_seats=open_seats, rematch_of=rematch_of
            )
            if deal_seed is not None:
                created["private"] = {"setup": {"deal_seed": str(deal_seed)}}
            table = tables.evolve(None, {**created, "version": 1, "hash": "", "time": now_iso(), "actor": "integrator"})
            try:
                start = module.decide(
                    table["state"],
                    {"type": "start", "seat": None, "seed": seed if seed is not None else facts.seed(table)},
                )
            except RuleViolation as exc:  # e.g. options that do not fit the player count
                raise ProblemError(422, "Game cannot start", exc.detail, "cannot-start", rule=exc.rule) from None
            stamp = now_iso()
            envs = seal_batch(
                game_id,
                0,
                GENESIS,
                [dict(created, actor="integrator")],
                actor="integrator",
                time=stamp,
                rules=module.RULES_VERSION,
                salt_key=self.naipes.appender.salt_key,
            )
            table = tables.fold(envs)
            if not open_seats:  # a game with open seats starts when the last of them is claimed
                more, table = self.naipes.appender.append_events(game_id, table, start, actor="system", stamp=stamp)
                envs += more
                envs, table = self.naipes.appender.settle(game_id, envs, table, stamp)
            named = [i for i in range(len(names)) if i not in open_seats]
            # a game made under an id drawn for it is new to every process: its owner and its seats'
            # tokens ride in its append's round trip (nobody knows its id before the answer); under an
            # id reserved beforehand they are written first, as a retried creation reads them
            if given:
                self.naipes.visibility.write_meta(game_id, owner=owner, tournament=tournament)
                beside = []
            else:
                beside = [self.naipes.visibility.new_game_meta(game_id, owner=owner, tournament=tournament)]
            if tokens:
                seats = self.new_tokens(game_id, names, replace=given, only=named, beside=None if given else beside)
            else:
                seats = [{"seat": i, "player": names[i]} for i in named]
            invitations = self.naipes.seats.invite(game_id, open_seats, replace=True) if open_seats else []
            try:
                self.naipes.appender.commit(game_id, None, table, envs, beside=beside)
            except VersionConflict:
                if not given:
                    raise
                return self.reissue(game_id)  # created meanwhile by another attempt with this id
            except Unplayable as exc:
                if given or not self._discard(game_id):
                    raise
                raise Unplayable(
                    503,
                    "Service Unavailable",
                    f"the event store refused the owner and seat tokens of new game {game_id} (logged), and the "
                    "game was discarded: create it again",
                    "unavailable",
                ) from exc
            self.naipes.listing.index(game_id, table, created=True, new=not given)
            answer = {"id": game_id, "game": game_type, "version": table["version"], "seats": seats}
            if open_seats:
                answer["invitations"] = invitations
            return answer

    def _discard(self, game_id: str) -> bool:
        """Drop a game stored without its owner and seat tokens (nobody can play it), made under an id
        drawn for it that nobody was told: its keys and its mark among the games whose clock runs.  Its
        deadlines, if written, find no game and are cleared when due.  Whether it was dropped (the Redis
        that refused the tokens may refuse this too: the game then stays, unlisted and unplayable)."""
        try:
            doomed = self.naipes.store.game_keys(game_id)
            pipe = self.naipes.redis.pipeline(transaction=False)
            if doomed:
                pipe.delete(*doomed)
            pipe.zrem(DUE, game_id)
            pipe.execute()
        except Exception:  # the 503 stands either way; this is logged
            log.exception("could not discard game %s, stored without its tokens", game_id)
            return False
        return not self.naipes.store.exists(game_id)

    def tournament_seat_token(self, game_id: str, seat: int) -> str:
        """The seat token of a tournament table, derived from the service secret (never stored)."""
        return seat_token(game_id, self.naipes.secret.token("tournament-seat", game_id, seat))

    def new_tokens(
        self,
        game_id: str,
        players: list[str],
        *,
        replace: bool,
        only: list[int] | None = None,
        beside: list | None = None,
    ) -> list[dict]:
        """A fresh token for every seat (``only``: for these seats), stored hashed (``replace``: the
        game's earlier ones stop working).  A tournament table's tokens are derived from the service
        secret instead of drawn.  ``beside``: a new game's writes its append carries, where the tokens'
        write is queued instead of made now (the game holds none yet)."""
        seats = list(range(len(players))) if only is None else list(only)
        if self.naipes.visibility.context(game_id).tournament:
            tokens = [self.tournament_seat_token(game_id, i) for i in seats]
        else:
            tokens = [seat_token(game_id) for _ in seats]
        mapping = {token_hash(t): i for i, t in zip(seats, tokens)}
        if beside is not None and not replace:
            beside.append(self.naipes.store.tokens_write(game_id, mapping))
        else:
            self.naipes.store.set_tokens(game_id, mapping, replace=replace)
        if replace:
            self.naipes.identity.forget(game_id)
        return [{"seat": i, "player": players[i], "token": t} for i, t in zip(seats, tokens)]

    def reissue(self, game_id: str) -> dict:
        """New seat tokens for an existing game (whose first ones were never handed out)."""
        table = self.naipes.tables.table(game_id, fresh=True)
        waiting = facts.open_seats(table)  # an open seat has no token until it is claimed
        named = [i for i in facts.seats(table) if i not in waiting]
        seats = self.new_tokens(game_id, facts.players(table), replace=True, only=named)
        self.naipes.listing.index(game_id, table, created=True)
        return {"id": game_id, "game": table["game"], "version": table["version"], "seats": seats}

    def join(self, game_id: str, player: str, viewer: Viewer) -> dict:
        """A newcomer joins a running game (where its rules allow), brought by the key that owns the
        game (or an ``admin`` key), as its bots and invitations are; returns its seat token once.  A
        tournament's table takes only the tournament's registered players."""
        if not self.naipes.store.exists(game_id):
            raise not_found(game_id)
        self.naipes.seats._check_owner(game_id, viewer)
        if self.naipes.visibility.context(game_id).tournament:
            raise ProblemError(
                409,
                "Tournament table",
                "a tournament's table takes only the tournament's registered players; nobody joins it",
                "tournament-table",
            )
        for _ in range(MAX_RETRIES):
            table = self.naipes.tables.table(game_id, fresh=True)
            self.naipes.moves.check_open(table)
            module = registry.get(table["game"])
            try:
                decided = module.decide(
                    table["state"], {"type": "join", "seat": None, "player": player, "seed": facts.seed(table)}
                )
            except RuleViolation as exc:
                if exc.rule == "name-taken":  # answered as a claim under a taken name is
                    raise ProblemError(409, "Name taken", exc.detail, "name-taken") from None
                if exc.rule == "unknown-move":  # a game whose rules know no newcomer (only Dalmuti's do)
                    raise ProblemError(
                        422,
                        "Illegal move",
                        f"a {table['game']} game takes no newcomers: its players are set when it is created",
                        "illegal-move",
                        rule="joining-disabled",
                    ) from None
                raise rule_problem(exc) from None
            stamp = now_iso()
            envs, new_table = self.naipes.appender.append_events(
                game_id, table, decided, actor="integrator", stamp=stamp
            )
            envs, new_table = self.naipes.appender.settle(game_id, envs, new_table, stamp)
            seat = len(facts.players(new_table)) - 1
            token = seat_token(game_id)
            try:
                self.naipes.appender.commit(game_id, table, new_table, envs)
            except VersionConflict:
                continue
            self.naipes.store.set_tokens(game_id, {token_hash(token): seat})
            self.naipes.listing.index(game_id, new_table)
            return {"version": new_table["version"], "seat": seat, "player": player, "token": token}
        raise ProblemError(409, "Too much contention", "the game kept changing; try again", "contention")
