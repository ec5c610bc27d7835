"""Tournaments played to the end through the HTTP API by bots, with real
Redis and real RQ worker processes advancing them; webhooks delivered to a
local receiver."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema
import pytest

from domain import table as tables
from domain import tournament as T
from service.core import webhooks as wh
from service.core.identity import Viewer
from service.core.naipes import Naipes
from service.core.tournaments import GAMES
from service.web.app import create_app

from .conftest import API_KEY, ROOT, bearer
from .helpers import create, play_http
from .test_contract import SPEC
from .test_contract import _schema as contract_schema
from .test_timers import kill_group, start_worker, wait_for
from .test_trust import duplicate_tournament, play_until_deals_done, void_during_first_hand


@pytest.fixture()
def worker(redis_url):
    proc = start_worker(redis_url)
    yield proc
    kill_group(proc)


def create_tournament(client, integrator, status=201, **body):
    r = client.post("/tournaments", json=body, headers=integrator)
    assert r.status_code == status, r.get_json()
    return r.get_json()


# how long a test waits for a worker process's work (a round paired, its games created): far above what it
# takes (under a second), so that a loaded machine is not taken for a hang
WORKER_SECONDS = 60.0


def wait_round(client, integrator, tid, n, timeout=WORKER_SECONDS):
    """Round ``n`` once all its games exist, or None when the tournament ended first."""

    def ready():
        t = client.get(f"/tournaments/{tid}").get_json()
        if t["round"] >= n:
            rd = client.get(f"/tournaments/{tid}/rounds/{n}", headers=integrator).get_json()
            if rd["status"] in ("playing", "finished"):
                return rd
        if t["status"] == "finished":
            return "finished"
        return None

    found = wait_for(ready, timeout, step=0.05)
    assert found, f"round {n} of {tid} was not ready within {timeout}s"
    return None if found == "finished" else found


def check_round(rd: dict, players: set[str]) -> None:
    seated = [s["player"] for tb in rd["tables"] for s in tb["seats"]]
    assert len(seated) == len(set(seated)), "a player is seated twice in one round"
    assert set(seated) | set(rd["byes"]) <= players and not set(seated) & set(rd["byes"])
    assert all(s["token"].startswith("st_") for tb in rd["tables"] for s in tb["seats"])
    assert len({tb["game_id"] for tb in rd["tables"]}) == len(rd["tables"])


def play_round(client, rd: dict, rng: random.Random) -> None:
    for tb in rd["tables"]:
        play_http(client, {"id": tb["game_id"], "seats": tb["seats"]}, rng)


def play_tournament(
    client, integrator, tid: str, players: set[str], rng: random.Random, timeout: float = WORKER_SECONDS
) -> list[dict]:
    rounds = []
    n = 1
    while True:
        rd = wait_round(client, integrator, tid, n, timeout)
        if rd is None:
            break
        check_round(rd, players)
        play_round(client, rd, rng)
        rounds.append(rd)
        n += 1
    done = wait_for(lambda: client.get(f"/tournaments/{tid}").get_json()["status"] == "finished", timeout)
    assert done, "the tournament did not finish"
    return rounds


def _finished_view(client, game_id: str) -> dict | None:
    view = client.get(f"/games/{game_id}").get_json()
    return view if view["finished"] else None


def check_standings(client, integrator, tid: str, game: str, options: dict) -> dict:
    """Standings equal the sums of the games' outcomes, and the log folds to them."""
    t = client.get(f"/tournaments/{tid}").get_json()
    standings = client.get(f"/tournaments/{tid}/standings").get_json()
    expected = {p["player"]: 0 for p in t["players"]}
    games = 0
    for n in range(1, t["round"] + 1):
        rd = client.get(f"/tournaments/{tid}/rounds/{n}").get_json()
        assert rd["status"] == "finished" and "token" not in json.dumps(rd["tables"])  # no tokens without the key
        for tb in rd["tables"]:
            # a spectator sees a duplicate round's table whole once the embargo lifts: the peers' deal
            # counts are cached a second (service.core.visibility), so the lift may come that much later
            view = wait_for(lambda gid=tb["game_id"]: _finished_view(client, gid), timeout=5)
            assert view, f"the spectator's view of {tb['game_id']} never showed it finished"
            assert view["players"] == [s["player"] for s in tb["seats"]]
            assert tb["result"]["scores"] == view["result"]["scores"]
            points = T.table_points(game, options, view["result"])
            for seat, player in enumerate(view["players"]):
                expected[player] += points[seat]
            games += 1
    got = {row["player"]: row["points"] for row in standings["standings"]}
    assert got == expected
    assert [row["rank"] for row in standings["standings"]] == list(range(1, len(expected) + 1))
    log = client.get(f"/tournaments/{tid}/events", headers=integrator).get_json()
    assert log["chain"]["ok"] and log["chain"]["checked"] == log["version"]
    refolded = T.standings(T.fold(log["events"]))
    assert [(r["player"], r["points"], r["rank"]) for r in refolded] == [
        (r["player"], r["points"], r["rank"]) for r in standings["standings"]
    ]
    results = [e for e in log["events"] if e["type"] == T.TABLE_RESULT]
    started = [e for e in log["events"] if e["type"] == T.TABLE_STARTED]
    assert len(results) == len(started) == games  # one game and one result per table, none twice
    assert len({e["data"]["game_id"] for e in started}) == games
    assert log["events"][-1]["type"] == T.TOURNAMENT_FINISHED
    return standings


def test_sixteen_player_dalmuti_swiss_of_four_rounds(worker, client, integrator):
    players = [f"dal{i:02d}" for i in range(16)]
    options = {"hands": 1}
    t = create_tournament(
        client,
        integrator,
        name="swiss",
        game="dalmuti",
        options=options,
        players=players,
        format="swiss",
        rounds=4,
        table_size={"min": 4, "max": 4},
    )
    assert t["round"] == 1 and t["round_detail"]["status"] == "playing" and t["tie_breaks"][0] == "wins"
    rounds = play_tournament(client, integrator, t["id"], set(players), random.Random(7))
    assert len(rounds) == 4 and all(len(rd["tables"]) == 4 and not rd["byes"] for rd in rounds)
    check_standings(client, integrator, t["id"], "dalmuti", options)


def test_twelve_player_cego_round_robin(worker, client, integrator):
    players = [f"cego{i:02d}" for i in range(12)]
    options = {"rounds": 1}
    t = create_tournament(
        client,
        integrator,
        game="cego",
        options=options,
        players=players,
        format="round_robin",
        table_size={"min": 4, "max": 4},
    )
    assert t["rounds"] == 4  # ceil(11 / 3)
    rounds = play_tournament(client, integrator, t["id"], set(players), random.Random(8))
    assert len(rounds) == 4
    met: dict[frozenset, int] = {}
    for rd in rounds:
        for tb in rd["tables"]:
            names = [s["player"] for s in tb["seats"]]
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    # 72 seats next to someone for 66 pairs; no resolvable schedule covers them all in 4 rounds of 3 tables
    # of 4: the best found meets 54 pairs, none more than twice (the annealer's result for this size)
    assert max(met.values()) <= 2 and len(met) >= 54
    standings = check_standings(client, integrator, t["id"], "cego", options)
    assert sum(row["points"] for row in standings["standings"]) == 0  # Cego balances are zero-sum


