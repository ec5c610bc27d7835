"""What a game's end sets going (its listing, its tournament's advance, ``game.finished`` webhooks)
survives the process that appended it, and costs that process the same whatever the webhooks it
reaches: the append marks the game in ``naipes:games:finishing`` in its own round trip, the mark goes
once every listener ran, and the workers run the listeners of a mark left behind.  The listeners run
once the last move is answered; a listing read in between tells the end itself."""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time

from rq.job import Job
from werkzeug.test import Client
from werkzeug.wrappers import Response

from domain import table as tables
from service.core.appending import FINISH_GRACE, finish_pending
from service.core.listing import ENDING, FINISHING, INDEX_INFO
from service.core.tournaments import attach_tournaments
from service.logs import GameContext

from .conftest import bearer
from .helpers import create, play_http, tokens
from .test_round_trips import Wire
from .test_timers import wait_for
from .test_tournaments import _hook, _key, receiver, worker  # noqa: F401 (fixtures)


def _mark(service, game_id: str) -> float | None:
    return service.redis.zscore(FINISHING, game_id)


def _short_game(client, integrator, seed: int) -> str:
    g = create(client, integrator, options={"hands": 1})
    play_http(client, g, random.Random(seed))
    return g["id"]


def test_a_games_end_whose_listeners_failed_is_told_again_by_the_workers_pass(client, integrator, service):
    told: list[str] = []

    def listener(game_id: str, table: dict) -> None:
        told.append(game_id)
        if len(told) == 1:
            raise RuntimeError("the process died here")

    service.on_finished.append(listener)
    gid = _short_game(client, integrator, 1)
    assert told == [gid]
    assert _mark(service, gid) is not None, "a game's end whose listener failed keeps its mark"
    assert gid not in finish_pending(service)  # within the grace its own process has
    assert told == [gid]
    assert gid in finish_pending(service, now=time.time() + FINISH_GRACE + 1)
    assert told == [gid, gid] and _mark(service, gid) is None
    assert gid not in finish_pending(service, now=time.time() + FINISH_GRACE + 1)  # told once more, not again
    # and a game whose listeners all ran keeps no mark
    other = _short_game(client, integrator, 2)
    assert told[-1] == other and _mark(service, other) is None


def test_a_mark_of_a_game_not_finished_is_dropped_untold(client, integrator, service):
    """The mark is written beside the append, whatever its fate: a refused append leaves the mark of a
    game that did not end."""
    told: list[str] = []
    service.on_finished.append(lambda game_id, table: told.append(game_id))
    g = create(client, integrator, options={"hands": 1})
    service.redis.zadd(FINISHING, {g["id"]: time.time() - FINISH_GRACE - 5})
    finish_pending(service)
    assert g["id"] not in told and _mark(service, g["id"]) is None


def test_the_workers_tell_a_games_end_its_process_never_told(worker, client, integrator, service, receiver):
    """End to end: the web process appends the game's end and dies before its listeners run (here:
    they never run); a real worker's pass delivers the ``game.finished`` webhook."""
    key = _key(client, integrator, "games", "tournaments")
    hook = _hook(client, key, f"{receiver.url}/late", ["game.finished"])
    try:
        attach_tournaments(service)
        service.appender.tell_end = lambda game_id, table: False  # the process died after the append
        gid = _short_game(client, integrator, 3)
        assert _mark(service, gid) is not None
        # the grace a finishing process has, spent (rather than waited for)
        service.redis.zadd(FINISHING, {gid: time.time() - FINISH_GRACE - 1})

        def told() -> bool:
            return any(json.loads(r["body"])["id"] == f"game.finished:{gid}" for r in receiver.at("/late"))

        assert wait_for(told, timeout=30), "the worker did not tell the game's end"
        assert wait_for(lambda: _mark(service, gid) is None, timeout=10)
        listed = client.get("/games", query_string={"status": "finished"}, headers=integrator).get_json()
        assert gid in {g["id"] for g in listed["games"]} or listed.get("next")  # listed as finished
    finally:
        client.delete(f"/webhooks/{hook['id']}", headers=bearer(key["key"]))


