"""One key runs at most ``max_search_games`` games with search bots at once (service.core.quotas): a
search bot's move is seconds of the bots' worker, which serves every key's running games in turn, so a
key with a hundred of them would hold every other key's bots a hundred turns back.  Creations, a bot
seated later, tournaments and rematches all count; a finished (or voided) game frees its slot; a failed
creation gives its slot back; requests at once never pass the limit."""

from __future__ import annotations

import json
import secrets
import threading
import time

import pytest
import redis
from werkzeug.test import Client
from werkzeug.wrappers import Response

from service.core import quotas
from service.core.listing import DUE, FINISHING
from tests.conftest import bearer

LIMIT = 2


@pytest.fixture()
def limited(service):
    service.max_search_games = LIMIT
    return service


def _fresh_key(client, integrator, name: str = "tenant") -> dict:
    """A key of its own, so that the games other tests left in the shared Redis do not count."""
    made = client.post("/keys", json={"name": name, "scopes": ["games", "review", "tournaments"]}, headers=integrator)
    assert made.status_code == 201, made.get_json()
    return bearer(made.get_json()["key"])


def _search_game(client, key, *, bot: str = "search", players: int = 4):
    body = {"game": "dalmuti", "players": [f"p{i}" for i in range(players)], "options": {"bots": {"1": bot}}}
    return client.post("/games", json=body, headers=key)


def _refused(r, held: int) -> dict:
    assert r.status_code == 429, (r.status_code, r.get_json())
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["type"] == "urn:naipes:problem:search-game-limit", body
    assert body["limit"] == LIMIT and body["held"] == held, body
    assert f"{held} of its {LIMIT} slots" in body["detail"], body
    return body


def _listed(client, key) -> int:
    return client.get("/games?limit=100", headers=key).get_json()["total"]


def test_a_key_past_its_limit_is_refused_and_nothing_is_created(client, integrator, limited):
    key = _fresh_key(client, integrator)
    for _ in range(LIMIT):
        assert _search_game(client, key).status_code == 201
    before = _listed(client, key)
    _refused(_search_game(client, key), LIMIT)
    assert _listed(client, key) == before  # the refused game was not written
    # other kinds of bots cost milliseconds and are not counted
    assert _search_game(client, key, bot="heuristic").status_code == 201
    # another key has slots of its own
    other = _fresh_key(client, integrator, "other tenant")
    assert _search_game(client, other).status_code == 201


def test_a_voided_game_frees_its_slot(client, integrator, limited):
    key = _fresh_key(client, integrator)
    games = [_search_game(client, key).get_json()["id"] for _ in range(LIMIT)]
    _refused(_search_game(client, key), LIMIT)
    voided = client.post(f"/games/{games[0]}/adjudications", json={"action": "void", "reason": "stalled"}, headers=key)
    assert voided.status_code == 201, voided.get_json()
    assert _search_game(client, key).status_code == 201
    _refused(_search_game(client, key), LIMIT)


def test_a_slot_is_free_once_the_end_of_its_game_is_answered(app, client, integrator, limited):
    """The end's listing is written once its answer is sent (service.core.afterwards): a creation on
    another connection in between finds the game ended all the same."""
    key = _fresh_key(client, integrator)
    games = [_search_game(client, key).get_json()["id"] for _ in range(LIMIT)]
    raw = Client(app.wsgi_app, Response)  # the answer not closed yet: its end not told
    voided = raw.post(f"/games/{games[0]}/adjudications", json={"action": "void", "reason": "stalled"}, headers=key)
    assert voided.status_code == 201, voided.get_json()
    assert limited.redis.zscore(FINISHING, games[0]) is not None, "its end is not told yet"
    assert _search_game(client, key).status_code == 201
    voided.close()
    _refused(_search_game(client, key), LIMIT)


def test_a_bot_seated_later_takes_a_slot(client, integrator, limited):
    key = _fresh_key(client, integrator)
    human = client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=key).get_json()
    for _ in range(LIMIT):
        assert _search_game(client, key).status_code == 201
    token = next(s["token"] for s in human["seats"] if s["seat"] == 2)
    assert client.post(f"/games/{human['id']}/seats/2/leave", headers=bearer(token)).status_code == 200
    url = f"/games/{human['id']}/seats/2/bot"
    _refused(client.post(url, json={"bot": "search"}, headers=key), LIMIT)
    assert client.get(f"/games/{human['id']}", headers=key).get_json()["options"].get("bots") in (None, {})
    assert client.post(url, json={"bot": "random"}, headers=key).status_code == 201


