"""Every registered game played to its end through the HTTP API over real Redis.

For each game type other than Dalmuti (which has its own, deeper test), 50
complete games (default options) by bots that know only legal-moves: every
event sent to a seat carries private parts of that seat only, spectators none;
no view of a seat or a spectator shows another seat's hand; the snapshot
equals the fold from version 0 at every version reached by a move; the replay
of the last version agrees with the fold.
"""

from __future__ import annotations

import random

import pytest

from domain import registry, wire
from domain import table as tables
from events.envelope import dumps, loads
from events.store import key
from service.core.identity import Viewer

from .conftest import bearer
from .helpers import tokens

GAMES = 50
OTHER_GAMES = [g for g in registry.GAME_MODULES if g != "dalmuti"]


def _create(client, integrator, game: str, module, rng: random.Random) -> dict:
    """A game with a random player count the game accepts (Muerte al rey wants even counts)."""
    for _ in range(100):
        n = rng.randint(module.MIN_PLAYERS, min(module.MAX_PLAYERS, module.MIN_PLAYERS + 6))
        r = client.post("/games", json={"game": game, "players": [f"p{i}" for i in range(n)]}, headers=integrator)
        if r.status_code == 201:
            return r.get_json()
        assert r.status_code == 422 and r.get_json()["type"].endswith("cannot-start"), r.get_json()
    raise AssertionError("no player count accepted")


def _hand_fields(value, out: list, key: str = "") -> list:
    """Every value stored under a key named 'hand' or 'hands', at any depth."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("hand", "hands"):
                out.append((k, v))
            _hand_fields(v, out, k)
    elif isinstance(value, list):
        for v in value:
            _hand_fields(v, out, key)
    return out


def check_no_hidden_hand(view: dict, viewer: int | None, hands: list[list]) -> None:
    """A spectator sees no hand; a seat sees its own hand only (never the list of all hands)."""
    fields = _hand_fields(view["state"], [])
    if viewer is not None:
        assert fields, "a seat's view shows its own hand"
    for k, v in fields:
        assert k == "hand" and viewer is not None, f"'{k}' shown to {viewer}"
        assert sorted(map(str, v)) == sorted(map(str, hands[viewer])), f"a hand other than its own shown to {viewer}"


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_fifty_games_through_http(game, app, service, redis_client, integrator):
    module = registry.get(game)
    client = app.test_client()
    rng = random.Random(hash(game) & 0xFFFF)
    for _ in range(GAMES):
        g = _create(client, integrator, game, module, rng)
        gid, toks = g["id"], tokens(g)
        snapshots = {}
        for _step in range(100_000):
            view = client.get(f"/games/{gid}").get_json()
            snapshots[view["version"]] = loads(redis_client.get(key(gid, "snap")))
            hands = [[wire.notation(game).code(c) for c in h] for h in service.tables.table(gid)["state"]["hands"]]
            check_no_hidden_hand(view, None, hands)
            if view["finished"]:
                break
            seat = rng.choice(view["to_act"])
            for viewer in {seat, rng.choice(list(toks))}:
                seen = client.get(f"/games/{gid}", headers=bearer(toks[viewer])).get_json()
                check_no_hidden_hand(seen, viewer, hands)
            moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
            r = client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
            assert r.status_code == 201, r.get_json()
            for e in r.get_json()["events"]:
                assert set(e.get("private") or {}) <= {str(seat)}
        assert view["finished"]
        for seat in [None, *toks]:
            events = client.get(
                f"/games/{gid}/events", headers=bearer(toks[seat]) if seat is not None else {}
            ).get_json()["events"]
            for e in events:
                assert set(e.get("private") or {}) <= ({str(seat)} if seat is not None else set())
        audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
        assert audit["chain"]["ok"]
        table = None
        for env in audit["events"]:
            table = tables.evolve(table, env)
            if env["version"] in snapshots:
                assert snapshots[env["version"]] == loads(dumps(table))
        last = audit["version"]
        replay = client.get(f"/games/{gid}/replay?version={last}", headers=integrator).get_json()
        assert replay == service.reads.state_view(
            gid, Viewer("integrator", scopes=frozenset({"games", "review"})), table
        )