def test_a_worker_killed_mid_round_loses_and_duplicates_nothing(redis_url, client, integrator, redis_client):
    players = [f"kil{i}" for i in range(8)]
    options = {"hands": 1}
    rng = random.Random(3)
    first = start_worker(redis_url)
    second = third = None
    try:
        t = create_tournament(
            client,
            integrator,
            game="dalmuti",
            options=options,
            players=players,
            format="swiss",
            rounds=3,
            table_size={"min": 4, "max": 4},
        )
        tid = t["id"]
        rd = t["round_detail"]
        play_http(client, {"id": rd["tables"][0]["game_id"], "seats": rd["tables"][0]["seats"]}, rng)
        kill_group(first)  # mid-round: one table done, one playing
        play_http(client, {"id": rd["tables"][1]["game_id"], "seats": rd["tables"][1]["seats"]}, rng)
        # the round is over with no worker alive: its advance job waits in the queue
        second = start_worker(redis_url)
        paired = wait_for(
            lambda: client.get(f"/tournaments/{tid}").get_json()["round"] >= 2, WORKER_SECONDS, step=0.002
        )
        kill_group(second)  # as soon as round 2 is paired: while its games are being created
        assert paired
        at_kill = client.get(f"/tournaments/{tid}/rounds/2").get_json()
        third = start_worker(redis_url)
        n = 2
        while True:
            rd_n = wait_round(client, integrator, tid, n)
            if rd_n is None:
                break
            check_round(rd_n, set(players))
            play_round(client, rd_n, rng)
            n += 1
        assert wait_for(lambda: client.get(f"/tournaments/{tid}").get_json()["status"] == "finished", WORKER_SECONDS)
    finally:
        for proc in (first, second, third):
            if proc is not None:
                kill_group(proc)
    assert n == 4
    check_standings(client, integrator, tid, "dalmuti", options)
    # every game created for this tournament is one table's game: none was created twice
    made = {k.decode(): v.decode() for k, v in redis_client.hgetall(GAMES).items() if v.decode().startswith(tid)}
    assert len(made) == 6 and sorted(v.split()[1:] for v in made.values()) == sorted(
        [str(r), str(i)] for r in (1, 2, 3) for i in (0, 1)
    )
    listed = client.get("/games?limit=500", headers=integrator).get_json()["games"]
    ours = [g for g in listed if set(g["players"]) <= set(players)]
    assert len(ours) == 6 and {g["id"] for g in ours} == set(made)
    print(f"round 2 at the kill: {sum(1 for tb in at_kill['tables'] if tb['game_id'])} of 2 games started")


def commitments(client, integrator, gid: str) -> list[str]:
    events = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["events"]
    return [e["data"]["commitment"] for e in events if "commitment" in e["data"] and e["type"] != tables.DEAL_REVEALED]


def test_duplicate_tables_of_a_round_get_identical_deals(worker, client, integrator):
    players = [f"dup{i}" for i in range(8)]
    options = {"hands": 2}
    t = create_tournament(
        client,
        integrator,
        game="dalmuti",
        options=options,
        players=players,
        format="duplicate",
        rounds=2,
        table_size={"min": 4, "max": 4},
    )
    assert t["rounds"] == 2 and t["tie_breaks"][0] == "par"
    rounds = play_tournament(client, integrator, t["id"], set(players), random.Random(5))
    per_round = []
    for rd in rounds:
        deals = [commitments(client, integrator, tb["game_id"]) for tb in rd["tables"]]
        assert len(deals) == 2 and len(deals[0]) == 2  # two tables, two hands each
        assert deals[0] == deals[1], "the tables of one round were dealt different cards"
        per_round.append(deals[0])
    assert per_round[0] != per_round[1]  # another round, other deals
    seats = {}
    for rd in rounds:
        for tb in rd["tables"]:
            for s in tb["seats"]:
                seats.setdefault(s["player"], []).append(s["seat"])
    assert all(len(set(v)) == 2 for v in seats.values()), "every player takes another seat in round 2"
    standings = check_standings(client, integrator, t["id"], "dalmuti", options)
    assert abs(sum(row["par"] for row in standings["standings"])) < 1e-6


