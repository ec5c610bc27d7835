"""The application: the small services of naipes over one store and one game cache.

Routes, workers and commands get a :class:`Naipes` (built by
:mod:`service.bootstrap`) and call the service of their concern:

* ``identity``: who is asking (:mod:`service.core.identity`);
* ``games``: creating games and joining them (:mod:`service.core.games`);
* ``moves``: a seat's move (:mod:`service.core.moves`);
* ``deadlines``: timeouts and absent seats (:mod:`service.core.deadlines`);
* ``reads``: views, legal moves, events and replays (:mod:`service.core.reads`);
* ``records``: review, export, import and audit (:mod:`service.core.records`);
* ``listing``: the games' listing (:mod:`service.core.listing`);
* ``seats``: open seats, invitations, leaving, rematches, the lobby (:mod:`service.core.seats`).

They share ``tables`` (the game cache, :mod:`service.core.tables`),
``visibility`` (who sees what, :mod:`service.core.visibility`) and
``appender`` (the one way events are appended, :mod:`service.core.appending`).
What a game type is and which options it takes is :mod:`service.core.catalogue`.
This module knows no HTTP and no game by name.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import redis

from events.store import EventStore
from service.core.appending import Appender
from service.core.deadlines import Deadlines
from service.core.games import Games
from service.core.house_secret import HouseSecret
from service.core.identity import Identity
from service.core.keys import KeyStore
from service.core.listing import Listing
from service.core.moves import Moves
from service.core.quotas import DEFAULT_MAX_SEARCH_GAMES, SearchQuota
from service.core.reads import Reads
from service.core.records import Records
from service.core.seats import Seats
from service.core.tables import Tables
from service.core.visibility import Visibility


class Naipes:
    """The store, the keys, the hooks, and the services over them."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        api_keys: list[str] | None = None,
        scheduler: Callable[[dict, dict, str], None] | None = None,
        cache_size: int = 4096,
        queue_client: redis.Redis | None = None,
        secret: str | bytes | None = None,
        max_search_games: int = DEFAULT_MAX_SEARCH_GAMES,
    ):
        given = secret if secret is not None else os.environ.get("NAIPES_SECRET")
        # checked first: a process given a secret it cannot use refuses to start
        self._secret: HouseSecret | None = (
            HouseSecret(given.encode() if isinstance(given, str) else given) if given else None
        )
        self._given_secret = secret
        self.redis = client
        # games with search bots one key runs at once (0: no limit); see service.core.quotas
        self.max_search_games = max_search_games
        self.cache_size = cache_size
        # RQ's Redis (turn deadlines, tournament jobs, webhooks): the data's Redis unless that is a cluster
        self.queue_redis = queue_client if queue_client is not None else client
        self.store = EventStore(client)
        self.keys = KeyStore(client, api_keys)
        # called after every successful append with (old table, new table, game id)
        self.scheduler = scheduler
        # called with (game id, table) once a game has reached its end
        self.on_finished: list[Callable[[str, dict], None]] = []
        # called with (game id, table after) when a finished game's outcome changes (an adjudication)
        self.on_result_changed: list[Callable[[str, dict], None]] = []
        # called with (game id, table before, seat) after a deadline timed a seat out
        self.on_timeout: list[Callable[[str, dict, int], None]] = []
        # set by the tournaments application: (game id) -> what a tournament adds to a game's context
        self.tournament_context: Callable[[str], dict | None] | None = None

        self.tables = Tables(self)
        self.visibility = Visibility(self)
        self.appender = Appender(self)
        self.listing = Listing(self)
        self.identity = Identity(self)
        self.games = Games(self)
        self.moves = Moves(self)
        self.deadlines = Deadlines(self)
        self.reads = Reads(self)
        self.records = Records(self)
        self.seats = Seats(self)
        self.search_quota = SearchQuota(self)

    @property
    def secret(self) -> HouseSecret:
        """Derives duplicate deal seeds and tournament tables' seat tokens (see service.core.house_secret);
        resolved on first use, so that a process starts while Redis is away."""
        if self._secret is None:
            self._secret = HouseSecret.resolve(self.redis, self._given_secret)
        return self._secret
