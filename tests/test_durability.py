"""With ``appendfsync always`` a move acknowledged with 2xx survives a SIGKILL of Redis.

Twenty times: a move through the app, SIGKILL of redis-server right after the
201, a new redis-server on the same data folder, and the move must be there
with the chain verifying up to it.
"""

from __future__ import annotations

import random
import secrets

import redis

from events.embedded import EmbeddedRedis
from events.envelope import verify_chain
from events.store import EventStore
from service.core.naipes import Naipes
from service.web.app import create_app

from .conftest import API_KEY, bearer

ROUNDS = 20


def test_no_acknowledged_move_is_lost_when_redis_is_killed(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always").start()
    port = server.port
    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        assert client.config_get("appendfsync")["appendfsync"] == "always"
        service = Naipes(client, api_keys=[API_KEY])
        app = create_app(service, rate_limit="off")
        http = app.test_client()
        created = http.post(
            "/games",
            headers=bearer(API_KEY),
            json={"game": "dalmuti", "players": ["ana", "bea", "carl", "dani"], "options": {"hands": 3}},
        ).get_json()
        toks = {s["seat"]: s["token"] for s in created["seats"]}
        gid = created["id"]
        rng = random.Random(7)
        for i in range(ROUNDS):
            view = http.get(f"/games/{gid}").get_json()
            assert not view["finished"], "the game ended before the rounds did"
            seat = view["to_act"][0]
            moves = http.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
            r = http.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
            assert r.status_code == 201, r.get_json()
            acked = r.get_json()
            server.kill()  # right after the acknowledgement, as a crash would
            server = EmbeddedRedis(tmp_path / "redis", port=port, appendfsync="always").start()
            fresh = redis.Redis(host="127.0.0.1", port=port)
            store = EventStore(fresh)
            envs = store.read(gid)
            assert store.head(gid)[0] == acked["version"], f"round {i}: the head went back"
            assert envs[-1]["version"] == acked["version"], f"round {i}: the acknowledged move is missing"
            assert envs[-1]["hash"] == acked["events"][-1]["hash"]
            check = verify_chain(envs)
            assert check["ok"] and check["head"] == store.head(gid)[1], check
            fresh.close()
        audit = http.get(f"/games/{gid}/audit", headers=bearer(API_KEY)).get_json()
        assert audit["chain"]["ok"] and audit["version"] == acked["version"]
    finally:
        client.close()
        server.stop()


def test_a_creation_whose_seat_tokens_redis_refuses_is_not_answered_201(
    client, integrator, redis_client, monkeypatch, caplog
):
    """A new game's owner and seat tokens are written beside its append, in the same round trip.
    When Redis refuses one of those writes (here: the tokens' key holds a string, WRONGTYPE), the
    creation answers 503 naming the game, not 201 with tokens that open nothing; a move's writes
    beside its append are not the move, which stands."""
    import service.core.games as games_module

    given = "c0ffee00d15ea5e1"
    real = games_module.secrets.token_hex
    drawn = iter([given])
    monkeypatch.setattr(games_module.secrets, "token_hex", lambda n=None: next(drawn, None) or real(n))
    redis_client.set(f"naipes:{{{given}}}:auth", "not a hash")
    r = client.post("/games", json={"game": "cego", "players": ["a", "b", "c", "d"]}, headers=integrator)
    assert r.status_code == 503, r.get_json()
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["type"].endswith(":unavailable") and given in body["detail"] and "seat tokens" in body["detail"]
    assert "WRONGTYPE" in caplog.text and "WRONGTYPE" not in body["detail"]  # Redis's words are logged, not told
    assert "discarded" in body["detail"] and not redis_client.exists(f"naipes:{{{given}}}:events")
    # the next creation draws afresh, and is whole
    r = client.post("/games", json={"game": "cego", "players": ["a", "b", "c", "d"]}, headers=integrator)
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    seat = created["seats"][0]
    assert client.get(f"/games/{created['id']}", headers=bearer(seat["token"])).status_code == 200


def test_a_creation_whose_other_side_write_redis_refuses_is_whole_and_answered_201(
    client, integrator, redis_client, monkeypatch
):
    """An error reply beside a new game's append that is not its owner's nor its tokens' (a write the
    workers' passes catch up on, as its deadlines' marks) leaves the game whole: its owner and tokens
    are written once more on their own, and the creation is answered 201 with tokens that work (a 503
    there told the client to create again a game that existed)."""
    from service.core.appending import Appender

    refused = f"naipes:test:not-a-sorted-set:{secrets.token_hex(4)}"
    redis_client.set(refused, "a string")
    due_mark = Appender._due_mark

    def with_a_refused_write(self, game_id, table, old=None, beside=(), **kwargs):
        writes = due_mark(self, game_id, table, old, beside, **kwargs)
        return lambda pipe: [writes(pipe) if writes else None, pipe.zadd(refused, {game_id: 1})]

    monkeypatch.setattr(Appender, "_due_mark", with_a_refused_write)
    r = client.post("/games", json={"game": "cego", "players": ["x", "y", "z", "w"]}, headers=integrator)
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    assert client.get(f"/games/{created['id']}", headers=integrator).status_code == 200  # its owner's
    assert client.get(f"/games/{created['id']}", headers=bearer(created["seats"][1]["token"])).status_code == 200
    listed = client.get("/games", query_string={"limit": 500}, headers=integrator).get_json()["games"]
    assert created["id"] in [g["id"] for g in listed]