class Receiver:
    """A local HTTP receiver: records every POST; the first ``fail_first[path]`` deliveries of each event to a
    path get 500 (counted per event id, so an event of another tournament heard on the same path cannot use up
    the failures meant for the one under test)."""

    def __init__(self, fail_first: dict[str, int]):
        self.requests: list[dict] = []
        self.fail_first = dict(fail_first)
        self.failures: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with outer.lock:
                    outer.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body, "at": time.time()}
                    )
                    event = (self.path, json.loads(body).get("id"))
                    left = outer.failures.get(event, outer.fail_first.get(self.path, 0))
                    outer.failures[event] = left - 1
                self.send_response(500 if left > 0 else 204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def at(self, path: str) -> list[dict]:
        with self.lock:
            return [r for r in self.requests if r["path"] == path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def conforms_to_the_callback(request: dict) -> None:
    """A delivery is what the contract's callback of POST /webhooks says a URL is sent: every header it
    names, and a body of the shape its `type` names."""
    callback = SPEC["paths"]["/webhooks"]["post"]["callbacks"]["event"]["{$request.body#/url}"]["post"]
    missing = [p["name"] for p in callback["parameters"] if p["in"] == "header" and p["name"] not in request["headers"]]
    assert not missing, f"a delivery without the headers {missing}"
    schema = contract_schema(callback["requestBody"]["content"]["application/json"]["schema"])
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(json.loads(request["body"]))
    )
    assert error is None, f"a delivery unlike the contract: {error.message} at {list(error.absolute_path)}"


@pytest.fixture()
def receiver():
    r = Receiver({"/flaky": 2})
    yield r
    r.close()
    for request in r.requests:  # whatever a test looked at, every delivery it heard is as the contract says
        conforms_to_the_callback(request)


def test_webhooks_are_signed_and_retried_with_backoff(worker, client, integrator, receiver):
    good = client.post("/webhooks", json={"url": receiver.url + "/ok"}, headers=integrator).get_json()
    flaky = client.post(
        "/webhooks", json={"url": receiver.url + "/flaky", "events": ["round.paired"]}, headers=integrator
    ).get_json()
    assert good["secret"].startswith("whsec_") and set(good["events"]) == set(wh.EVENTS)
    listed = client.get("/webhooks", headers=integrator).get_json()
    assert {h["id"] for h in listed} >= {good["id"], flaky["id"]} and "secret" not in json.dumps(listed)
    players = ["w1", "w2", "w3", "w4"]
    t = create_tournament(
        client,
        integrator,
        game="dalmuti",
        options={"hands": 1},
        players=players,
        format="swiss",
        rounds=1,
        table_size={"min": 4, "max": 4},
    )
    play_tournament(client, integrator, t["id"], set(players), random.Random(2))
    gid = t["round_detail"]["tables"][0]["game_id"]
    wanted = {f"round.paired:{t['id']}:1", f"game.finished:{gid}", f"tournament.finished:{t['id']}"}

    def arrived():
        seen = {json.loads(r["body"])["id"] for r in receiver.at("/ok")}
        return wanted <= seen

    assert wait_for(arrived, 20), [r["body"] for r in receiver.requests]
    for req in receiver.at("/ok"):
        body, header = req["body"], req["headers"]["Naipes-Signature"]
        stamp = int(header.split(",")[0][2:])
        mac = hmac.new(good["secret"].encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
        assert header == f"t={stamp},v1={mac}" and abs(time.time() - stamp) < 60
        assert wh.verify(good["secret"], body, header)
        assert not wh.verify(good["secret"], body + b" ", header)
        assert not wh.verify(flaky["secret"], body, header)
        assert req["headers"]["Naipes-Event"] == json.loads(body)["type"]
    ours = [json.loads(r["body"]) for r in receiver.at("/ok") if json.loads(r["body"])["id"] in wanted]
    assert len(ours) == 3  # each event once
    finished = next(b for b in ours if b["type"] == "tournament.finished")
    assert [row["player"] for row in finished["data"]["standings"]] == [
        row["player"] for row in client.get(f"/tournaments/{t['id']}/standings").get_json()["standings"]
    ]

    # the failing receiver: 500, 500, then 2xx; the retries wait 1 s then 2 s (RQ schedules in whole
    # seconds, so each wait may end up to a second early)
    # this tournament's pairing only: a tournament left running by an earlier test of this process may
    # be paired by the same worker, and the webhook hears every tournament of its key
    def flaky_tries():
        return [r for r in receiver.at("/flaky") if json.loads(r["body"])["id"] == f"round.paired:{t['id']}:1"]

    assert wait_for(lambda: len(flaky_tries()) >= 3, 20)
    tries = flaky_tries()
    assert len({r["headers"]["Naipes-Delivery"] for r in tries}) == 1
    first_wait, second_wait = tries[1]["at"] - tries[0]["at"], tries[2]["at"] - tries[1]["at"]
    # (the upper bounds leave room for a loaded machine: the scheduler polls, the worker may be busy)
    assert 0 < first_wait <= 12 and 1.0 <= second_wait <= 12, (first_wait, second_wait)
    log = [
        d
        for d in client.get(f"/webhooks/{flaky['id']}/deliveries", headers=integrator).get_json()["deliveries"]
        if d["event_id"] == f"round.paired:{t['id']}:1"
    ]
    assert [(d["attempt"], d["status"], d["ok"], d["next_retry_seconds"]) for d in reversed(log)] == [
        (1, 500, False, 1),
        (2, 500, False, 2),
        (3, 204, True, None),
    ]
    time.sleep(1.0)
    assert len(flaky_tries()) == 3  # delivered: no more attempts
    assert client.delete(f"/webhooks/{flaky['id']}", headers=integrator).status_code == 204
    gone = client.get(f"/webhooks/{flaky['id']}/deliveries", headers=integrator)
    assert gone.status_code == 404 and gone.mimetype == "application/problem+json"
    client.delete(f"/webhooks/{good['id']}", headers=integrator)


def test_an_adjudication_after_the_end_corrects_the_standings(worker, client, integrator, receiver):
    # issue "Dispute review": a reviewer may correct a finished game's score; the tournament that recorded
    # the game records the corrected result (TableResultCorrected) and its standings follow
    hook = client.post(
        "/webhooks", json={"url": receiver.url + "/corrections", "events": ["result.corrected"]}, headers=integrator
    ).get_json()
    players = ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]
    options = {"hands": 1}
    t = create_tournament(
        client,
        integrator,
        game="dalmuti",
        options=options,
        players=players,
        format="swiss",
        rounds=1,
        table_size={"min": 4, "max": 4},
    )
    tid = t["id"]
    play_tournament(client, integrator, tid, set(players), random.Random(11))
    before = {r["player"]: r["points"] for r in client.get(f"/tournaments/{tid}/standings").get_json()["standings"]}
    table = client.get(f"/tournaments/{tid}/rounds/1").get_json()["tables"][1]
    gid, lucky = table["game_id"], table["seats"][2]["player"]
    note = client.post(f"/games/{gid}/notes", json={"text": "looked at it"}, headers=integrator)
    assert note.status_code == 201  # a note changes no outcome: nothing to correct
    fix = client.post(
        f"/games/{gid}/adjudications",
        json={"action": "correct_score", "reason": "a trick was miscounted", "deltas": [0, 0, 7, 0]},
        headers=integrator,
    )
    assert fix.status_code == 201, fix.get_json()

    def corrected():
        rows = client.get(f"/tournaments/{tid}/standings").get_json()["standings"]
        return (
            {r["player"]: r["points"] for r in rows}
            if any(r["player"] == lucky and r["points"] == before[lucky] + 7 for r in rows)
            else None
        )

    after = wait_for(corrected, 20)
    assert after, "the standings did not follow the adjudication"
    assert after == {p: v + (7 if p == lucky else 0) for p, v in before.items()}
    result = client.get(f"/tournaments/{tid}/rounds/1").get_json()["tables"][1]["result"]
    assert result["corrections"] == 1 and result["scores"] == client.get(f"/games/{gid}").get_json()["result"]["scores"]
    log = client.get(f"/tournaments/{tid}/events", headers=integrator).get_json()
    fixes = [e for e in log["events"] if e["type"] == T.TABLE_RESULT_CORRECTED]
    assert len(fixes) == 1 and fixes[0]["data"]["game_id"] == gid and log["chain"]["ok"]
    assert fixes[0]["data"]["previous_points"][2] + 7 == fixes[0]["data"]["points"][2]
    assert {r["player"]: r["points"] for r in T.standings(T.fold(log["events"]))} == after  # the log refolds to it

    def heard():
        return [r for r in receiver.at("/corrections") if json.loads(r["body"])["data"]["tournament"] == tid]

    assert wait_for(heard, 20), "no result.corrected webhook"
    req = heard()[0]
    body = json.loads(req["body"])
    assert body["type"] == "result.corrected" and body["data"]["game_id"] == gid
    assert {r["player"]: r["points"] for r in body["data"]["standings"]} == after
    assert wh.verify(hook["secret"], req["body"], req["headers"]["Naipes-Signature"])
    client.delete(f"/webhooks/{hook['id']}", headers=integrator)


def _key(client, integrator, *scopes: str) -> dict:
    r = client.post("/keys", json={"name": "-".join(scopes), "scopes": list(scopes)}, headers=integrator)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _hook(client, key: dict, url: str, events: list[str]) -> dict:
    r = client.post("/webhooks", json={"url": url, "events": events}, headers=bearer(key["key"]))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _duplicate_round(client, owner: dict, name: str) -> dict:
    """A duplicate Dalmuti tournament of one round: two tables of four (players ``<name>0`` to
    ``<name>7``), one hand each, dealt the same cards."""
    return create_tournament(
        client,
        owner,
        game="dalmuti",
        options={"hands": 1},
        players=[f"{name}{i}" for i in range(8)],
        format="duplicate",
        rounds=1,
        table_size={"min": 4, "max": 4},
    )


def _told(receiver, path: str, event_id: str) -> list[dict]:
    return [json.loads(r["body"]) for r in receiver.at(path) if json.loads(r["body"])["id"] == event_id]


def test_game_finished_webhooks_keep_the_duplicate_embargo(worker, client, integrator, receiver):
    """A table of a duplicate round that has played its deal out is embargoed for every key but the
    tournament's owner and keys of full sight: such a key's GET /games/{id} shows the game before
    its deal, /rounds/1 no result.  Its webhooks must not be told more: game.finished (with the
    result) reaches the owner's and a reviewer's at once, another key's (games and tournaments
    scopes, nothing of its own in the tournament) once the embargo lifts, when the round's other
    table has played the deal out, and then with the result it may now read."""
    owner, outsider = _key(client, integrator, "tournaments"), _key(client, integrator, "games", "tournaments")
    reviewer = _key(client, integrator, "games", "tournaments", "review")
    hooks = [
        _hook(client, key, f"{receiver.url}/{name}", list(wh.EVENTS))
        for name, key in (("owner", owner), ("outsider", outsider), ("reviewer", reviewer))
    ]
    try:
        t = _duplicate_round(client, bearer(owner["key"]), "emb")
        a, b = (tb["game_id"] for tb in t["round_detail"]["tables"])
        seats = {tb["game_id"]: tb["seats"] for tb in t["round_detail"]["tables"]}
        play_http(client, {"id": a, "seats": seats[a]}, random.Random(31))
        as_outsider = bearer(outsider["key"])
        held = client.get(f"/games/{a}", headers=as_outsider).get_json()
        assert held["embargo"] is not None and not held["finished"]  # the outsider may not see the end yet
        assert (
            client.get(f"/tournaments/{t['id']}/rounds/1", headers=as_outsider).get_json()["tables"][0]["result"]
            is None
        )
        whole = client.get(f"/games/{a}", headers=bearer(owner["key"])).get_json()
        assert whole["finished"] and whole["embargo"] is None

        for name in ("owner", "reviewer"):  # full sight: told at once, with the result
            told = wait_for(lambda n=name: _told(receiver, f"/{n}", f"game.finished:{a}"), 20)
            assert told, f"the {name}'s webhook was not told that table A finished"
            assert told[0]["data"]["result"]["scores"] == whole["result"]["scores"]
            assert told[0]["data"]["tournament"] == {"id": t["id"], "round": 1, "table": 0}
        time.sleep(1.5)  # the outsider's delivery, had there been one, was queued with theirs
        assert _told(receiver, "/outsider", f"game.finished:{a}") == []
        leaked = [r["body"] for r in receiver.at("/outsider") if a.encode() in r["body"]]
        assert leaked == [], "an outsider's webhook was told of the embargoed table"
        assert client.get(f"/games/{a}", headers=as_outsider).get_json()["embargo"] is not None  # still held

        play_http(client, {"id": b, "seats": seats[b]}, random.Random(32))  # the deal played out everywhere
        for gid in (a, b):
            told = wait_for(lambda g=gid: _told(receiver, "/outsider", f"game.finished:{g}"), 20)
            assert told, f"the outsider's webhook was not told of {gid} once the embargo lifted"
            view = client.get(f"/games/{gid}", headers=as_outsider).get_json()
            assert view["finished"] and view["embargo"] is None
            assert told[0]["data"]["result"]["scores"] == view["result"]["scores"]
        time.sleep(1.0)
        for name in ("owner", "outsider", "reviewer"):  # every webhook told of each table once
            assert [len(_told(receiver, f"/{name}", f"game.finished:{g}")) for g in (a, b)] == [1, 1], name
        # the tournament's own events stay the owner's
        assert _told(receiver, "/outsider", f"round.paired:{t['id']}:1") == []
        assert _told(receiver, "/owner", f"round.paired:{t['id']}:1")
    finally:
        for hook, key in zip(hooks, (owner, outsider, reviewer)):
            client.delete(f"/webhooks/{hook['id']}", headers=bearer(key["key"]))


def test_game_finished_reaches_an_outsider_when_the_embargo_lifts_with_no_table_ending(
    worker, client, integrator, service, receiver
):
    """Table B of a two-hand duplicate round is voided during the first hand: its end is held from an
    outsider (a key of the games scope, nothing of its own in the tournament) while table A plays that
    hand.  When A has played the hand out and goes on to the second, B's end is public, though no
    table ended then: the outsider's webhook is told of B then, once, with the result it may now read
    (it waited for A's game to end before)."""
    owner, outsider = _key(client, integrator, "tournaments"), _key(client, integrator, "games", "tournaments")
    reviewer = bearer(_key(client, integrator, "review")["key"])
    hook = _hook(client, outsider, f"{receiver.url}/lifted", ["game.finished"])
    try:
        t = duplicate_tournament(client, bearer(owner["key"]))
        a, b = t["round_detail"]["tables"]
        void_during_first_hand(client, b, reviewer)
        time.sleep(1.5)  # a delivery to the outsider, had there been one, was queued by now
        assert _told(receiver, "/lifted", f"game.finished:{b['game_id']}") == []
        play_until_deals_done(client, service, a, 1, random.Random(64))
        assert not tables.outcome(service.tables.table(a["game_id"], fresh=True))  # A plays on
        told = wait_for(lambda: _told(receiver, "/lifted", f"game.finished:{b['game_id']}"), 20)
        assert told, "the outsider's webhook was not told of table B once the embargo lifted"
        view = client.get(f"/games/{b['game_id']}", headers=bearer(outsider["key"])).get_json()
        result = told[0]["data"]["result"]
        assert view["finished"] and result == {k: v for k, v in view["result"].items() if k in result}
        assert result.get("void") is True and result["scores"] == view["result"]["scores"], result
        client.get("/games", query_string={"limit": 500}, headers=bearer(outsider["key"]))  # a read repairs nothing
        time.sleep(1.0)
        assert len(_told(receiver, "/lifted", f"game.finished:{b['game_id']}")) == 1
        assert _told(receiver, "/lifted", f"game.finished:{a['game_id']}") == []  # A has not finished
    finally:
        client.delete(f"/webhooks/{hook['id']}", headers=bearer(outsider["key"]))


def test_a_game_finished_fan_out_costs_the_same_whatever_the_keys(client, integrator, service, receiver):
    """The visibility decision of a game.finished is made once per game (its table, context and the
    round's deal counts read once, the keys' records in one read), then for each key in memory: ten
    more keys with webhooks, embargoed, cost the service no Redis command more."""
    from service.core.tournaments import attach_tournaments

    owner = _key(client, integrator, "tournaments")
    keys = [_key(client, integrator, "games", "tournaments")]
    hooks = [(_hook(client, keys[0], f"{receiver.url}/many", ["game.finished"]), keys[0])]
    try:
        t = _duplicate_round(client, bearer(owner["key"]), "fan")
        a = t["round_detail"]["tables"][0]
        play_http(client, {"id": a["game_id"], "seats": a["seats"]}, random.Random(51))
        tournaments = attach_tournaments(service)
        table = service.tables.table(a["game_id"], fresh=True)

        def commands() -> int:
            """The Redis commands one game's end costs, counted by the server (no worker runs here)."""
            service.keys._by_id.clear()  # the keys' records read as after their cache expired
            before = service.redis.info("stats")["total_commands_processed"]
            tournaments.on_game_finished(a["game_id"], table)
            return service.redis.info("stats")["total_commands_processed"] - before

        commands()  # the first told the owner and filled the caches
        few = min(commands() for _ in range(3))  # (the least of three: a command of another thread adds)
        for _ in range(10):
            key = _key(client, integrator, "games", "tournaments")
            hooks.append((_hook(client, key, f"{receiver.url}/many", ["game.finished"]), key))
        assert min(commands() for _ in range(3)) == few
    finally:
        for hook, key in hooks:
            client.delete(f"/webhooks/{hook['id']}", headers=bearer(key["key"]))


def test_a_revoked_keys_webhooks_are_told_nothing(worker, client, integrator, receiver, service):
    """A revoked key may read nothing: its webhooks are not handed an event, nor an attempt of one
    handed over before the revocation made."""
    from service.core.tournaments import attach_tournaments

    from .helpers import create

    live, revoked = _key(client, integrator, "games", "tournaments"), _key(client, integrator, "games", "tournaments")
    hooks = [
        _hook(client, live, f"{receiver.url}/live", ["game.finished"]),
        _hook(client, revoked, f"{receiver.url}/revoked", ["game.finished"]),
    ]
    try:
        assert client.delete(f"/keys/{revoked['id']}", headers=integrator).status_code in (200, 204)
        game = create(client, integrator, players=["rv1", "rv2", "rv3", "rv4"], options={"hands": 1})
        play_http(client, game, random.Random(41))
        assert wait_for(lambda: _told(receiver, "/live", f"game.finished:{game['id']}"), 20)
        time.sleep(1.0)
        assert receiver.at("/revoked") == []

        # handed over while the key was live, attempted after its revocation: not sent, not retried
        body = _finished_body("g-late")
        entry = attach_tournaments(service).webhooks.deliver(hooks[1]["id"], "whd_revoked_test", "game.finished", body)
        assert not entry["ok"] and "revoked" in entry["error"] and entry["next_retry_seconds"] is None
        assert receiver.at("/revoked") == []
    finally:
        client.delete(f"/webhooks/{hooks[0]['id']}", headers=bearer(live["key"]))
        service.redis.hdel(wh.HOOKS, hooks[1]["id"])  # its key can no longer delete it


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://api.localhost/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.7/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:8080/hook",
        "http://0.0.0.0/hook",
        "https://100.64.0.1/hook",
    ],
)
def test_webhooks_to_private_addresses_are_refused_by_default(redis_client, monkeypatch, url):
    # a webhook must not turn naipes' workers into a client of the network they run in
    monkeypatch.setenv(wh.PRIVATE_SETTING, "deny")
    app = create_app(Naipes(redis_client, api_keys=[API_KEY]), rate_limit="off")
    r = app.test_client().post("/webhooks", json={"url": url}, headers={"Authorization": f"Bearer {API_KEY}"})
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    problem = r.get_json()
    assert problem["type"] == "urn:naipes:problem:private-address" and wh.PRIVATE_SETTING in problem["detail"]
    public = app.test_client().post(
        "/webhooks", json={"url": "https://93.184.215.14/hook"}, headers={"Authorization": f"Bearer {API_KEY}"}
    )
    assert public.status_code == 201  # a public address is taken
    app.test_client().delete(f"/webhooks/{public.get_json()['id']}", headers={"Authorization": f"Bearer {API_KEY}"})


