"""What one move costs Redis on the request's own path, with the start command's defaults (rate limits
on): the POST is one round trip (version check, append, snapshot and idempotency record in one
script), the legal moves one (the head's version), whatever the game; counted on the wire."""

from __future__ import annotations

import random
import threading

import pytest
from redis.connection import Connection
from werkzeug.test import Client
from werkzeug.wrappers import Response

from events.store import key
from service.core.timers import DEADLINES, attach_scheduler, entry_id
from service.web.app import create_app

from .conftest import API_KEY, bearer

GAMES = {
    "dalmuti": (["a", "b", "c", "d", "e"], {"hands": 1}),
    "cego": (["a", "b", "c"], {"rounds": 1}),
    "muerte": (["a", "b", "c", "d", "e", "f"], {}),
    "onion": (["a", "b", "c"], {"rounds": 1}),
}


class Wire:
    """Counts the commands (a pipeline or a script is one) this thread sends to Redis.  Two reads that
    come with time, not with moves, are counted apart in ``periodic``: a process's copy of a game's
    seat tokens is read again every AUTH_TTL (2 s), and a rate-limit count crossing its share is
    added at once."""

    def __init__(self, monkeypatch):
        self.sent = 0
        self.periodic = 0
        self.counted = 0  # the periodic reads that fell within the moves counted
        self.log: list[bytes] = []  # what the last request sent
        self.costly: list[list[bytes]] = []  # what each move that cost more than one round trip sent
        self.thread = threading.get_ident()
        original = Connection.send_packed_command

        def counting(conn, command, check_health=True):
            if threading.get_ident() == self.thread:
                raw = command if isinstance(command, bytes) else b"".join(command)
                if raw.startswith(b"*4\r\n$6\r\nCLIENT\r\n$7\r\nSETINFO"):
                    pass  # a new connection's greeting (the pool opens one while another is busy): not a move's
                elif (b"HGETALL" in raw and b":auth" in raw) or (b"INCRBY" in raw and b"naipes:rate:" in raw):
                    self.periodic += 1
                else:
                    self.sent += 1
                    self.log.append(raw[:60])
            return original(conn, command, check_health)

        monkeypatch.setattr(Connection, "send_packed_command", counting)


def _play(
    c, wire, game: str, options: dict, moves: int, idempotent: bool, games: list | None = None
) -> list[tuple[int, int, bool]]:
    """Games played until ``moves`` moves that did not finish their game were counted (a game may end
    after a handful of moves: most random ¡Muerte al rey! matches do): for each move after its seat's
    first request of its game (which loads the game's seat tokens and the key cache's answer for that
    token), the round trips of its legal moves and of its POST, and whether the POST finished the
    game."""
    players, base = GAMES[game]
    rng = random.Random(game)
    out: list[tuple[int, int, bool]] = []

    def short() -> bool:
        return sum(not finished for _, _, finished in out) < moves

    while short():
        made = c.post(
            "/games", json={"game": game, "players": players, "options": {**base, **options}}, headers=bearer(API_KEY)
        )
        assert made.status_code == 201, made.get_json()
        g = made.get_json()
        if games is not None:
            games.append(g["id"])
        toks = {s["seat"]: bearer(s["token"]) for s in g["seats"]}
        seen: set[int] = set()
        to_act = c.get(f"/games/{g['id']}", headers=bearer(API_KEY)).get_json()["to_act"]
        n = 0
        while to_act and short():
            seat = rng.choice(to_act)
            before, periodic = wire.sent, wire.periodic
            at = {"REMOTE_ADDR": f"10.9.{len(games or [])}.{seat + 1}"}  # each player from an address of its own
            listed = c.get(f"/games/{g['id']}/legal-moves", headers=toks[seat], environ_base=at)
            assert listed.status_code == 200, listed.get_json()
            middle = wire.sent
            wire.log.clear()
            headers = {**toks[seat], "Idempotency-Key": f"k{n}"} if idempotent else toks[seat]
            r = c.post(
                f"/games/{g['id']}/moves",
                json=rng.choice(listed.get_json()["moves"]),
                headers=headers,
                environ_base=at,
            )
            assert r.status_code == 201, r.get_json()
            if wire.sent - middle > 1 and not r.get_json()["finished"]:
                wire.costly.append(list(wire.log))
            if seat in seen:
                out.append((middle - before, wire.sent - middle, r.get_json()["finished"]))
                wire.counted += wire.periodic - periodic
            seen.add(seat)
            to_act = r.get_json()["to_act"]
            n += 1
    return out


