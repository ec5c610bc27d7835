"""What one move costs Redis on the request's own path, with the start command's defaults (rate limits
on): the POST is one round trip (version check, append, snapshot and idempotency record in one
script), the legal moves one (the head's version), whatever the game; counted on the wire."""

from __future__ import annotations

import random
import threading

import pytest
from redis.connection import Connection

from service.web.app import create_app

from .conftest import API_KEY, bearer

GAMES = {
    "dalmuti": (["a", "b", "c", "d", "e"], {"hands": 1}),
    "cego": (["a", "b", "c"], {"rounds": 1}),
    "muerte": (["a", "b", "c", "d", "e", "f"], {}),
    "onion": (["a", "b", "c"], {"rounds": 1}),
}


class Wire:
    """Counts the commands (a pipeline or a script is one) this thread sends to Redis."""

    def __init__(self, monkeypatch):
        self.sent = 0
        self.thread = threading.get_ident()
        original = Connection.send_packed_command

        def counting(conn, command, check_health=True):
            if threading.get_ident() == self.thread:
                self.sent += 1
            return original(conn, command, check_health)

        monkeypatch.setattr(Connection, "send_packed_command", counting)


def _play(c, wire, game: str, options: dict, moves: int, idempotent: bool) -> list[tuple[int, int, bool]]:
    """Games played until ``moves`` moves: for each move after its seat's first request of its game
    (which loads the game's seat tokens and the key cache's answer for that token), the round trips
    of its legal moves and of its POST, and whether the POST finished the game."""
    players, base = GAMES[game]
    rng = random.Random(game)
    out: list[tuple[int, int, bool]] = []
    while len(out) < moves:
        made = c.post(
            "/games", json={"game": game, "players": players, "options": {**base, **options}}, headers=bearer(API_KEY)
        )
        assert made.status_code == 201, made.get_json()
        g = made.get_json()
        toks = {s["seat"]: bearer(s["token"]) for s in g["seats"]}
        seen: set[int] = set()
        to_act = c.get(f"/games/{g['id']}", headers=bearer(API_KEY)).get_json()["to_act"]
        n = 0
        while to_act and len(out) < moves:
            seat = rng.choice(to_act)
            before = wire.sent
            listed = c.get(f"/games/{g['id']}/legal-moves", headers=toks[seat])
            assert listed.status_code == 200, listed.get_json()
            middle = wire.sent
            headers = {**toks[seat], "Idempotency-Key": f"k{n}"} if idempotent else toks[seat]
            r = c.post(f"/games/{g['id']}/moves", json=rng.choice(listed.get_json()["moves"]), headers=headers)
            assert r.status_code == 201, r.get_json()
            if seat in seen:
                out.append((middle - before, wire.sent - middle, r.get_json()["finished"]))
            seen.add(seat)
            to_act = r.get_json()["to_act"]
            n += 1
    return out


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
    assert len(posts) >= 30 and posts == [1] * len(posts), played