def _finished_body(game_id: str) -> str:
    """A game.finished delivery's body, as the contract shapes it."""
    result = {"scores": [3, 1], "ranking": [0, 1], "ranks": [1, 2], "winners": [0]}
    data = {"game_id": game_id, "game": "dalmuti", "result": result, "players": ["ana", "bea"]}
    return json.dumps(
        {"id": f"game.finished:{game_id}", "type": "game.finished", "created_at": "2026-11-28T12:00:00Z", "data": data}
    )


def test_a_host_name_resolving_to_a_private_address_is_not_called(redis_client, receiver):
    # registration cannot know where a name will resolve; each delivery resolves it and refuses, without retry
    assert wh.refused_destination("http://[::ffff:127.0.0.1]:80/x")  # an IPv4 loopback written as IPv6
    assert wh.refused_destination("https://93.184.215.14/x") is None
    viewer = Viewer("integrator", key_id="k-private-test", scopes=frozenset({"tournaments"}))
    stored = wh.Webhooks(redis_client, allow_private=True).register(
        viewer, receiver.url.replace("127.0.0.1", "localhost") + "/inside", ["game.finished"]
    )
    strict = wh.Webhooks(redis_client, allow_private=False)
    entry = strict.deliver(
        stored["id"],
        "whd_private_test",
        "game.finished",
        _finished_body("g-x"),
    )
    assert not entry["ok"] and entry["error"].startswith("refused: localhost resolves to the non-public address")
    assert entry["next_retry_seconds"] is None and receiver.at("/inside") == []
    allowed = wh.Webhooks(redis_client, allow_private=True).deliver(
        stored["id"],
        "whd_private_test2",
        "game.finished",
        _finished_body("g-y"),
    )
    assert allowed["ok"] and len(receiver.at("/inside")) == 1  # the same URL, private addresses allowed
    redis_client.hdel(wh.HOOKS, stored["id"])


