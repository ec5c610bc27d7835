"""Seats the service plays: the ``bots`` option, with real RQ workers making the bots' moves.

A bot's turn is due at once; a worker makes its move from the seat's view (``domain.bots``), as an
ordinary event whose actor is ``bot:<kind>``.  A table of bots plays itself to its end, a person
plays beside bots, a worker killed midway is replaced and the game goes on.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from domain import registry

from .conftest import bearer
from .helpers import SHORT, create, tokens
from .test_timers import kill_group, quiet, start_worker, wait_for, worker  # noqa: F401 - fixtures

PLAYERS = {"cego": 4, "dalmuti": 4, "muerte": 6, "onion": 4}


@pytest.fixture(autouse=True)
def quick_search(monkeypatch):
    """The workers these tests start search with a small budget (the bench measures the real one)."""
    monkeypatch.setenv("NAIPES_BOT_SEARCH_BUDGET", "16")


def _events(client, integrator, gid):
    return client.get(f"/games/{gid}/events?limit=1000", headers=integrator).get_json()["events"]


@pytest.mark.parametrize("game", sorted(registry.GAME_MODULES))
def test_a_table_of_bots_plays_itself_to_the_end(worker, client, integrator, game):
    n = PLAYERS[game]
    kinds = ["random", "heuristic", "search", "random", "heuristic", "random"][:n]
    options = {**SHORT[game], "bots": {str(s): kinds[s] for s in range(n)}}
    created = create(client, integrator, game, players=[f"bot{i}" for i in range(n)], options=options)
    gid = created["id"]
    assert wait_for(lambda: client.get(f"/games/{gid}").get_json()["finished"], timeout=120)
    actors = {e["actor"] for e in _events(client, integrator, gid)}
    movers = actors - {"integrator", "system"}
    assert movers and movers <= {f"bot:{k}" for k in kinds}, actors  # a short game may end before every kind moves
    assert not any(a.startswith("seat:") for a in actors), "nobody but the bots moved"
    assert client.get(f"/games/{gid}/audit", headers=integrator).get_json()["chain"]["ok"]


def test_a_person_plays_beside_bots(worker, client, integrator):
    options = {**SHORT["dalmuti"], "bots": {"1": "search", "2": "heuristic", "3": "random"}}
    created = create(client, integrator, "dalmuti", players=["ana", "b1", "b2", "b3"], options=options)
    gid, tok = created["id"], tokens(created)[0]
    rng = random.Random(7)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        view = client.get(f"/games/{gid}", headers=bearer(tok)).get_json()
        if view["finished"]:
            break
        if 0 not in view["to_act"]:
            time.sleep(0.02)
            continue
        moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(tok)).get_json()["moves"]
        r = client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(tok))
        assert r.status_code in (201, 409), r.get_json()
    else:
        raise AssertionError("the game did not end")
    actors = {e["actor"] for e in _events(client, integrator, gid)}
    assert {"seat:0", "bot:search", "bot:heuristic", "bot:random"} <= actors, actors


def test_bots_go_on_after_their_worker_is_killed(quiet, integrator):
    """Over a database of its own: the second worker re-arms and serves every running game of its
    database as it starts, and the games earlier tests left running (timed seats that never move, bot
    tables) kept it busy past the test's wait on a loaded machine."""
    redis_url, _service, client = quiet
    options = {**SHORT["cego"], "bots": {str(s): "search" for s in range(4)}}
    created = create(client, integrator, "cego", players=[f"bot{i}" for i in range(4)], options=options)
    gid = created["id"]
    first = start_worker(redis_url)
    try:
        assert wait_for(lambda: client.get(f"/games/{gid}").get_json()["version"] > 6, timeout=60)
    finally:
        kill_group(first)
    stopped_at = client.get(f"/games/{gid}").get_json()
    assert not stopped_at["finished"], "the worker was killed midway"
    second = start_worker(redis_url)
    try:
        assert wait_for(lambda: client.get(f"/games/{gid}").get_json()["finished"], timeout=120)
    finally:
        kill_group(second)
    versions = [e["version"] for e in _events(client, integrator, gid)]
    assert versions == list(range(1, len(versions) + 1))


