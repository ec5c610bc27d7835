"""A reviewer's award or void ends a game mid-hand; the deal in play is over
with it and is revealed (``DealRevealed``) in the same append, so the game's
own export verifies and imports into another store."""

from __future__ import annotations

import random

import pytest
import redis

from domain import registry
from domain import table as tables
from events.embedded import EmbeddedRedis
from service.core.naipes import Naipes
from service.core.verify import verify_export
from service.web.app import create_app

from .conftest import API_KEY, bearer
from .helpers import SHORT, create, tokens

PLAYERS = {"dalmuti": 4, "cego": 4, "muerte": 6, "onion": 3}


@pytest.fixture(scope="module")
def other_redis(tmp_path_factory):
    server = EmbeddedRedis(tmp_path_factory.mktemp("other")).start()
    yield server
    server.stop()


def mid_hand(client, integrator, service, game: str, seed: int) -> dict:
    """A game a few moves into its first hand, its deal not yet revealed."""
    created = create(
        client, integrator, game=game, players=[f"p{i}" for i in range(PLAYERS[game])], options=SHORT[game]
    )
    gid, toks, rng = created["id"], tokens(created), random.Random(seed)
    for _ in range(3):
        view = client.get(f"/games/{gid}").get_json()
        seat = rng.choice(view["to_act"])
        move = rng.choice(client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"])
        assert client.post(f"/games/{gid}/moves", json=move, headers=bearer(toks[seat])).status_code == 201
    table = service.tables.table(gid, fresh=True)
    assert table["deals"]["open"] and tables.outcome(table) is None, "the game must stand mid-hand"
    return created


@pytest.mark.parametrize("action", ["award", "void"])
@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_a_ruling_mid_hand_reveals_the_deal_and_the_export_verifies_and_imports(
    client, integrator, service, other_redis, game, action
):
    created = mid_hand(client, integrator, service, game, seed=len(game))
    gid, n = created["id"], PLAYERS[game]
    body = {"action": action, "reason": "the table broke up mid-hand"}
    if action == "award":
        body["scores"] = [float(n - s) for s in range(n)]
    ruled = client.post(f"/games/{gid}/adjudications", json=body, headers=integrator)
    assert ruled.status_code == 201, ruled.get_json()
    assert ruled.get_json()["event"]["type"] == tables.ADJUDICATED and ruled.get_json()["result"] is not None

    events = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["events"]
    dealt = {e["version"] for e in events if e["type"] != tables.DEAL_REVEALED and "commitment" in e["data"]}
    ruling = next(e for e in events if e["type"] == tables.ADJUDICATED)
    after = events[events.index(ruling) + 1 :]
    # every deal is revealed, right after the ruling and in its append (same time stamp, same actor)
    assert dealt and {e["data"]["deal_version"] for e in events if e["type"] == tables.DEAL_REVEALED} == dealt
    assert after and all(e["type"] == tables.DEAL_REVEALED and e["time"] == ruling["time"] for e in after)
    assert client.get(f"/games/{gid}").get_json()["version"] == after[-1]["version"]

    data = client.get(f"/games/{gid}/export", headers=integrator).get_data()
    report = verify_export(data.splitlines())
    assert report["ok"], report["problems"]

    fresh_client = redis.Redis.from_url(other_redis.url)
    fresh_client.flushall()
    fresh = create_app(Naipes(fresh_client, api_keys=[API_KEY]), rate_limit="off").test_client()
    imported = fresh.post("/games/import", data=data, headers={**integrator, "Content-Type": "application/x-ndjson"})
    assert imported.status_code == 201, imported.get_json()
    assert (
        fresh.get(f"/games/{gid}", headers=integrator).get_json()["result"]
        == client.get(f"/games/{gid}", headers=integrator).get_json()["result"]
    )
    fresh_client.close()