def test_withdrawn_players_are_not_paired_again(client, integrator, service):
    players = [f"wd{i}" for i in range(8)]
    t = create_tournament(
        client,
        integrator,
        game="dalmuti",
        options={"hands": 1},
        players=players,
        format="swiss",
        rounds=2,
        table_size={"min": 4, "max": 4},
    )
    tid = t["id"]
    r = client.post(f"/tournaments/{tid}/withdraw", json={"player": "wd3"}, headers=integrator)
    assert r.status_code == 200 and r.get_json()["round"] == 1
    again = client.post(f"/tournaments/{tid}/withdraw", json={"player": "wd3"}, headers=integrator)
    assert again.status_code == 409 and again.mimetype == "application/problem+json"
    rng = random.Random(4)
    play_round(client, t["round_detail"], rng)
    # no worker here: the advance runs in this process, as the worker's job would
    from service.core.tournaments import attach_tournaments

    done = attach_tournaments(service).advance(tid)
    assert done["paired"] == [2] and len(done["recorded"]) == 2
    rd = client.get(f"/tournaments/{tid}/rounds/2", headers=integrator).get_json()
    seated = {s["player"] for tb in rd["tables"] for s in tb["seats"]}
    assert "wd3" not in seated and "wd3" not in rd["byes"] and len(seated) == 4 and len(rd["byes"]) == 3
    assert attach_tournaments(service).advance(tid) == {
        "paired": [],
        "started": [],
        "recorded": [],
        "corrected": [],
        "finished": False,
    }  # nothing left to do: nothing done
    row = next(r for r in client.get(f"/tournaments/{tid}/standings").get_json()["standings"] if r["player"] == "wd3")
    assert row["withdrawn"] and row["games"] == 1


@pytest.mark.parametrize(
    "body, status, kind",
    [
        (
            {"game": "dalmuti", "players": ["a", "b", "c", "d"], "format": "knockout", "table_size": {"min": 4}},
            422,
            "invalid-request",
        ),
        (
            {"game": "nope", "players": ["a", "b", "c", "d"], "format": "swiss", "table_size": {"min": 4}},
            422,
            "unknown-game",
        ),
        (
            {"game": "dalmuti", "players": ["a", "b", "c"], "format": "swiss", "table_size": {"min": 3}},
            422,
            "table-size",
        ),
        (
            {"game": "dalmuti", "players": ["a", "a", "c", "d"], "format": "swiss", "table_size": {"min": 4}},
            422,
            "duplicate-player",
        ),
        (
            {"game": "dalmuti", "players": ["a", "b", "c", "d"], "format": "swiss", "table_size": {"min": 4, "max": 2}},
            422,
            "table-size",
        ),
        (
            {
                "game": "dalmuti",
                "players": ["a", "b", "c", "d"],
                "format": "swiss",
                "table_size": {"min": 4},
                "options": {"hands": "x"},
            },
            422,
            "invalid-options",
        ),
        (
            {"game": "muerte", "players": list("abcdefg"), "format": "swiss", "table_size": {"min": 7}},
            422,
            "table-size",
        ),
        ({"game": "dalmuti", "players": ["a", "b"], "format": "swiss"}, 422, "invalid-request"),
    ],
)
def test_bad_tournaments_are_4xx_problems(client, integrator, body, status, kind):
    r = client.post("/tournaments", json=body, headers=integrator)
    assert r.status_code == status and r.mimetype == "application/problem+json", r.get_json()
    assert r.get_json()["type"] == f"urn:naipes:problem:{kind}", r.get_json()


def test_access_and_missing_things(client, integrator, service):
    body = {"game": "dalmuti", "players": list("abcd"), "format": "swiss", "table_size": {"min": 4}}
    assert client.post("/tournaments", json=body).status_code == 401
    other = service.keys.create("reader", ["games"])["key"]
    assert client.post("/tournaments", json=body, headers=bearer(other)).status_code == 403
    t = create_tournament(client, integrator, **body)
    third = service.keys.create("other organiser", ["tournaments"])["key"]
    r = client.post(f"/tournaments/{t['id']}/withdraw", json={"player": "a"}, headers=bearer(third))
    assert r.status_code == 403
    hidden = client.get(f"/tournaments/{t['id']}/rounds/1", headers=bearer(third)).get_json()
    assert not hidden["tokens_included"] and "st_" not in json.dumps(hidden["tables"])
    shown = client.get(f"/tournaments/{t['id']}/rounds/1", headers=integrator).get_json()
    assert shown["tokens_included"]
    public_log = client.get(f"/tournaments/{t['id']}/events").get_json()["events"]
    assert all("private" not in e for e in public_log) and public_log[0]["type"] == T.TOURNAMENT_CREATED
    own_log = client.get(f"/tournaments/{t['id']}/events", headers=integrator).get_json()["events"]
    assert "seed" in own_log[0]["private"]["setup"]
    r = client.post(f"/tournaments/{t['id']}/withdraw", json={"player": "zed"}, headers=integrator)
    assert r.status_code == 422 and r.get_json()["type"].endswith("unknown-player")
    for path in (
        "/tournaments/t-0000",
        "/tournaments/nope/standings",
        f"/tournaments/{t['id']}/rounds/9",
        "/tournaments/t-1/events",
    ):
        r = client.get(path)
        assert r.status_code == 404 and r.mimetype == "application/problem+json", path
    assert client.get("/tournaments", headers=integrator).get_json()["total"] >= 1
    r = client.post("/webhooks", json={"url": "ftp://example.org/x"}, headers=integrator)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    r = client.post("/webhooks", json={"url": "https://example.org/x", "events": ["game.started"]}, headers=integrator)
    assert r.status_code == 422
    assert client.delete("/webhooks/wh_nope", headers=integrator).status_code == 404
    mine = client.post("/webhooks", json={"url": "https://example.org/x"}, headers=integrator).get_json()
    assert client.get(f"/webhooks/{mine['id']}/deliveries", headers=bearer(third)).status_code == 404
    assert client.delete(f"/webhooks/{mine['id']}", headers=integrator).status_code == 204