def test_a_games_end_costs_the_same_round_trips_whatever_the_webhooks_it_reaches(
    client, integrator, service, receiver, monkeypatch
):
    """Every webhook told of a game's end: their marks in one round trip, their deliveries in one."""
    attach_tournaments(service)
    first = _key(client, integrator, "games", "tournaments")
    hooks = [(_hook(client, first, f"{receiver.url}/fan", ["game.finished"]), first)]

    def cost(seed: int) -> tuple[int, str]:
        gid = _short_game(client, integrator, seed)
        table = service.tables.table(gid, fresh=True)
        service.keys._by_id.clear()  # the keys' records read as after their cache expired
        wire = Wire(monkeypatch)
        assert service.appender.tell_end(gid, table)
        monkeypatch.undo()
        return wire.sent, gid

    try:
        few, _ = cost(4)
        for _ in range(10):
            key = _key(client, integrator, "games", "tournaments")
            hooks.append((_hook(client, key, f"{receiver.url}/fan", ["game.finished"]), key))
        many, gid = cost(5)
        assert many == few, (few, many)
        for hook, _ in hooks:  # and every webhook's delivery was queued
            delivery = "whd_" + hashlib.sha256(f"{hook['id']}|game.finished:{gid}".encode()).hexdigest()[:24]
            assert Job.exists(delivery, connection=service.queue_redis), hook["id"]
    finally:
        for hook, key in hooks:
            client.delete(f"/webhooks/{hook['id']}", headers=bearer(key["key"]))


def test_a_game_whose_listeners_keep_failing_is_tried_again_after_the_newer_marks(client, integrator, service):
    """A mark whose listeners fail again waits another grace, behind the marks that came since: a hundred
    of them failing for good cannot keep newer games' ends from being told."""
    told: list[str] = []
    failing: set[str] = set()

    def listener(game_id: str, table: dict) -> None:
        told.append(game_id)
        if game_id in failing:
            raise RuntimeError("this listener fails for this game")

    service.on_finished.append(listener)
    stuck = _short_game(client, integrator, 7)
    failing.add(stuck)
    assert _mark(service, stuck) is None  # its own process told it (the listener failed only later)
    service.redis.zadd(FINISHING, {stuck: time.time() - FINISH_GRACE - 60})
    later = time.time() + FINISH_GRACE + 1
    assert stuck not in finish_pending(service, now=later)
    assert _mark(service, stuck) == later  # moved behind every mark made until then
    assert stuck not in finish_pending(service, now=later)  # not again before another grace


def _last_move_left_open(app, client, integrator, seed: int):
    """A game played to its end whose last move was answered by a server that has not closed the
    answer yet (a WSGI server closes it once it sent it): the game's id and that answer."""
    raw = Client(app.wsgi_app, Response)  # werkzeug's client leaves closing to its caller
    g = create(client, integrator, options={"hands": 1})
    gid, toks, rng = g["id"], tokens(g), random.Random(seed)
    while True:
        seat = rng.choice(client.get(f"/games/{gid}", headers=bearer(toks[0])).get_json()["to_act"])
        moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
        answer = raw.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
        assert answer.status_code == 201, answer.get_json()
        if not answer.get_json()["to_act"]:
            return gid, answer
        answer.close()


def _listed_status(service, game_id: str) -> str:
    return json.loads(service.redis.hget(INDEX_INFO, game_id))["status"]


def test_a_games_last_move_is_answered_before_its_end_is_told(app, client, integrator, service):
    """The end's listeners and listing take round trips that, on a busy worker, each wait behind the
    requests in flight: they run once the answer is sent, from the mark the append left."""
    told: list[str] = []
    service.on_finished.append(lambda game_id, table: told.append(game_id))
    gid, answer = _last_move_left_open(app, client, integrator, 3)
    assert client.get(f"/games/{gid}", headers=integrator).get_json()["finished"]
    assert told == [] and _mark(service, gid) is not None and _listed_status(service, gid) == "active"
    answer.close()  # the server sent the answer
    assert told == [gid] and _mark(service, gid) is None and _listed_status(service, gid) == "finished"
    answer.close()
    assert told == [gid], "an answer closed twice tells the end once"


def test_an_end_told_after_a_ruling_that_came_before_it_is_told_as_ruled(app, client, integrator, service):
    """A reviewer's correction between the last move's answer and its end's telling: the end is told
    with the corrected result (the correction's own listeners ran first, at its append)."""
    told: list[tuple[str, list]] = []
    service.on_finished.append(lambda game_id, table: told.append((game_id, tables.outcome(table)["scores"])))
    gid, answer = _last_move_left_open(app, client, integrator, 8)
    scores = client.get(f"/games/{gid}", headers=integrator).get_json()["result"]["scores"]
    fix = {"action": "correct_score", "reason": "recount", "deltas": [1] + [0] * (len(scores) - 1)}
    assert client.post(f"/games/{gid}/adjudications", json=fix, headers=integrator).status_code == 201
    answer.close()
    assert told == [(gid, [scores[0] + 1, *scores[1:]])], told