def test_bot_seats_must_be_seats_of_the_table(client, integrator):
    r = client.post(
        "/games",
        json={"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"bots": {"4": "random"}}},
        headers=integrator,
    )
    assert r.status_code == 422 and r.get_json()["rule"] == "bot-seat" and "seat 4" in r.get_json()["detail"]
    r = client.post(
        "/games",
        json={"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"bots": {"1": "clever"}}},
        headers=integrator,
    )
    assert (
        r.status_code == 422 and r.get_json()["type"].endswith("invalid-options") and "bots" in r.get_json()["detail"]
    )


@pytest.mark.parametrize("fmt", ["round_robin", "swiss", "duplicate"])
def test_a_tournament_of_bots_runs_to_its_standings_with_workers_killed_midway(redis_url, client, integrator, fmt):
    """Every player is a bot; the first worker is killed as the first round plays, a second one
    takes over, and the tournament ends with standings from every table (no table twice)."""
    players = [f"{fmt[:3]}{i}" for i in range(8)]
    kinds = ["random", "heuristic", "search", "random"] if fmt == "swiss" else ["random", "heuristic"]
    body = {
        "game": "dalmuti",
        # two hands a table: fast bots play a tournament of one-hand tables out within a poll or two of its
        # start on a quiet machine, and the first worker must be killed while the tournament still plays
        "options": {"hands": 2},
        "players": players,
        "format": fmt,
        "rounds": 2,
        "table_size": {"min": 4, "max": 4},
        "bots": {p: kinds[i % len(kinds)] for i, p in enumerate(players)},
    }
    r = client.post("/tournaments", json=body, headers=integrator)
    assert r.status_code == 201, r.get_json()
    tid = r.get_json()["id"]
    assert r.get_json()["bots"] == body["bots"]
    first = start_worker(redis_url)
    second = None
    try:
        game = r.get_json()["round_detail"]["tables"][0]["game_id"]
        assert wait_for(lambda: client.get(f"/games/{game}").get_json()["version"] > 5, timeout=60, step=0.01)
        kill_group(first)
        assert client.get(f"/tournaments/{tid}").get_json()["status"] != "finished"
        second = start_worker(redis_url)
        assert wait_for(lambda: client.get(f"/tournaments/{tid}").get_json()["status"] == "finished", timeout=240)
    finally:
        for proc in (first, second):
            if proc is not None:
                kill_group(proc)
    standings = client.get(f"/tournaments/{tid}/standings").get_json()["standings"]
    assert sorted(row["player"] for row in standings) == sorted(players)
    for n in (1, 2):
        rd = client.get(f"/tournaments/{tid}/rounds/{n}", headers=integrator).get_json()
        for tb in rd["tables"]:
            actors = {e["actor"] for e in _events(client, integrator, tb["game_id"])}
            assert actors - {"integrator", "system"} <= {f"bot:{k}" for k in kinds}, actors


def test_a_tournament_names_its_bots_among_its_players(client, integrator):
    body = {
        "game": "dalmuti",
        "players": ["a", "b", "c", "d"],
        "format": "swiss",
        "table_size": {"min": 4, "max": 4},
    }
    r = client.post("/tournaments", json={**body, "bots": {"zed": "random"}}, headers=integrator)
    assert r.status_code == 422 and "zed" in r.get_json()["detail"]
    r = client.post("/tournaments", json={**body, "options": {"bots": {"0": "random"}}}, headers=integrator)
    assert r.status_code == 422 and "by player" in r.get_json()["detail"]


def test_the_start_command_runs_bots_apart_from_deadlines(monkeypatch):
    """`naipes start` runs a worker of the timers' and default queues and one of the bots' queue, so a
    bot thinking never holds up a deadline; a plain worker serves every queue, the bots' last."""
    from service.core.timers import BOTS, DEFAULT, QUEUES, TIMERS
    from workers.__main__ import served

    assert served(["timers"]) == [TIMERS, DEFAULT] and served(["bots"]) == [BOTS]
    assert served([]) == QUEUES and QUEUES[-1] == BOTS
    monkeypatch.setenv("NAIPES_WORKER_QUEUES", f"{BOTS}")
    assert served([]) == [BOTS]
    with pytest.raises(SystemExit, match="no role"):
        served(["everything"])
    source = (Path(__file__).resolve().parents[1] / "service" / "cli" / "commands.py").read_text()
    assert '"-m", "workers", "timers"' in source and '"-m", "workers", "bots"' in source


def test_the_owner_puts_a_bot_in_an_absent_players_seat(worker, client, integrator, service):
    """Seat 0 never moves: timed out once it is absent (absent_after 1), and the rules' timeout moves
    play it; the owner puts a heuristic bot in its seat, which then plays it from its view."""
    options = {**SHORT["dalmuti"], "turn_seconds": 0.3, "absent_after": 1, "bots": {"1": "random", "2": "random"}}
    created = create(client, integrator, "dalmuti", players=["ana", "b1", "b2", "dani"], options=options)
    gid, toks = created["id"], tokens(created)
    url = f"/games/{gid}/seats/0/bot"
    # dani (seat 3) is at the table: no bot for her seat; a stranger key is no owner; a bad kind is named
    r = client.post(f"/games/{gid}/seats/3/bot", json={"bot": "random"}, headers=integrator)
    assert r.status_code == 409 and r.get_json()["type"].endswith("seat-not-absent")
    stranger = service.keys.create("stranger", ["games"])["key"]
    assert client.post(url, json={"bot": "random"}, headers=bearer(stranger)).status_code == 403
    assert client.post(url, json={"bot": "clever"}, headers=integrator).status_code == 422
    assert client.post(url, json={"bot": "random"}, headers=bearer(toks[0])).status_code in (401, 403)
    assert wait_for(lambda: 0 in client.get(f"/games/{gid}").get_json()["absent"], timeout=30)
    r = client.post(url, json={"bot": "heuristic"}, headers=integrator)
    assert r.status_code == 201, r.get_json()
    assert client.post(url, json={"bot": "random"}, headers=integrator).status_code == 409  # a bot plays it
    rng = random.Random(3)
    end = time.monotonic() + 90
    while time.monotonic() < end and not client.get(f"/games/{gid}").get_json()["finished"]:
        view = client.get(f"/games/{gid}", headers=bearer(toks[3])).get_json()
        if 3 in view["to_act"]:
            moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[3])).get_json()["moves"]
            client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[3]))
        time.sleep(0.02)
    events = _events(client, integrator, gid)
    seated = next(e for e in events if e["type"] == "BotSeated")
    assert seated["data"] == {"seat": 0, "player": "ana", "bot": "heuristic"} and seated["label"]
    assert client.get(f"/games/{gid}").get_json()["finished"]
    assert any(e["actor"] == "bot:heuristic" for e in events if e["version"] > seated["version"])