def test_a_game_created_again_under_its_reserved_id_is_the_same_game_with_new_tokens(client, integrator, service):
    # a tournament worker killed between creating a table's game and recording it: the next one creates the
    # game under the id it reserved, and gets that same game back with fresh seat tokens, never a second game
    # (a fresh id: the tests' Redis keeps every test's games, and other tests need 0123456789abcdef missing)
    reserved = secrets.token_hex(8)
    first = service.games.create_game("dalmuti", ["r1", "r2", "r3", "r4"], {"hands": 1}, game_id=reserved)
    again = service.games.create_game("dalmuti", ["r1", "r2", "r3", "r4"], {"hands": 1}, game_id=reserved)
    assert again["id"] == first["id"] and again["version"] == first["version"]
    assert [s["player"] for s in again["seats"]] == ["r1", "r2", "r3", "r4"]
    old, new = first["seats"][0]["token"], again["seats"][0]["token"]
    assert old != new
    assert client.get(f"/games/{first['id']}/legal-moves", headers=bearer(new)).status_code == 200
    assert client.get(f"/games/{first['id']}/legal-moves", headers=bearer(old)).status_code in (401, 403)
    listed = client.get("/games?limit=500", headers=integrator).get_json()["games"]
    assert [g["id"] for g in listed].count(first["id"]) == 1


def test_the_listing_does_not_tell_that_an_embargoed_table_finished(client, integrator):
    """GET /games lists a duplicate table as its view shows it: while the round's embargo holds, a table
    that has played its deal out is listed (and filtered) as still in play, for anyone but the
    tournament's owner and keys of full sight; once the round's other table has played the deal out,
    it is listed finished for everyone."""
    owner, outsider = _key(client, integrator, "games", "tournaments"), _key(client, integrator, "games")
    reviewer = _key(client, integrator, "games", "review")
    t = _duplicate_round(client, bearer(owner["key"]), "lst")
    a, b = (tb["game_id"] for tb in t["round_detail"]["tables"])
    seats = {tb["game_id"]: tb["seats"] for tb in t["round_detail"]["tables"]}

    def status(game_id: str, headers: dict, filtered: str | None = None) -> str | None:
        query = {"limit": 500, **({"status": filtered} if filtered else {})}
        rows = client.get("/games", query_string=query, headers=headers).get_json()["games"]
        return next((row["status"] for row in rows if row["id"] == game_id), None)

    play_http(client, {"id": a, "seats": seats[a]}, random.Random(41))
    assert client.get(f"/games/{a}", headers=bearer(outsider["key"])).get_json()["finished"] is False
    for headers in (bearer(outsider["key"]),):  # a key of no full sight (listing takes a key)
        assert status(a, headers) == "active"
        assert status(a, headers, "finished") is None
        assert status(a, headers, "active") == "active"
    for full in (owner, reviewer):  # the owner and a key of full sight see the end
        assert status(a, bearer(full["key"])) == "finished"
        # and find the table among the finished games, not among those in play, counted where it is listed
        assert status(a, bearer(full["key"]), "finished") == "finished"
        assert status(a, bearer(full["key"]), "active") is None
        game_type = client.get(f"/games/{a}", headers=bearer(full["key"])).get_json()["game"]
        query = {"limit": 500, "status": "finished", "game": game_type}
        rows = client.get("/games", query_string=query, headers=bearer(full["key"])).get_json()["games"]
        assert a in [row["id"] for row in rows]

    def totals() -> dict:
        return {
            (who, filtered): client.get(
                "/games", query_string={"status": filtered, "limit": 1}, headers=headers
            ).get_json()["total"]
            for who, headers in (("outsider", bearer(outsider["key"])), ("owner", bearer(owner["key"])))
            for filtered in ("active", "finished")
        }

    # the owner counts the held table as finished, the outsider as in play: no total tells the outsider more
    # (the tests' store is shared: the totals are compared once two readings agree)
    counted = next(t for t, again in ((totals(), totals()) for _ in range(5)) if t == again)
    assert counted["owner", "finished"] == counted["outsider", "finished"] + 1
    assert counted["owner", "active"] == counted["outsider", "active"] - 1
    play_http(client, {"id": b, "seats": seats[b]}, random.Random(42))
    for game in (a, b):
        for headers in (bearer(outsider["key"]), bearer(owner["key"]), bearer(reviewer["key"])):
            assert status(game, headers) == "finished", (game, headers)
            assert status(game, headers, "finished") == "finished"
            assert status(game, headers, "active") is None


def _first_pages(client, headers: dict, query: dict, limit: int, pages: int) -> tuple[list[str], list[str], int]:
    """The ids of a listing's first pages walked by cursor, the same walked by offset, and its total."""
    by_cursor, by_offset, cursor, total = [], [], None, None
    for n in range(pages):
        body = client.get(
            "/games", query_string={**query, "limit": limit, **({"cursor": cursor} if cursor else {})}, headers=headers
        ).get_json()
        by_cursor += [row["id"] for row in body["games"]]
        cursor, total = body["next_cursor"], body["total"]
        body = client.get("/games", query_string={**query, "limit": limit, "offset": n * limit}, headers=headers)
        by_offset += [row["id"] for row in body.get_json()["games"]]
        if cursor is None:
            break
    return by_cursor, by_offset, total


def test_held_tables_page_alike_by_offset_and_by_cursor_for_every_caller(client, integrator):
    """Two rounds' held tables among games in play: for the owner (who finds them among the finished
    games and passes over them among those in play) and for a key of no full sight (who sees them in
    play), pages by offset are the same slices as pages by cursor, whichever status is asked."""
    owner, outsider = _key(client, integrator, "games", "tournaments"), _key(client, integrator, "games")
    for n in range(3):  # older games in play, listed after the held tables
        create(client, bearer(owner["key"]), players=[f"x{n}{i}" for i in range(4)])
    held = []
    for n in range(2):
        t = _duplicate_round(client, bearer(owner["key"]), f"pg{n}x")
        a, _b = (tb["game_id"] for tb in t["round_detail"]["tables"])
        seats = {tb["game_id"]: tb["seats"] for tb in t["round_detail"]["tables"]}
        play_http(client, {"id": a, "seats": seats[a]}, random.Random(40 + n))
        held.append(a)
        create(client, bearer(owner["key"]), players=[f"o{n}{i}" for i in range(4)])  # a game in play between
    for who, headers in (("owner", bearer(owner["key"])), ("outsider", bearer(outsider["key"]))):
        for status in ("active", "finished"):
            by_cursor, by_offset, _total = _first_pages(client, headers, {"status": status, "game": "dalmuti"}, 2, 6)
            assert by_offset == by_cursor, (who, status)
            found = set(held) & set(by_cursor)
            assert found == (set(held) if (who, status) in {("owner", "finished"), ("outsider", "active")} else set())