def test_the_log_lines_of_an_end_told_after_its_answer_name_its_game(app, client, integrator, service):
    def failing(game_id: str, table: dict) -> None:
        raise RuntimeError("the queues' Redis is away")

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    handler.addFilter(GameContext())
    log = logging.getLogger("naipes.appending")
    log.addHandler(handler)
    service.on_finished.append(failing)
    gid = None
    try:
        gid, answer = _last_move_left_open(app, client, integrator, 9)
        answer.close()
    finally:
        log.removeHandler(handler)
        if gid is not None:
            service.redis.zrem(FINISHING, gid)
    failed = [r for r in records if r.getMessage().startswith("a finished-game listener failed")]
    assert failed and all(getattr(r, "game_id", None) == gid for r in failed), [vars(r) for r in records]


def _finished_ids(client, integrator) -> list[str]:
    return [row["id"] for row in client.get("/games?status=finished&limit=100", headers=integrator).get_json()["games"]]


def test_a_listing_read_while_an_end_is_pending_shows_it_finished(app, client, integrator, service):
    """Read your writes: a listing read on another connection, once the last move was answered and
    before its process told the end, lists the end itself (its listing only: the listeners stay the
    answering process's)."""
    told: list[str] = []
    service.on_finished.append(lambda game_id, table: told.append(game_id))
    gid, answer = _last_move_left_open(app, client, integrator, 4)
    assert service.redis.zscore(ENDING, gid) is not None
    assert gid in _finished_ids(client, integrator)
    active = client.get("/games?status=active&limit=100", headers=integrator).get_json()["games"]
    assert gid not in [row["id"] for row in active]
    assert service.redis.zscore(ENDING, gid) is None, "listed at its end: no read lists it again"
    assert gid not in told and _mark(service, gid) is not None, "the listeners are the answering process's"
    answer.close()  # its own process tells it: the same listing
    assert told.count(gid) == 1 and _mark(service, gid) is None and _listed_status(service, gid) == "finished"
    assert _finished_ids(client, integrator).count(gid) == 1


def test_ends_whose_listeners_keep_failing_do_not_hide_a_new_end_from_a_listing_read(app, client, integrator, service):
    """Their ends are listed (their marks stay, for the workers): a listing read looks only at the ends
    not listed yet, so more of them than a read lists does not crowd out the end just answered."""

    def failing(game_id: str, table: dict) -> None:
        raise RuntimeError("the queues' Redis is away")

    service.on_finished.append(failing)
    stuck: list[str] = []
    try:
        stuck += [_short_game(client, integrator, 100 + i) for i in range(service.listing.PENDING_ENDS + 2)]
        assert all(_mark(service, gid) is not None and _listed_status(service, gid) == "finished" for gid in stuck)
        gid, answer = _last_move_left_open(app, client, integrator, 7)
        stuck.append(gid)
        assert gid in _finished_ids(client, integrator)
        answer.close()
    finally:  # the tests share a Redis: other tests' workers' passes would tell these ends
        if stuck:
            service.redis.zrem(FINISHING, *stuck)


def test_a_listing_read_leaves_to_the_workers_what_is_theirs(client, integrator, service):
    """An entry older than the grace (its process died: the workers tell that end) and a game not
    finished (a refused append's entry): a listing read lists neither, and never runs a listener."""
    told: list[str] = []
    service.on_finished.append(lambda game_id, table: told.append(game_id))
    stale = _short_game(client, integrator, 5)
    unfinished = create(client, integrator, options={"hands": 1})["id"]
    told.clear()
    now = time.time()
    service.redis.zadd(ENDING, {stale: now - FINISH_GRACE - 1, unfinished: now})
    summary = json.loads(service.redis.hget(INDEX_INFO, stale))
    service.redis.hset(INDEX_INFO, stale, json.dumps({**summary, "status": "active"}))  # as if never listed
    client.get("/games?status=finished", headers=integrator)
    assert _listed_status(service, stale) == "active" and service.redis.zscore(ENDING, stale) is None
    assert _listed_status(service, unfinished) == "active" and service.redis.zscore(ENDING, unfinished) is not None
    assert told == []
