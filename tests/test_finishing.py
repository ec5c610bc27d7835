"""What a game's end sets going (its listing, its tournament's advance, ``game.finished`` webhooks)
survives the process that appended it, and costs that process the same whatever the webhooks it
reaches: the append marks the game in ``naipes:games:finishing`` in its own round trip, the mark goes
once every listener ran, and the workers run the listeners of a mark left behind."""

from __future__ import annotations

import hashlib
import json
import random
import time

from rq.job import Job

from service.core.appending import FINISH_GRACE, finish_pending
from service.core.listing import FINISHING
from service.core.tournaments import attach_tournaments

from .conftest import bearer
from .helpers import create, play_http
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