def test_a_table_left_in_a_held_set_by_a_race_with_its_lift_is_repaired_by_a_read(client, integrator, service):
    """Two listings of one table at one version can race at its lift (its own end's, with the round's
    counts read just before the peer's end; the peer's end's, which lists it finished): the later
    summary wins, but the other's writes to the sets may land last. Here the held writes land after
    the lift's: a read of its owner's listing takes the table out of the held sets, and lists it once."""
    from service.core.listing import INDEX, Listing

    owner = _key(client, integrator, "games", "tournaments")
    t = _duplicate_round(client, bearer(owner["key"]), "rcx")
    a, b = (tb["game_id"] for tb in t["round_detail"]["tables"])
    seats = {tb["game_id"]: tb["seats"] for tb in t["round_detail"]["tables"]}
    play_http(client, {"id": a, "seats": seats[a]}, random.Random(41))
    play_http(client, {"id": b, "seats": seats[b]}, random.Random(42))  # the embargo lifts
    owners = sorted({service.visibility.context(a).owner, service.visibility.context(a).tournament_owner} - {None})
    assert owner["id"] in owners
    pipe = service.redis.pipeline(transaction=False)  # the losing listing's writes, landing last
    held_info = {"id": a, "game": "dalmuti", "status": "active", "held": True, "held_by": owners}
    service.listing._place(pipe, a, held_info, service.redis.zscore(INDEX, a), "finished", owners)
    pipe.execute()
    sets = Listing.held_keys("dalmuti", [owner["id"]])
    assert all(service.redis.zscore(k, a) is not None for k in sets)
    for status in ("finished", "active"):
        client.get(
            "/games", query_string={"status": status, "game": "dalmuti", "limit": 20}, headers=bearer(owner["key"])
        )
    assert all(service.redis.zscore(k, a) is None for k in sets), "left in a held set"
    rows = client.get(
        "/games", query_string={"status": "finished", "game": "dalmuti", "limit": 20}, headers=bearer(owner["key"])
    ).get_json()["games"]
    assert [row["id"] for row in rows].count(a) == 1


def _dalmuti_swiss(client, integrator, name: str, players: int, rounds: int) -> dict:
    """A Swiss Dalmuti tournament of one hand a game at tables of four (players ``<name>0``...)."""
    return create_tournament(
        client,
        integrator,
        game="dalmuti",
        options={"hands": 1},
        players=[f"{name}{i}" for i in range(players)],
        format="swiss",
        rounds=rounds,
        table_size={"min": 4, "max": 4},
    )


def _commands_naming(redis_client, needle: str, action) -> list[str]:
    """The commands Redis ran that name ``needle`` while ``action`` ran (its MONITOR feed)."""
    marker = f"end-of-action-{secrets.token_hex(4)}"
    seen = []
    with redis_client.monitor() as feed:
        action()
        redis_client.echo(marker)
        for command in feed.listen():
            if marker in command["command"]:
                return seen
            if needle in command["command"]:
                seen.append(command["command"])
    return seen


def test_reading_a_tournament_again_reads_only_its_head_and_what_came_since(client, integrator, redis_client):
    """A tournament's reads fold its log once per process and version: a read at the same version
    costs one look at the head (not the whole log, whatever its length: a long tournament read by
    many is not folded whole for each), and a read after an append reads the events since."""
    tid = _dalmuti_swiss(client, integrator, "rc", 8, 2)["id"]
    first = client.get(f"/tournaments/{tid}").get_json()

    def reads():
        assert client.get(f"/tournaments/{tid}").get_json() == first
        assert client.get(f"/tournaments/{tid}/standings").status_code == 200
        assert client.get(f"/tournaments/{tid}/rounds/1").status_code == 200

    again = _commands_naming(redis_client, f"{{{tid}}}", reads)
    assert again and not [c for c in again if c.upper().startswith(("XRANGE", "XREAD", "EVALSHA"))], again
    version = client.get(f"/tournaments/{tid}/events", headers=integrator).get_json()["version"]
    r = client.post(f"/tournaments/{tid}/withdraw", json={"player": "rc5"}, headers=integrator)
    assert r.status_code == 200, r.get_json()
    seen = {}
    ranges = _commands_naming(
        redis_client, f"{{{tid}}}", lambda: seen.update(client.get(f"/tournaments/{tid}").get_json())
    )
    xranges = [c for c in ranges if c.upper().startswith("XRANGE")]
    assert xranges and all(f"({version}-0" in c or f"{version + 1}-0" in c for c in xranges), xranges
    assert next(p for p in seen["players"] if p["player"] == "rc5")["withdrawn"]
    assert seen == {**first, "players": seen["players"], "version": version + 1, "updated_at": seen["updated_at"]}


