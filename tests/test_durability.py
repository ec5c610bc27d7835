"""With ``appendfsync always`` a move acknowledged with 2xx survives a SIGKILL of Redis.

Twenty times: a move through the app, SIGKILL of redis-server right after the
201, a new redis-server on the same data folder, and the move must be there
with the chain verifying up to it.
"""

from __future__ import annotations

import random

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
