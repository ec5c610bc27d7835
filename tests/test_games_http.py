"""Every registered game played to its end through the HTTP API over real Redis.

For each game type other than Dalmuti (which has its own, deeper test), 50
complete games by bots that know only legal-moves: every response to a seat
carries private parts of that seat only, spectators none; the snapshot equals
the fold from version 0 at every version reached by a move; replays agree
with the fold.
"""

from __future__ import annotations

import random

import pytest

from domain import registry
from domain import table as tables
from events.envelope import dumps, loads
from events.store import key
from service.application import Viewer

from .conftest import bearer
from .helpers import create, tokens

GAMES = 50
OTHER_GAMES = [g for g in registry.GAME_MODULES if g != "dalmuti"]


def _players(module, rng: random.Random) -> list[str]:
    for _ in range(100):
        n = rng.randint(module.MIN_PLAYERS, min(module.MAX_PLAYERS, module.MIN_PLAYERS + 6))
        if getattr(module, "valid_player_count", lambda n: True)(n):
            return [f"p{i}" for i in range(n)]
    return [f"p{i}" for i in range(module.MIN_PLAYERS)]


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_fifty_games_through_http(game, app, service, redis_client, integrator):
    module = registry.get(game)
    client = app.test_client()
    rng = random.Random(hash(game) & 0xFFFF)
    for _ in range(GAMES):
        g = create(client, integrator, game=game, players=_players(module, rng),
                   options=getattr(module, "SHORT_MATCH", {}))
        gid, toks = g["id"], tokens(g)
        snapshots = {}
        for _step in range(100_000):
            view = client.get(f"/games/{gid}").get_json()
            snapshots[view["version"]] = loads(redis_client.get(key(gid, "snap")))
            assert "hands" not in view["state"] and "hand" not in view["state"]
            if view["finished"]:
                break
            seat = rng.choice(view["to_act"])
            moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
            r = client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
            assert r.status_code == 201, r.get_json()
            for e in r.get_json()["events"]:
                assert set((e.get("private") or {})) <= {str(seat)}
        assert view["finished"]
        for seat in [None, *toks]:
            events = client.get(f"/games/{gid}/events",
                                headers=bearer(toks[seat]) if seat is not None else {}).get_json()["events"]
            for e in events:
                assert set((e.get("private") or {})) <= ({str(seat)} if seat is not None else set())
        audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
        assert audit["chain"]["ok"]
        table = None
        for env in audit["events"]:
            table = tables.evolve(table, env)
            if env["version"] in snapshots:
                assert snapshots[env["version"]] == loads(dumps(table))
        last = audit["version"]
        replay = client.get(f"/games/{gid}/replay?version={last}", headers=integrator).get_json()
        assert replay == service.state_view(gid, Viewer("integrator"), table)
