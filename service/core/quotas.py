"""How many games with search bots one key runs at once.

A search bot's move is seconds of the bots' worker's CPU (``docs/bots.md``), and every key's bots share
that worker: a game has at most one bot turn queued at a time, so the queue serves the running games in
turn, and a key running a hundred games with search bots would hold every other key's bots a hundred
turns back.  So a key (the games' owner) runs at most ``Naipes.max_search_games`` of them at once
(``NAIPES_MAX_SEARCH_GAMES``, default 8; 0: no limit).  A tournament whose players include search bots
holds as many slots as the tables of one round that may seat them, from its creation to its end.

The slots a key holds are a sorted set per key: a game id or tournament id, scored by when it was taken.
A slot is taken *before* its game is written, by a script that counts and adds in one step (requests at
once never pass the limit, and those within it all pass), and given back if the creation fails.  A slot is
freed when its game or tournament is listed as finished (a void adjudication ends a game that stalled);
a slot whose game was never written (a process that died mid-creation) is freed after
:data:`UNWRITTEN_GRACE` seconds; one whose game was written but not listed (a fault between the two)
counts until the game is listed finished.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from events.envelope import loads
from events.store import VersionConflict
from service.core.errors import ProblemError, Unplayable
from service.core.listing import INDEX_INFO as GAME_SUMMARIES

if TYPE_CHECKING:
    from service.core.naipes import Naipes

SEARCH_GAMES = "naipes:search-games:"  # + key id: sorted set of "<slots>|<game or tournament id>" -> taken at (ms)
UNWRITTEN_GRACE = 60.0  # seconds a slot counts before its game or tournament is listed
DEFAULT_MAX_SEARCH_GAMES = 8


# KEYS: a key's slots; ARGV: member ("<slots>|<holder>"), now (ms), slots, limit, holder.  Returns -2 when
# the holder holds its slots already; else adds the member when the slots held and these fit the limit
# (-1), or returns the slots held.
_TAKE = """
local held = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local slots, holder = string.match(member, '^(%d+)|(.*)$')
  if holder == ARGV[5] then return -2 end
  held = held + tonumber(slots)
end
if held + tonumber(ARGV[3]) > tonumber(ARGV[4]) then
  return held
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return -1
"""


class SearchQuota:
    """The slots each key holds for its games and tournaments with search bots."""

    def __init__(self, naipes: Naipes):
        self.naipes = naipes
        self._take = naipes.redis.register_script(_TAKE)
        # where a holder's summary (and its status) is listed, by the prefix of its id; a game's by default
        # (service.core.tournaments registers its own when it is attached)
        self.summaries: dict[str, str] = {}

    @property
    def limit(self) -> int:
        return self.naipes.max_search_games

    def take(self, owner: str | None, holder: str, slots: int = 1) -> bool:
        """Take ``slots`` for ``holder`` (a game or tournament id) in ``owner``'s count, or a 429
        ``search-game-limit`` naming the limit (422 ``invalid-options`` when ``slots`` alone are more than
        the limit: no wait would let them in).  Whether this call took them: taking again what a holder
        holds changes nothing."""
        if not owner or self.limit <= 0 or slots <= 0:
            return False
        if slots > self.limit:
            raise ProblemError(
                422,
                "Invalid options",
                f"bots: this needs {slots} slots of games with search bots at once, and a key runs at most "
                f"{self.limit}; seat fewer search players (a tournament holds one per table that may seat one) "
                "or make the others heuristic or random bots",
                "invalid-options",
                rule="search-game-limit",
                field="/bots",
                limit=self.limit,
            )
        self.naipes.listing.list_pending_ends()  # a game whose last move was answered has ended
        self.held(owner)  # frees the slots of what has ended
        answer = self._take(
            keys=[SEARCH_GAMES + owner],
            args=[_member(slots, holder), int(time.time() * 1000), slots, self.limit, holder],
        )
        if answer == -2:
            return False
        if answer >= 0:
            raise ProblemError(
                429,
                "Too many games with search bots",
                f"this key runs games with search bots holding {answer} of its {self.limit} slots, and this "
                f"one needs {slots}; a search bot's move costs seconds of the bots' worker, shared by every "
                "key. Retry once one has ended (a key with the review scope can void a stalled one), or seat "
                "heuristic or random bots",
                "search-game-limit",
                limit=self.limit,
                held=answer,
            )
        return True

    def give_back(self, owner: str, holder: str, slots: int) -> None:
        """Free the ``slots`` :meth:`take` took for ``holder`` (its creation failed)."""
        self.naipes.redis.zrem(SEARCH_GAMES + owner, _member(slots, holder))

    def held(self, owner: str) -> int:
        """The slots ``owner`` holds now; those of finished games and tournaments (and of creations that
        never wrote their game) are freed on the way."""
        r = self.naipes.redis
        entries = r.zrange(SEARCH_GAMES + owner, 0, -1, withscores=True)
        if not entries:
            return 0
        members = [(m.decode() if isinstance(m, bytes) else m, taken) for m, taken in entries]
        parts = [_parts(member) for member, _ in members]
        pipe = r.pipeline(transaction=False)
        for _, holder in parts:
            pipe.hget(next((h for p, h in self.summaries.items() if holder.startswith(p)), GAME_SUMMARIES), holder)
        infos = pipe.execute()
        now_ms = time.time() * 1000
        held, done = 0, []
        for (member, taken), (slots, holder), raw in zip(members, parts, infos, strict=True):
            if raw is None:  # not listed: being created, never written, or written but not listed (a fault)
                if now_ms - taken > UNWRITTEN_GRACE * 1000 and not self.naipes.store.exists(holder):
                    done.append(member)
                    continue
            elif loads(raw).get("status") == "finished":
                done.append(member)
                continue
            held += slots
        if done:
            r.zrem(SEARCH_GAMES + owner, *done)
        return held

    @contextlib.contextmanager
    def holding(self, owner: str | None, holder: str, slots: int = 1, *, written: Callable[[], bool] | None = None):
        """Take ``slots`` for ``holder`` (:meth:`take`) while it is written, and give them back should that
        fail before it is: a :class:`~events.store.VersionConflict` or a 409 (another writer's game of that
        id), an :class:`~service.core.errors.Unplayable` game (stored without its tokens: nobody will play
        it), or any failure after which ``written()`` (default: a game of that id exists) says no."""
        took = self.take(owner, holder, slots)
        try:
            yield
        except BaseException as exc:
            if took:
                lost = isinstance(exc, (VersionConflict, Unplayable)) or (
                    isinstance(exc, ProblemError) and exc.status == 409
                )
                if lost or not (written() if written else self.naipes.store.exists(holder)):
                    self.give_back(owner, holder, slots)
            raise


def _member(slots: int, holder: str) -> str:
    """A holder's member of its key's set: its slots and its id."""
    return f"{slots}|{holder}"


def _parts(member: str) -> tuple[int, str]:
    """(slots, holder) of a member written by :func:`_member`."""
    slots, holder = member.split("|", 1)
    return int(slots), holder
