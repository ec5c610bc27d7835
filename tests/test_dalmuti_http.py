"""40 complete El Gran Dalmuti matches through the HTTP API over real Redis (in 4 chunks).

For every version of every match: the snapshot kept beside the stream, the
fold from version 0 and ``replay?version=N`` agree; and no response to a
seat token or a spectator holds a card hidden from it.
"""

from __future__ import annotations

import os
import random

import pytest

from domain import table as tables
from events.envelope import dumps, loads, verify_chain
from events.store import key
from service.core.identity import Viewer

from .conftest import bearer
from .helpers import create, tokens

MATCHES = int(os.environ.get("NAIPES_DALMUTI_MATCHES", "40"))
CHUNKS = 4  # the matches in chunks, so that the test's workers share them
REVIEWER = Viewer("integrator", scopes=frozenset({"games", "review"}))


def check_no_leak(view: dict, seat: int | None, hands: list[list[int]]) -> None:
    state = view["state"]
    for secret in ("hands", "transfers_all", "tax_chosen"):
        assert secret not in state, f"{secret} shown to {seat}"
    if seat is None:
        assert "hand" not in state and "transfers" not in state
    else:
        assert state["hand"] == hands[seat]
        for t in state.get("transfers", []):
            assert seat in (t.get("from"), t.get("to"), t.get("seat"), t.get("with")) or "from" not in t


def check_events_filtered(events: list[dict], seat: int | None) -> None:
    for e in events:
        seats = set((e.get("private") or {}).keys())
        assert seats <= ({str(seat)} if seat is not None else set()), (seat, e["type"], seats)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_matches_fold_replay_and_leak(app, service, redis_client, integrator, chunk):
    client = app.test_client()
    rng = random.Random(f"20261123-{chunk}")
    snapshots_checked = replays_checked = views_checked = 0
    for match in range(chunk, MATCHES, CHUNKS):
        n = 4 + match % 5
        options = {
            "hands": 1 + match % 2,
            "reduced_deck": match % 7 == 0,
            "merchant_exchange": match % 3 == 0,
            "philanthropic_scoring": match % 4 == 0,
            "first_deal_revolution": match % 5 == 0,
        }
        g = create(client, integrator, players=[f"p{i}" for i in range(n)], options=options)
        gid, toks = g["id"], tokens(g)
        snapshots: dict[int, dict] = {}
        while True:
            full = client.get(f"/games/{gid}", headers=integrator).get_json()
            hands = full["state"]["hands"]
            snapshots[full["version"]] = loads(redis_client.get(key(gid, "snap")))
            # every viewer's view at every fourth version and at the end; between them, the spectator's,
            # the seats' to act (whose views change most) and one other seat's, drawn at random
            every = len(snapshots) % 4 == 1 or full["finished"]
            viewers = [None, *toks] if every else [None, *full["to_act"], rng.choice(list(toks))]
            for seat in dict.fromkeys(viewers):
                headers = bearer(toks[seat]) if seat is not None else {}
                check_no_leak(client.get(f"/games/{gid}", headers=headers).get_json(), seat, hands)
                views_checked += 1
            if full["finished"]:
                break
            seat = rng.choice(full["to_act"])
            moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
            r = client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
            assert r.status_code == 201, r.get_json()
            check_events_filtered(r.get_json()["events"], seat)
        result = full["result"]
        assert sorted(result["ranking"]) == list(range(n))
        audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
        assert audit["chain"]["ok"]
        events = audit["events"]
        assert verify_chain(events)["ok"]
        for seat in [None, *toks]:
            headers = bearer(toks[seat]) if seat is not None else {}
            check_events_filtered(client.get(f"/games/{gid}/events", headers=headers).get_json()["events"], seat)
        # fold from zero at every version; compare with snapshots and replays
        table = None
        for env in events:
            table = tables.evolve(table, env)
            v = env["version"]
            if v in snapshots:
                assert snapshots[v] == loads(dumps(table)), f"snapshot differs at {v}"
                snapshots_checked += 1
            if v >= 2:
                replay = client.get(f"/games/{gid}/replay?version={v}", headers=integrator).get_json()
                assert replay == service.reads.state_view(gid, REVIEWER, table)
                replays_checked += 1
        assert table["version"] == audit["version"]
    played = len(range(chunk, MATCHES, CHUNKS))
    print(f"{played} matches: {snapshots_checked} snapshots, {replays_checked} replays, {views_checked} views")


def test_philanthropic_scoring_without_scoring_is_refused(client, integrator):
    """Seed 004, Puntuación filantrópica: "Además de utilizar las reglas de puntuación anteriores": a game
    asking for it with scoring off is refused (422 problem naming the option); with scoring it starts."""
    r = client.post(
        "/games",
        json={
            "game": "dalmuti",
            "players": ["a", "b", "c", "d"],
            "options": {"scoring": False, "philanthropic_scoring": True},
        },
        headers=integrator,
    )
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    body = r.get_json()
    assert "philanthropic_scoring" in body["detail"], body
    g = create(client, integrator, players=["a", "b", "c", "d"], options={"philanthropic_scoring": True})
    view = client.get(f"/games/{g['id']}").get_json()
    assert view["options"]["scoring"] is True and view["options"]["philanthropic_scoring"] is True