def test_a_bot_seated_in_a_game_that_holds_a_slot_takes_no_second_one(client, integrator, limited):
    key = _fresh_key(client, integrator)
    game = _search_game(client, key).get_json()
    assert _search_game(client, key).status_code == 201  # the limit is reached
    token = next(s["token"] for s in game["seats"] if s["seat"] == 2)
    assert client.post(f"/games/{game['id']}/seats/2/leave", headers=bearer(token)).status_code == 200
    r = client.post(f"/games/{game['id']}/seats/2/bot", json={"bot": "search"}, headers=key)
    assert r.status_code == 201, r.get_json()


def test_a_tournament_holds_a_slot_per_table_that_may_seat_a_search_bot(client, integrator, limited):
    key = _fresh_key(client, integrator)
    players = [f"p{i}" for i in range(12)]  # three tables of four a round

    def tournament(searching: list[str]):
        body = {
            "game": "dalmuti",
            "players": players,
            "format": "swiss",
            "table_size": {"min": 4, "max": 4},
            "options": {"hands": 1},
            "bots": dict.fromkeys(searching, "search"),
        }
        return client.post("/tournaments", json=body, headers=key)

    before = client.get("/tournaments", headers=key).get_json()["total"]
    # three tables may seat one each: 3 slots, more than the limit itself; no wait would let it in, so a 422
    too_many = tournament(players[:3])
    assert too_many.status_code == 422, too_many.get_json()
    body = too_many.get_json()
    assert body["type"].endswith("invalid-options") and body["rule"] == "search-game-limit" and body["limit"] == 2
    assert "3 slots" in body["detail"], body
    assert client.get("/tournaments", headers=key).get_json()["total"] == before
    made = tournament(players[:2])  # two search players: at most two tables at once
    assert made.status_code == 201, made.get_json()
    _refused(_search_game(client, key), LIMIT)
    # its tables are counted as the tournament, not again one by one
    owner = limited.identity.integrator(key["Authorization"][7:]).key_id
    assert limited.search_quota.held(owner) == 2
    # and its slots end with it: the tournament's summary is where its status is read
    from service.core.tournaments import INDEX_INFO

    tid = made.get_json()["id"]
    summary = json.loads(limited.redis.hget(INDEX_INFO, tid))
    limited.redis.hset(INDEX_INFO, tid, json.dumps({**summary, "status": "finished"}))
    assert limited.search_quota.held(owner) == 0