def test_the_tournament_reads_bench_builds_a_log_and_prints_its_figures():
    """bench/tournament_reads.py, small: the log it builds is a tournament the service reads whole."""
    out = subprocess.run(
        [sys.executable, "bench/tournament_reads.py", "--players", "12", "--rounds", "3", "--requests", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "dalmuti, 12 players at tables of 4, 3 rounds" in out.stdout
    for route in ("GET /tournaments/{id} ", "GET /tournaments/{id}/standings", "GET /tournaments/{id}/rounds/1"):
        assert route in out.stdout


def test_what_a_tournament_log_read_counts_tells_nothing_past_the_public_horizon(
    service, client, integrator, monkeypatch
):
    """GET /tournaments/{id}/events counts as the pages of the log it answers: for a caller held back
    by a duplicate round's embargo, the log up to the horizon. A table's result past the horizon
    changes neither what it is shown nor what it is counted (before, the count followed the whole log,
    and the RateLimit fields told that a table had finished)."""
    import service.web.ratelimit as rl
    from service.core.tournaments import attach_tournaments

    from .test_rate_limit_headers import parse

    owner = _key(client, integrator, "games", "tournaments")
    outsider = bearer(_key(client, integrator, "games")["key"])
    t = _duplicate_round(client, bearer(owner["key"]), "hz")
    tid, (a, _b) = t["id"], t["round_detail"]["tables"]
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "off")
    monkeypatch.setattr(rl, "PAGE_UNIT", 1)  # one unit an event: every event of the count shows
    limited = create_app(service, rate_limit="100000 per 3600 seconds").test_client()

    def counted() -> tuple[int, int]:
        first = limited.get(f"/tournaments/{tid}/events?limit=1", headers=outsider)
        second = limited.get(f"/tournaments/{tid}/events?limit=1", headers=outsider)
        spent = parse(first.headers["RateLimit"])["credential"][0] - parse(second.headers["RateLimit"])["credential"][0]
        return second.get_json()["version"], spent

    before = counted()
    play_http(client, {"id": a["game_id"], "seats": a["seats"]}, random.Random(5))
    attach_tournaments(service).advance(tid)  # the worker's job: table A's result recorded
    head = client.get(f"/tournaments/{tid}/events", headers=bearer(owner["key"])).get_json()["version"]
    assert head > before[0]  # the owner sees the result
    assert counted() == before == (before[0], before[0])


def test_a_process_following_a_duplicate_round_reads_what_a_fresh_process_reads(service, client, integrator):
    """A process's fold of a tournament grows with its log; what it answers at every step, to the owner
    and to anyone else (held back by the round's embargo), is what a process that folds the log anew
    answers: the result of a table past the horizon is not shown to the public before the round ends."""
    from service.core.tournaments import Tournaments, attach_tournaments

    owner = _key(client, integrator, "games", "tournaments")
    outsider = bearer(_key(client, integrator, "games")["key"])
    t = _duplicate_round(client, bearer(owner["key"]), "fp")
    tid, tables_ = t["id"], t["round_detail"]["tables"]
    following = attach_tournaments(service)

    def reads(tournaments, who):
        viewer = service.identity.viewer(None, who["Authorization"].split()[1]) if who else None
        return (
            tournaments.view(tid, viewer),
            tournaments.standings(tid, viewer),
            tournaments.round(tid, 1, viewer),
        )

    seen = []
    for step, table in enumerate([None, *tables_]):
        if table is not None:
            play_http(client, {"id": table["game_id"], "seats": table["seats"]}, random.Random(step))
            following.advance(tid)
        for who in (bearer(owner["key"]), outsider, None):
            assert reads(following, who) == reads(Tournaments(service), who), (step, who)
        seen.append((reads(following, outsider)[2], reads(following, bearer(owner["key"]))[2]))
    (_, _), (held, whole), (after, ended) = seen
    assert [tb["result"] is None for tb in held["tables"]] == [True, True]  # table A's result held back
    assert [tb["result"] is None for tb in whole["tables"]] == [False, True]  # its owner sees it
    results = [tb["result"] for tb in after["tables"]]
    assert results == [tb["result"] for tb in ended["tables"]] and all(results)  # the round ended: shown to all


def test_a_tournament_whose_head_is_not_the_one_folded_is_folded_anew(service, client, integrator, redis_client):
    """A process's fold is used only at the head it was folded at, its hash included: a log whose head
    at that version is another (lost and written again, after a failover) is read and folded anew."""
    from events.store import key

    tid = _dalmuti_swiss(client, integrator, "hh", 4, 1)["id"]
    client.get(f"/tournaments/{tid}")
    same = _commands_naming(redis_client, f"{{{tid}}}", lambda: client.get(f"/tournaments/{tid}"))
    assert not [c for c in same if c.upper().startswith("XRANGE")], same
    real = redis_client.hget(key(tid, "head"), "hash")
    redis_client.hset(key(tid, "head"), "hash", "f" * 64)
    try:
        again = _commands_naming(redis_client, f"{{{tid}}}", lambda: client.get(f"/tournaments/{tid}"))
    finally:
        redis_client.hset(key(tid, "head"), "hash", real)
    assert [c for c in again if c.upper().startswith("XRANGE") and " 1-0 " in c], again


def test_a_tournament_log_read_past_its_budget_is_refused_before_the_log_is_read(
    service, client, integrator, redis_client, monkeypatch
):
    """GET /tournaments/{id}/events reads and hashes the whole log. It is counted before that work
    when the process's fold of the tournament is at the head, so that a caller with budget for the
    request but not for the log gets its 429 without a read (before, the log was read, hashed and
    folded, then refused); a process without the fold reads the log once (not once for the count and
    again for the answer) and keeps its fold."""
    import service.web.ratelimit as rl
    from service.core.tournaments import attach_tournaments

    tid = _dalmuti_swiss(client, integrator, "bl", 8, 2)["id"]
    version = client.get(f"/tournaments/{tid}").get_json()["version"]
    attach_tournaments(service)._folds.clear()  # a process that has not read this tournament
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "off")
    monkeypatch.setattr(rl, "PAGE_UNIT", 1)  # one unit an event
    limited = create_app(service, rate_limit=f"{version + 1} per 3600 seconds").test_client()
    answers = []

    def read():
        answers.append(limited.get(f"/tournaments/{tid}/events?limit=1"))

    sent = _commands_naming(redis_client, f"{{{tid}}}", read)  # counted as its version: one request left
    first = answers[-1]
    assert first.status_code == 200 and first.get_json()["version"] == version and first.get_json()["chain"]["ok"]
    assert len([c for c in sent if c.upper().startswith("XRANGE")]) == 1, sent
    sent = _commands_naming(redis_client, f"{{{tid}}}", read)
    assert answers[-1].status_code == 429, answers[-1].get_json()
    assert answers[-1].content_type == "application/problem+json"
    assert sent and not [c for c in sent if c.upper().startswith(("XRANGE", "XREAD", "EVALSHA"))], sent


def test_a_held_tournaments_fold_weighs_its_public_state_too(service, client, integrator):
    """A process's cache of tournament folds is bounded by their players and tables: a fold whose
    public state is one of its own (a duplicate round in play holds a table's result back) weighs
    both states, so that the cache cannot grow to twice its bound."""
    from service.core.tournaments import attach_tournaments

    owner = _key(client, integrator, "games", "tournaments")
    t = _duplicate_round(client, bearer(owner["key"]), "wt")
    tid, (a, _b) = t["id"], t["round_detail"]["tables"]
    following = attach_tournaments(service)
    open_fold = following._current(tid)
    assert open_fold.public[0] is open_fold.state  # nothing held back yet
    one = open_fold.size()
    assert one == 1 + len(open_fold.state["players"]) + sum(len(r["tables"]) for r in open_fold.state["schedule"])
    play_http(client, {"id": a["game_id"], "seats": a["seats"]}, random.Random(5))
    following.advance(tid)  # table A's result recorded: held from the public until B ends
    held = following._current(tid)
    assert held.version > open_fold.version and held.public[1] < held.version
    assert held.size() == 2 * one
    assert following._folds.currsize >= held.size()


def test_held_tables_listed_before_the_held_sets_are_put_in_them_once(client, integrator, service):
    """A store written before the held sets: its held tables' summaries name no owners and no held set
    holds them. The pass the workers run as they start puts them there, once per store."""
    from service.core.listing import ENDING, HELD_READY, INDEX_INFO, Listing

    owner = _key(client, integrator, "games", "tournaments")
    t = _duplicate_round(client, bearer(owner["key"]), "mgx")
    a, _b = (tb["game_id"] for tb in t["round_detail"]["tables"])
    seats = {tb["game_id"]: tb["seats"] for tb in t["round_detail"]["tables"]}
    play_http(client, {"id": a, "seats": seats[a]}, random.Random(43))
    sets = Listing.held_keys("dalmuti", [owner["id"]])  # of all types and dalmuti's; of every key and the owner's
    summary = json.loads(service.redis.hget(INDEX_INFO, a))
    assert summary["held"] and owner["id"] in summary["held_by"]
    # as the last release left it
    del summary["held_by"]
    service.redis.hset(INDEX_INFO, a, json.dumps(summary))
    for k in sets:
        service.redis.zrem(k, a)
    service.redis.zrem(ENDING, a)  # (its end listed long ago: no read lists it again)
    service.redis.delete(HELD_READY)

    def finished_for_owner() -> list[str]:
        query = {"status": "finished", "game": "dalmuti", "limit": 20}
        return [
            row["id"]
            for row in client.get("/games", query_string=query, headers=bearer(owner["key"])).get_json()["games"]
        ]

    assert a not in finished_for_owner()
    service.deadlines.rearm_deadlines()  # what a worker runs as it starts
    assert all(service.redis.zscore(k, a) is not None for k in sets)
    assert a in finished_for_owner()
    assert service.listing.backfill_held() == 0  # once per store


def test_a_rounds_tables_are_read_together_not_once_per_step(client, integrator, monkeypatch):
    """Starting a round creates its games, then records its finished tables: each step read every table
    started before it on its own, so that a round of n tables cost some n * n round trips (a 512-player
    round robin at tables of two: 70,000 round trips, 20 s in the request that created it).  Counted on
    the wire: four times the tables cost about four times the round trips, not sixteen."""
    from .test_round_trips import Wire

    wire = Wire(monkeypatch)
    sent = {}
    for n in (16, 64):
        before = wire.sent
        t = create_tournament(
            client,
            integrator,
            game="onion",
            options={"rounds": 1},
            players=[f"rt{n}-{i:02d}" for i in range(n)],
            format="round_robin",
            table_size={"min": 2, "max": 2},
            rounds=1,
        )
        sent[n] = wire.sent - before
        assert len(t["round_detail"]["tables"]) == n // 2
        assert all(tb["game_id"] for tb in t["round_detail"]["tables"])
    # linear: 626 against 185 when measured; each step reading the tables started before it: 1,681 against 256
    assert sent[64] < 5 * sent[16], sent