def _one_each(posts: list[int]) -> bool:
    """Every move one round trip; one move of the run may cost up to two more (the process's cached
    table refilled from the snapshot and the log's tail, or the append script loaded again after
    Redis forgot it), never more, and never twice."""
    return sum(post != 1 for post in posts) <= 1 and max(posts) <= 3


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_move_is_one_round_trip_and_its_legal_moves_one(service, monkeypatch, game):
    monkeypatch.delenv("NAIPES_RATE_LIMIT", raising=False)
    monkeypatch.delenv("NAIPES_RATE_LIMIT_ADDRESS", raising=False)
    c = create_app(service).test_client()  # the defaults: limits per credential and per address
    wire = Wire(monkeypatch)
    played = _play(c, wire, game, {}, 40, idempotent=game in ("cego", "onion"))
    assert [get for get, _, _ in played] == [1] * len(played), played
    # a move that finishes the game also lists it among the finished and tells the listeners
    posts = [post for _, post, finished in played if not finished]
    assert len(posts) >= 30 and _one_each(posts), (played, wire.costly)
    assert wire.counted <= len(played) // 4, wire.counted  # a game's tokens, a count's share: now and then


def test_a_timed_move_writes_its_deadlines_in_the_same_round_trip(service, monkeypatch):
    attach_scheduler(service)
    c = create_app(service).test_client()
    wire = Wire(monkeypatch)
    games: list[str] = []
    played = _play(c, wire, "dalmuti", {"turn_seconds": 60}, 30, idempotent=False, games=games)
    assert games
    posts = [post for _, post, finished in played if not finished]
    assert len(posts) >= 20 and _one_each(posts), (played, wire.costly)
    # and the schedule holds the deadlines of each game's latest version (written by that round trip)
    entries = {e.decode() for e in service.queue_redis.zrange(DEADLINES, 0, -1)}
    for gid in games:
        table = service.tables.table(gid, fresh=True)
        for seat, clock in (table.get("clock") or {}).items():
            if clock.get("deadline") is not None:
                assert entry_id(gid, table["version"], seat, clock["deadline"]) in entries, (gid, seat)


def test_the_move_that_ends_a_game_is_answered_in_one_round_trip(service, monkeypatch):
    """Its end (listing, tournament, webhooks) is told once the answer is sent: when the server closes
    it (werkzeug's client, here, leaves closing to its caller)."""
    app = create_app(service, rate_limit="off")
    c, raw = app.test_client(), Client(app.wsgi_app, Response)
    wire = Wire(monkeypatch)
    ends = []
    for n in range(3):
        g = c.post(
            "/games",
            json={"game": "dalmuti", "players": list("abcde"), "options": {"hands": 1}},
            headers=bearer(API_KEY),
        ).get_json()
        toks, rng = {s["seat"]: bearer(s["token"]) for s in g["seats"]}, random.Random(n)
        to_act = c.get(f"/games/{g['id']}", headers=bearer(API_KEY)).get_json()["to_act"]
        while to_act:
            seat = rng.choice(to_act)
            moves = c.get(f"/games/{g['id']}/legal-moves", headers=toks[seat]).get_json()["moves"]
            before = wire.sent
            r = raw.post(f"/games/{g['id']}/moves", json=rng.choice(moves), headers=toks[seat])
            answered = wire.sent - before
            r.close()
            to_act = r.get_json()["to_act"]
            if not to_act:
                ends.append((answered, wire.sent - before - answered))
    assert [answered for answered, _ in ends] == [1, 1, 1], ends
    assert all(after >= 3 for _, after in ends), ends  # then its listing and listeners, after the answer


def test_creating_a_game_costs_two_round_trips(service, monkeypatch):
    """Its first events with its owner and its seats' tokens beside them (one round trip: nobody
    knows its id before the answer), then its summary and its places in the listing (one): the
    context that its tokens and listing read is the one just written, not read back.  And what rode
    beside the append is there: its owner is stored, each seat's token opens its own seat, the
    listing shows it in every set it belongs to."""
    c = create_app(service, rate_limit="off").test_client()
    body = {"game": "dalmuti", "players": list("abcde"), "options": {"hands": 1}}
    assert c.post("/games", json=body, headers=bearer(API_KEY)).status_code == 201  # scripts loaded, key cached
    wire = Wire(monkeypatch)
    for _ in range(3):
        before = wire.sent
        wire.log.clear()
        made = c.post("/games", json=body, headers=bearer(API_KEY))
        assert made.status_code == 201
        assert wire.sent - before == 2, wire.log
    game = made.get_json()
    assert service.redis.hget(key(game["id"], "meta"), "owner") is not None  # its owner, stored
    for seat in game["seats"]:
        r = c.get(f"/games/{game['id']}", headers=bearer(seat["token"]))
        assert r.status_code == 200 and r.get_json()["viewer"] == {"kind": "seat", "seat": seat["seat"], "full": False}
    owner = c.get(f"/games/{game['id']}", headers=bearer(API_KEY)).get_json()["viewer"]
    assert owner["full"] is True, owner
    for query in ("", "?game=dalmuti", "?status=active", "?game=dalmuti&status=active"):
        listed = c.get(f"/games{query}", headers=bearer(API_KEY)).get_json()["games"]
        assert game["id"] in [g["id"] for g in listed], query
        row = next(g for g in listed if g["id"] == game["id"])
        assert row["status"] == "active" and row["players"] == list("abcde") and row["version"] == game["version"]
    assert game["id"] not in [g["id"] for g in c.get("/games?status=open", headers=bearer(API_KEY)).get_json()["games"]]