def test_a_failed_creation_gives_its_slot_back(client, integrator, limited, monkeypatch):
    key = _fresh_key(client, integrator)
    assert _search_game(client, key).status_code == 201
    commit = limited.appender.commit

    def failing(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Redis went away")

    monkeypatch.setattr(limited.appender, "commit", failing)
    assert _search_game(client, key).status_code == 503
    monkeypatch.setattr(limited.appender, "commit", commit)
    assert _search_game(client, key).status_code == 201  # the failed one's slot came back
    _refused(_search_game(client, key), LIMIT)


def test_a_creation_stored_without_its_tokens_gives_its_slot_back(client, integrator, limited, monkeypatch):
    """A game stored whose owner and seat tokens Redis refused (its creation answered 503: nobody can
    play it) holds no slot of its owner's (before, it held one for as long as it stayed unfinished,
    which is for good)."""
    import service.core.games as games_module

    key = _fresh_key(client, integrator)
    assert _search_game(client, key).status_code == 201
    given = secrets.token_hex(8)
    real = games_module.secrets.token_hex
    drawn = iter([given])
    monkeypatch.setattr(games_module.secrets, "token_hex", lambda n=None: next(drawn, None) or real(n))
    limited.redis.set(f"naipes:{{{given}}}:auth", "not a hash")  # WRONGTYPE for the tokens' write
    r = _search_game(client, key)
    assert r.status_code == 503 and "discarded" in r.get_json()["detail"], r.get_json()
    # stored, unplayable and told to nobody: discarded, none of its keys left, its id unknown
    assert not limited.store.exists(given) and not limited.store.game_keys(given)
    assert client.get(f"/games/{given}", headers=key).status_code == 404
    assert given not in limited.redis.zrange(DUE, 0, -1)
    assert _search_game(client, key).status_code == 201  # its slot came back
    _refused(_search_game(client, key), LIMIT)


def test_a_slot_whose_game_was_never_written_is_freed_after_a_grace(client, integrator, limited, monkeypatch):
    key = _fresh_key(client, integrator)
    owner = limited.identity.integrator(key["Authorization"][7:]).key_id
    quota = limited.search_quota
    quota.take(owner, secrets.token_hex(8))  # a process died between taking the slot and writing its game
    assert quota.held(owner) == 1
    monkeypatch.setattr(quotas, "UNWRITTEN_GRACE", 0.0)
    assert quota.held(owner) == 0
    assert limited.redis.zcard(quotas.SEARCH_GAMES + owner) == 0
    # a game written but not listed (a fault between the two) still runs: its slot counts
    gid = _search_game(client, key).get_json()["id"]
    from service.core.listing import INDEX_INFO

    limited.redis.hdel(INDEX_INFO, gid)
    assert quota.held(owner) == 1


def test_requests_at_once_never_pass_the_limit(app, client, integrator, limited):
    key = _fresh_key(client, integrator)
    answers: list[int] = []
    start = threading.Barrier(12)

    def create():
        own = app.test_client()
        start.wait()
        answers.append(_search_game(own, key).status_code)

    threads = [threading.Thread(target=create) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(answers) <= {201, 429}, answers
    assert answers.count(201) == LIMIT, answers  # never past the limit, and up to it every request passes
    owner = limited.identity.integrator(key["Authorization"][7:]).key_id
    assert limited.search_quota.held(owner) == answers.count(201)


def test_importing_a_running_game_with_search_bots_takes_a_slot(client, integrator, limited):
    from events.store import key as store_key

    exporter, importer = _fresh_key(client, integrator, "exporter"), _fresh_key(client, integrator, "importer")
    gid = _search_game(client, exporter).get_json()["id"]
    log = client.get(f"/games/{gid}/export", headers=exporter).data
    limited.redis.delete(*[store_key(gid, part) for part in ("events", "head", "snap", "auth", "meta")])
    held = [_search_game(client, importer).get_json()["id"] for _ in range(LIMIT)]
    ndjson = {**importer, "Content-Type": "application/x-ndjson"}
    _refused(client.post("/games/import", data=log, headers=ndjson), LIMIT)
    assert client.get(f"/games/{gid}", headers=importer).status_code == 404  # nothing was written
    void = {"action": "void", "reason": "stalled"}
    assert client.post(f"/games/{held[0]}/adjudications", json=void, headers=importer).status_code == 201
    r = client.post("/games/import", data=log, headers=ndjson)
    assert r.status_code == 201, r.get_json()
    _refused(_search_game(client, importer), LIMIT)


def test_a_refused_rematch_is_refused_again_at_once_and_made_once_a_slot_frees(client, integrator, limited):
    """The rematch of a finished game with search bots takes a slot; refused, it leaves no mark that would
    hold the next call waiting for a creation that is not coming."""
    key = _fresh_key(client, integrator)
    first = _search_game(client, key).get_json()
    void = {"action": "void", "reason": "ended early"}
    assert client.post(f"/games/{first['id']}/adjudications", json=void, headers=key).status_code == 201
    running = [_search_game(client, key).get_json()["id"] for _ in range(LIMIT)]
    _refused(client.post(f"/games/{first['id']}/rematch", headers=key), LIMIT)
    # a seat of the game may ask for the rematch too: it learns the limit holds, not the owner's counts
    by_seat = client.post(f"/games/{first['id']}/rematch", headers=bearer(first["seats"][0]["token"]))
    assert by_seat.status_code == 429 and by_seat.get_json()["type"].endswith("search-game-limit")
    assert "held" not in by_seat.get_json() and "limit" not in by_seat.get_json(), by_seat.get_json()
    started = time.monotonic()
    _refused(client.post(f"/games/{first['id']}/rematch", headers=key), LIMIT)
    assert time.monotonic() - started < 2.0  # not the creation mark's wait
    assert client.post(f"/games/{running[0]}/adjudications", json=void, headers=key).status_code == 201
    made = client.post(f"/games/{first['id']}/rematch", headers=key)
    assert made.status_code == 201, made.get_json()


def test_a_rematch_waiting_for_a_slot_keeps_its_id_from_imports(client, integrator, limited):
    """A refused rematch has already named its id in the finished game's public log.  Another key that
    imports a log of its own under that id (a forged one: any chain can be recomputed) is refused, and
    the rematch is made under its id once the owner's slot frees; before, the import took the id and the
    rematch was refused for good (403: the game named is not this game's rematch)."""
    from tests.test_trust import forged

    key, squatter = _fresh_key(client, integrator), _fresh_key(client, integrator, "squatter")
    first = _search_game(client, key).get_json()
    void = {"action": "void", "reason": "ended early"}
    assert client.post(f"/games/{first['id']}/adjudications", json=void, headers=key).status_code == 201
    running = [_search_game(client, key).get_json()["id"] for _ in range(LIMIT)]
    seat = bearer(first["seats"][0]["token"])
    assert client.post(f"/games/{first['id']}/rematch", headers=seat).status_code == 429
    events = client.get(f"/games/{first['id']}/events").get_json()["events"]  # anyone may read them
    reserved = next(e["data"]["game"] for e in events if e["type"] == "RematchCreated")
    assert client.get(f"/games/{reserved}").status_code == 404  # named, not made
    own = client.post("/games", json={"game": "dalmuti", "players": ["w", "x", "y", "z"]}, headers=squatter)
    lines = client.get(f"/games/{own.get_json()['id']}/export", headers=squatter).data.splitlines()
    log = forged(lines, lambda header, envs: ({**header, "game_id": reserved}, envs))
    r = client.post("/games/import", data=log, headers={**squatter, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 409 and r.get_json()["type"].endswith("game-exists"), r.get_json()
    assert "rematch" in r.get_json()["detail"]
    assert client.get(f"/games/{reserved}").status_code == 404
    assert client.post(f"/games/{running[0]}/adjudications", json=void, headers=key).status_code == 201
    made = client.post(f"/games/{first['id']}/rematch", headers=seat)
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["id"] == reserved and made.get_json()["rematch_of"] == first["id"]


def test_a_search_bot_that_was_not_seated_gives_its_slot_back(client, integrator, limited, monkeypatch):
    key = _fresh_key(client, integrator)
    owner = limited.identity.integrator(key["Authorization"][7:]).key_id
    human = client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=key).get_json()
    token = next(s["token"] for s in human["seats"] if s["seat"] == 2)
    assert client.post(f"/games/{human['id']}/seats/2/leave", headers=bearer(token)).status_code == 200
    commit = limited.appender.commit

    def failing(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Redis went away")

    monkeypatch.setattr(limited.appender, "commit", failing)
    url = f"/games/{human['id']}/seats/2/bot"
    assert client.post(url, json={"bot": "search"}, headers=key).status_code == 503
    assert limited.search_quota.held(owner) == 0  # no bot was seated: no slot held
    monkeypatch.setattr(limited.appender, "commit", commit)
    assert client.post(url, json={"bot": "search"}, headers=key).status_code == 201
    assert limited.search_quota.held(owner) == 1


def test_an_import_that_loses_a_race_for_its_id_gives_its_slot_back_and_owns_nothing(
    client, integrator, limited, monkeypatch
):
    """Another writer stores a game of the same id between the import's check and its append: the import
    is 409, gives its slot back, and does not name itself the owner of the game that won."""
    from events.store import key as store_key

    winner, loser = _fresh_key(client, integrator, "winner"), _fresh_key(client, integrator, "loser")
    gid = _search_game(client, winner).get_json()["id"]
    log = client.get(f"/games/{gid}/export", headers=winner).data
    winner_id = limited.identity.integrator(winner["Authorization"][7:]).key_id
    loser_id = limited.identity.integrator(loser["Authorization"][7:]).key_id
    exists = limited.store.exists
    monkeypatch.setattr(limited.store, "exists", lambda game_id: False if game_id == gid else exists(game_id))
    r = client.post("/games/import", data=log, headers={**loser, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 409 and r.get_json()["type"].endswith("game-exists"), r.get_json()
    monkeypatch.setattr(limited.store, "exists", exists)
    assert limited.redis.zcard(quotas.SEARCH_GAMES + loser_id) == 0
    assert limited.redis.hget(store_key(gid, "meta"), "owner").decode() == winner_id
    assert limited.search_quota.held(winner_id) == 1
