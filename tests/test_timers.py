"""Timed turns enforced by a real RQ worker process (with its scheduler) over real Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import redis
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from domain import table as tables
from events.envelope import parse_time
from service.core import timers
from service.core.listing import RUNNING_TIMED
from service.core.naipes import Naipes
from workers.queues import LEAD_SECONDS, RECONCILE_SECONDS, DeadlineRegistry

from .conftest import ROOT, bearer
from .helpers import create, tokens


def start_worker(redis_url: str) -> subprocess.Popen:
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT), "NAIPES_LOG_LEVEL": "WARNING"}
    return subprocess.Popen(
        [sys.executable, "-m", "workers"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the worker and its scheduler process, as a crash of the machine's process would."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


@pytest.fixture()
def worker(redis_url):
    proc = start_worker(redis_url)
    yield proc
    kill_group(proc)


def wait_for(predicate, timeout: float, step: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def timeouts(client, integrator, gid):
    events = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["events"]
    return [e for e in events if e["type"] == tables.TURN_TIMED_OUT], events


def test_a_silent_seat_is_timed_out_within_two_seconds_of_its_deadline(worker, client, integrator):
    g = create(client, integrator, options={"turn_seconds": 1.0, "hands": 1})
    view = client.get(f"/games/{g['id']}").get_json()
    found = wait_for(lambda: timeouts(client, integrator, g["id"])[0], timeout=6)
    assert found, "no timeout was enforced"
    first = found[0]
    assert first["actor"] == "worker" and first["data"]["seat"] in view["to_act"]
    lateness = parse_time(first["time"]) - parse_time(view["deadlines"][str(first["data"]["seat"])])
    assert -0.01 <= lateness <= 2.0, lateness
    # the timeout move is one the rules allow (Dalmuti: the leader plays its worst single card)
    _, events = timeouts(client, integrator, g["id"])
    after = events[events.index(first) + 1]
    assert after["actor"] == "worker" and after["type"] not in (tables.TURN_TIMED_OUT,)
    assert first["data"]["move"]["type"] in (
        "play",
        "pass",
        "give_taxes",
        "decline_revolution",
        "decline_exchange",
        "place_newcomer",
    )


def test_a_seat_that_moves_in_time_is_never_timed_out(worker, client, integrator):
    g = create(client, integrator, options={"turn_seconds": 1.5, "hands": 1})
    toks = tokens(g)
    end = time.monotonic() + 4
    while time.monotonic() < end:
        view = client.get(f"/games/{g['id']}").get_json()
        for seat in view["to_act"]:
            move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"][0]
            client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(toks[seat]))
        time.sleep(0.2)
    assert timeouts(client, integrator, g["id"])[0] == []


def test_stale_and_duplicate_jobs_append_nothing(client, integrator, service):
    g = create(client, integrator, options={"turn_seconds": 30})
    view = client.get(f"/games/{g['id']}").get_json()
    seat, version = view["to_act"][0], view["version"]
    assert (
        service.deadlines.enforce_deadline(g["id"], version - 1, seat) is False
    )  # stale: scheduled for an older version
    assert service.deadlines.enforce_deadline(g["id"], version, seat) is True
    assert service.deadlines.enforce_deadline(g["id"], version, seat) is False  # fired twice
    found, events = timeouts(client, integrator, g["id"])
    assert len(found) == 1 and events[-1]["version"] == client.get(f"/games/{g['id']}").get_json()["version"]


def test_killed_worker_then_a_new_one_still_enforces_the_deadline_once(redis_url, client, integrator):
    first = start_worker(redis_url)
    time.sleep(1.0)  # let it take the scheduler lock
    g = create(client, integrator, options={"turn_seconds": 2.0, "hands": 1})
    view = client.get(f"/games/{g['id']}").get_json()
    acting, version = set(view["to_act"]), view["version"]
    kill_group(first)
    time.sleep(2.5)  # the deadline passes with no worker alive
    second = start_worker(redis_url)
    try:
        found = wait_for(
            lambda: [t for t in timeouts(client, integrator, g["id"])[0] if t["version"] == version + 1], timeout=8
        )
        assert found and found[0]["data"]["seat"] in acting
        time.sleep(1.5)
        every = timeouts(client, integrator, g["id"])[0]
        links = [(t["data"]["seat"], t["prev_hash"]) for t in every]
        assert len(links) == len(set(links))  # no deadline enforced twice
    finally:
        kill_group(second)


def test_a_deadline_job_is_handed_out_just_before_its_millisecond_not_at_the_start_of_its_second(redis_client):
    # RQ scores scheduled jobs in whole seconds; handing a job out up to a second early would make the worker
    # wait on it and hold up the deadlines queued behind it: it goes out LEAD_SECONDS before its deadline
    registry = DeadlineRegistry("naipes-test-precise", connection=redis_client)
    redis_client.delete(registry.key)
    late_in_second, early_in_second = timers.job_id("g", 3, 0, 1000.9), timers.job_id("g", 3, 1, 1000.4)
    previous, next_second = timers.job_id("h", 7, 2, 999.95), timers.job_id("k", 1, 0, 1001.0)
    redis_client.zadd(
        registry.key,
        {late_in_second: 1000, early_in_second: 1000, previous: 999, "another-job": 1000, next_second: 1001},
    )
    registry.clock = lambda: 1000.5
    assert sorted(registry.get_jobs_to_schedule()) == sorted(["another-job", early_in_second, previous])
    registry.clock = lambda: 1000.9 - LEAD_SECONDS + 0.01
    assert late_in_second in registry.get_jobs_to_schedule()
    assert next_second not in registry.get_jobs_to_schedule()
    registry.clock = lambda: 1001.0 - LEAD_SECONDS + 0.01
    assert next_second in registry.get_jobs_to_schedule()
    redis_client.zadd(registry.key, {"a-retry": 1001})  # other jobs keep RQ's whole seconds: none goes early
    assert "a-retry" not in registry.get_jobs_to_schedule()
    registry.clock = lambda: 1001.0
    assert "a-retry" in registry.get_jobs_to_schedule()
    redis_client.delete(registry.key)


def test_a_running_worker_takes_over_from_the_killed_scheduler(redis_url, client, integrator):
    # with two workers, killing the one whose scheduler holds the lock must not leave deadlines unenforced
    # until a restart: the other worker's watchdog frees the dead scheduler's lock and schedules
    first = start_worker(redis_url)
    time.sleep(1.5)  # the first takes the scheduler lock
    second = start_worker(redis_url)
    try:
        time.sleep(1.5)
        kill_group(first)
        g = create(client, integrator, options={"turn_seconds": 2.0, "hands": 1})
        view = client.get(f"/games/{g['id']}").get_json()
        found = wait_for(lambda: timeouts(client, integrator, g["id"])[0], timeout=8)
        assert found, "nobody enforced the deadline after the scheduler's worker was killed"
        seat = found[0]["data"]["seat"]
        lateness = parse_time(found[0]["time"]) - parse_time(view["deadlines"][str(seat)])
        assert -0.01 <= lateness <= 3.0, lateness
    finally:
        kill_group(second)


def test_a_deadline_job_outlasts_a_redis_restart(tmp_path, monkeypatch):
    # a deadline job that meets Redis restarting must not fail (RQ would file it as failed and the seat
    # would never be timed out): it keeps trying until Redis is back
    from events.embedded import EmbeddedRedis
    from workers import jobs

    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always").start()
    client = redis.Redis.from_url(server.url)
    try:
        svc = Naipes(client, api_keys=["k"])
        created = svc.games.create_game("dalmuti", ["a", "b", "c", "d"], {"turn_seconds": 0.5, "hands": 1})
        table = svc.tables.table(created["id"], fresh=True)
        seat = next(int(s) for s, c in table["clock"].items() if c.get("deadline"))
        deadline = table["clock"][str(seat)]["deadline"]
        monkeypatch.setattr(jobs, "_service", svc)
        server.kill()
        restarted = []
        timer = threading.Timer(
            1.0,
            lambda: restarted.append(EmbeddedRedis(tmp_path / "redis", port=server.port, appendfsync="always").start()),
        )
        timer.start()
        assert jobs.enforce_deadline(created["id"], table["version"], seat, deadline) is True
        timer.join()
        after = svc.tables.table(created["id"], fresh=True)
        assert after["version"] > table["version"]
        assert any(e["type"] == tables.TURN_TIMED_OUT for e in svc.store.read(created["id"], table["version"]))
    finally:
        client.close()
        for srv in [server] + restarted:
            srv.stop()


def test_a_deadline_whose_job_was_lost_is_still_enforced(worker, client, integrator, service):
    # RQ can lose a job a worker took off the queue when Redis or the worker died at that moment (it stays
    # in RQ's intermediate queue); the scheduler's sweep of naipes:deadlines enqueues such a deadline again
    from rq import Worker

    # the worker re-arms every deadline when it starts: let it start first (it registers after), then lose the job
    assert wait_for(lambda: any(w.pid == worker.pid for w in Worker.all(connection=service.queue_redis)), timeout=10)
    g = create(client, integrator, options={"turn_seconds": 1.0, "hands": 1})
    table = service.tables.table(g["id"], fresh=True)
    deadlines = {int(s): c["deadline"] for s, c in table["clock"].items() if c.get("deadline")}
    jobs = [timers.job_id(g["id"], table["version"], seat, d) for seat, d in deadlines.items()]
    registry = ScheduledJobRegistry(timers.TIMERS, connection=service.queue_redis)
    for job, deadline in zip(jobs, deadlines.values()):
        assert service.queue_redis.zscore(timers.DEADLINES, job) == pytest.approx(deadline)
        service.queue_redis.zrem(registry.key, job)  # the job is gone, as if a worker had taken it and died
        service.queue_redis.delete(Job.key_for(job))
    found = wait_for(lambda: timeouts(client, integrator, g["id"])[0], timeout=10)
    assert found, "the deadline of the lost job was never enforced"
    lateness = parse_time(found[0]["time"]) - deadlines[found[0]["data"]["seat"]]
    assert timers.SWEEP_GRACE <= lateness <= timers.SWEEP_GRACE + 3.0, lateness
    assert wait_for(lambda: not any(service.queue_redis.zscore(timers.DEADLINES, j) for j in jobs), timeout=5)


def test_deadlines_a_move_stored_but_never_scheduled_are_scheduled_by_the_workers(worker, client, integrator, service):
    # a move's append and its deadline jobs are two writes: Redis failing between them leaves the move
    # stored without deadlines; the workers' reconcile pass schedules them
    from rq import Worker

    assert wait_for(lambda: any(w.pid == worker.pid for w in Worker.all(connection=service.queue_redis)), timeout=10)
    schedule, service.scheduler = service.scheduler, None  # the deadline jobs are not written
    g = create(client, integrator, options={"turn_seconds": 1.0, "hands": 1})
    service.scheduler = schedule
    table = service.tables.table(g["id"], fresh=True)
    assert table["clock"] and not [
        j for j in service.queue_redis.zrangebyscore(timers.DEADLINES, "-inf", "+inf") if g["id"] in j.decode()
    ]
    found = wait_for(lambda: timeouts(client, integrator, g["id"])[0], timeout=15)
    assert found, "the deadline that was never scheduled was never enforced"
    deadline = table["clock"][str(found[0]["data"]["seat"])]["deadline"]
    assert parse_time(found[0]["time"]) - deadline <= RECONCILE_SECONDS + 3.0


def test_reconcile_schedules_only_what_is_missing(service):
    schedule, service.scheduler = service.scheduler, None
    gid = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"turn_seconds": 30, "hands": 1})["id"]
    untimed = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1})["id"]
    service.scheduler = schedule
    assert service.redis.sismember(RUNNING_TIMED, gid) and not service.redis.sismember(RUNNING_TIMED, untimed)
    assert gid in timers.reconcile(service)  # (and any other running game of this Redis left unscheduled)
    table = service.tables.table(gid, fresh=True)
    for seat, entry in table["clock"].items():
        assert (
            service.queue_redis.zscore(timers.DEADLINES, timers.job_id(gid, table["version"], seat, entry["deadline"]))
            is not None
        )
    assert gid not in timers.reconcile(service)  # scheduled now: nothing to do


def test_a_match_where_every_seat_stays_silent_finishes_by_timeouts(worker, client, integrator, service):
    g = create(
        client, integrator, players=["a", "b", "c", "d"], options={"turn_seconds": 0.3, "absent_after": 1, "hands": 2}
    )
    final = wait_for(lambda: (v := client.get(f"/games/{g['id']}").get_json())["finished"] and v, timeout=30, step=0.2)
    assert final, "the silent match did not finish"
    found, events = timeouts(client, integrator, g["id"])
    assert found and all(e["actor"] in ("worker", "system", "integrator") for e in events)
    assert sorted(final["absent"]) == [0, 1, 2, 3]
    replayed = tables.fold(events)
    assert replayed["version"] == final["version"]
    assert service.reads.state_view(g["id"], service.identity.viewer(None, None), replayed)["result"] == final["result"]


def test_views_show_deadlines_and_time_banks(client, integrator):
    g = create(client, integrator, options={"turn_seconds": 5, "bank_seconds": 20, "increment_seconds": 2})
    view = client.get(f"/games/{g['id']}").get_json()
    assert set(view["deadlines"]) == {str(s) for s in view["to_act"]}
    assert view["bank"] == {str(s): 20.0 for s in range(5)}
    seat = view["to_act"][0]
    deadline = parse_time(view["deadlines"][str(seat)])
    assert 24 <= deadline - parse_time(view["updated_at"]) <= 25.01  # turn time plus the bank
    toks = tokens(g)
    lm = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()
    assert lm["deadline"] == view["deadlines"][str(seat)]
    client.post(f"/games/{g['id']}/moves", json=lm["moves"][0], headers=bearer(toks[seat]))
    after = client.get(f"/games/{g['id']}").get_json()
    assert after["bank"][str(seat)] == 22.0  # moved within turn_seconds: bank kept, increment added


def test_timing_options_are_validated(client, integrator):
    r = client.post(
        "/games", json={"game": "dalmuti", "players": list("abcd"), "options": {"turn_seconds": -1}}, headers=integrator
    )
    assert r.status_code == 422 and "turn_seconds" in r.get_json()["detail"]


def test_a_new_worker_schedules_again_deadlines_lost_with_the_queues(service, redis_url):
    """Deadlines live in RQ's Redis; if its jobs are lost, a worker that starts arms every running
    game's clock again (job ids are per game, version and seat, so nothing fires twice)."""
    from rq import Queue
    from rq.registry import ScheduledJobRegistry

    from service.core.timers import TIMERS

    g = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1, "turn_seconds": 1.0})
    registry = ScheduledJobRegistry(queue=Queue(TIMERS, connection=service.queue_redis))
    ours = [j for j in registry.get_job_ids() if g["id"] in j]
    assert ours
    for job in ours:  # the queues' Redis lost them
        registry.remove(job, delete_job=True)
    version = service.tables.table(g["id"])["version"]
    proc = start_worker(redis_url)
    try:
        moved = wait_for(
            lambda: any(e["type"] == "TurnTimedOut" for e in service.store.read(g["id"], after=version)), 20
        )
    finally:
        kill_group(proc)
    assert moved, "the lost deadline was not enforced"
    timeouts = [e for e in service.store.read(g["id"], after=version) if e["type"] == "TurnTimedOut"]
    assert len({(e["data"]["seat"], e["version"]) for e in timeouts}) == len(timeouts)
