"""Timed turns enforced by a real RQ worker process (with its scheduler) over real Redis: the
schedule (``naipes:deadlines``), its claims in batches, leases, and the one round trip of a move."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import redis
from rq import Queue

from domain import table as tables
from events.envelope import parse_time
from service.core import timers
from service.core.identity import Viewer
from service.core.listing import DUE, RUNNING_TIMED
from service.core.naipes import Naipes
from service.web.app import create_app
from workers.queues import RECONCILE_SECONDS

from .conftest import API_KEY, ROOT, bearer
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


@pytest.fixture()
def quiet(redis_url):
    """A database of the tests' Redis that only this test uses, with the service and a client over it:
    the games other tests left running (timed, their seats silent) are not there for the test's workers
    to enforce meanwhile, so the test measures its own deadline and not a backlog."""
    url = redis_url.rsplit("/", 1)[0] + "/8"
    client = redis.Redis.from_url(url)
    client.flushdb()
    svc = Naipes(client, api_keys=[API_KEY])
    timers.attach_scheduler(svc)
    yield url, svc, create_app(svc, rate_limit="off").test_client()
    client.flushdb()
    client.close()


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


def test_a_silent_seat_is_timed_out_within_two_seconds_of_its_deadline(quiet_worker, integrator):
    # a worker that is up (a worker started with the game may still be importing when a 1 s deadline
    # falls due on a busy machine), over a database with no other test's silent games to enforce
    _service, client = quiet_worker
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
    # (the move is the seat's own: in its private part)
    assert first["private"][str(first["data"]["seat"])]["move"]["type"] in (
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


@pytest.fixture()
def own_db(redis_url):
    """A database of the tests' Redis that nobody else uses: its schedule and queues are the test's."""
    client = redis.Redis.from_url(redis_url.rsplit("/", 1)[0] + "/9")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


def test_the_scheduler_claims_deadlines_when_due_many_to_a_job_and_again_when_a_lease_runs_out(own_db):
    d = timers.entry_id
    first, second = d("g1", 3, 0, 1000.0), d("g1", 3, 1, 1000.0)  # one game's seats: one job
    other, later = d("g2", 5, 2, 1000.05), d("g3", 4, 0, 1000.5)
    bot = d("g4", 7, 1, 1000.0, bot=True)
    own_db.zadd(
        timers.DEADLINES,
        {
            e: timers.score(e, parse)
            for e, parse in [(first, 1000.0), (second, 1000.0), (other, 1000.05), (later, 1000.5), (bot, 1000.0)]
        },
    )
    dispatch = timers.Dispatcher(own_db)
    queue, bots = Queue(timers.TIMERS, connection=own_db), Queue(timers.BOTS, connection=own_db)

    assert dispatch(now=1000.0 - timers.LEAD_SECONDS - 0.05) == 0  # nothing is handed out before its lead
    assert dispatch(now=1000.0) == 3  # those due by now + LEAD_SECONDS, in one job
    [job] = queue.get_jobs()
    assert job.func_name == "workers.jobs.enforce_deadlines" and job.args == ([first, second, other],)
    assert own_db.zscore(timers.INFLIGHT, first) == 1000.0 + timers.LEASE_SECONDS
    assert dispatch(now=1000.45) == 1 and queue.count == 2  # the next one, in a job of its own
    # two jobs wait in the queue: the claims wait too, whatever is due (a burst stays in the schedule)
    assert dispatch(now=1000.0 + timers.BOT_GRACE + 1) == 0
    assert own_db.zscore(timers.DEADLINES, bot) is not None
    queue.empty()
    # the first job never ran (its worker died): once its lease runs out its entries are handed out again
    assert dispatch(now=1000.0 + timers.LEASE_SECONDS - 0.01) == 0
    assert dispatch(now=1000.0 + timers.LEASE_SECONDS + 0.01) == 3
    assert queue.get_jobs()[0].args == ([first, second, other],)
    queue.empty()
    own_db.zrem(timers.INFLIGHT, first, second, other, later)  # as the jobs do when they are done
    # a bot's turn, queued at once by its append, is handed out again BOT_GRACE later (on the bots' queue)
    assert dispatch(now=1000.0 + timers.BOT_GRACE + 0.01) == 1
    [bot_job] = bots.get_jobs()
    assert bot_job.func_name == "workers.jobs.enforce_deadline" and bot_job.args == ("g4", 7, 1, 1000.0)
    # entries forgotten an hour overdue
    own_db.zadd(timers.DEADLINES, {d("g5", 1, 0, 10.0): 10.0})
    queue.empty()
    dispatch(now=10.0 + timers.FORGET_AFTER + 1)
    assert own_db.zscore(timers.DEADLINES, d("g5", 1, 0, 10.0)) is None


def test_a_claim_never_splits_a_games_deadlines(own_db, monkeypatch):
    monkeypatch.setattr(timers, "CLAIM", 2)
    seats = [timers.entry_id("g1", 3, seat, 1000.0) for seat in range(5)]
    other = timers.entry_id("g2", 4, 0, 1000.0)
    own_db.zadd(timers.DEADLINES, dict.fromkeys([*seats, other], 1000.0))
    assert timers.Dispatcher(own_db)(now=1000.0) == 5  # the five seats of g1, though a claim takes two
    assert Queue(timers.TIMERS, connection=own_db).get_jobs()[0].args == (seats,)
    assert own_db.zrange(timers.DEADLINES, 0, -1) == [other.encode()]


def test_a_game_whose_seats_all_run_out_at_once_is_timed_out_in_one_append_and_never_early(service):
    # Dalmuti's revolution question: every seat acts at once; their deadlines come together
    # two seconds: the check before the deadline must come before it on a busy machine too (0.4 s did not)
    gid = service.games.create_game("dalmuti", list("abcdef"), {"turn_seconds": 2, "hands": 1})["id"]
    table = service.tables.table(gid, fresh=True)
    acting = [int(s) for s, c in table["clock"].items() if c.get("deadline")]
    assert len(acting) > 1
    assert service.deadlines.enforce_due(gid, table["version"]) == 0  # before the deadline: nothing
    assert service.tables.table(gid, fresh=True)["version"] == table["version"]
    time.sleep(max(c["deadline"] for c in table["clock"].values()) - time.time() + 0.01)
    assert service.deadlines.enforce_due(gid, table["version"]) == len(acting)
    after = service.store.read(gid, after=table["version"])
    timed = [e for e in after if e["type"] == tables.TURN_TIMED_OUT]
    assert sorted(e["data"]["seat"] for e in timed) == sorted(acting)
    assert len({e["time"] for e in after}) == 1  # one append
    assert all(parse_time(e["time"]) >= table["clock"][str(e["data"]["seat"])]["deadline"] for e in timed)
    assert service.deadlines.enforce_due(gid, table["version"]) == 0  # again: stale, nothing


class CountingConnection(redis.connection.Connection):
    """A connection that counts what it sends: one count per round trip."""

    sent = 0

    def send_packed_command(self, command, check_health=True):
        CountingConnection.sent += 1
        return super().send_packed_command(command, check_health)


def test_a_timed_append_writes_its_deadlines_in_its_own_round_trip(redis_url):
    client = redis.Redis(connection_pool=redis.ConnectionPool.from_url(redis_url, connection_class=CountingConnection))
    svc = Naipes(client, api_keys=["k"])
    timers.attach_scheduler(svc)
    gid = svc.games.create_game("dalmuti", list("abcd"), {"turn_seconds": 0.3, "hands": 1})["id"]
    table = svc.tables.table(gid, fresh=True)
    old = [entry for _s, _d, entry in timers.deadline_jobs(gid, table)]
    assert all(client.zscore(timers.DEADLINES, e) is not None for e in old)
    time.sleep(max(c["deadline"] for c in table["clock"].values()) - time.time() + 0.01)
    CountingConnection.sent = 0
    assert svc.deadlines.enforce_due(gid, table["version"], table=table) > 0
    assert CountingConnection.sent == 1, "the append and its deadlines' writes are one round trip"
    new = svc.tables.cached(gid)
    fresh = timers.deadline_jobs(gid, new)
    assert fresh and all(client.zscore(timers.DEADLINES, e) == pytest.approx(d) for _s, d, e in fresh)
    assert not any(client.zscore(timers.DEADLINES, e) for e in old)  # the version left: dropped
    assert client.zscore(DUE, gid) == pytest.approx(min(d for _s, d, _e in fresh))
    client.close()


def test_a_refused_append_writes_no_deadline(service):
    from events.store import VersionConflict

    gid = service.games.create_game("dalmuti", list("abcd"), {"turn_seconds": 30, "hands": 1})["id"]
    table = service.tables.table(gid, fresh=True)
    first, second = [int(s) for s, c in table["clock"].items() if c.get("deadline")][:2]
    envs, new = service.appender.append_events(
        gid,
        table,
        service.appender.timeout_events(table, second, "deadline"),
        actor="worker",
        stamp="2030-01-01T00:00:00.000Z",
    )
    assert service.deadlines.enforce_deadline(gid, table["version"], first)  # another append comes first
    with pytest.raises(VersionConflict):
        service.appender.commit(gid, table, new, envs)
    winner = {e for _s, _d, e in timers.deadline_jobs(gid, service.tables.table(gid, fresh=True))}
    loser = {e for _s, _d, e in timers.deadline_jobs(gid, new)} - winner
    assert loser, "the refused append had deadlines of its own"
    assert not any(service.queue_redis.zscore(timers.DEADLINES, e) for e in loser)
    assert all(service.queue_redis.zscore(timers.DEADLINES, e) is not None for e in winner)
    old = [e for _s, _d, e in timers.deadline_jobs(gid, table)]
    assert not any(service.queue_redis.zscore(timers.DEADLINES, e) for e in old)


def test_a_running_worker_takes_over_from_the_killed_scheduler(quiet, integrator):
    # with two workers, killing the one whose scheduler holds the lock must not leave deadlines unenforced
    # until a restart: the other worker's watchdog frees the dead scheduler's lock and schedules
    url, _service, client = quiet
    first = start_worker(url)
    time.sleep(1.5)  # the first takes the scheduler lock
    second = start_worker(url)
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


@pytest.fixture()
def quiet_worker(quiet):
    """A worker over the quiet database, once it has registered (it re-arms every deadline as it starts:
    what a test then does to the deadlines is not undone): the service and a client over that database."""
    from rq import Worker

    url, service, client = quiet
    worker = start_worker(url)
    try:
        registered = lambda: any(w.pid == worker.pid for w in Worker.all(connection=service.queue_redis))  # noqa: E731
        assert wait_for(registered, timeout=10)
        yield service, client
    finally:
        kill_group(worker)


def test_a_deadline_whose_batch_was_lost_is_still_enforced(quiet_worker, integrator):
    # a batch claimed and never run (the worker died under it, or RQ lost the job with Redis restarting):
    # its lease runs out and the scheduler hands its entries out again
    service, client = quiet_worker
    g = create(client, integrator, options={"turn_seconds": 1.0, "hands": 1})
    table = service.tables.table(g["id"], fresh=True)
    pending = timers.deadline_jobs(g["id"], table)
    deadline = min(d for _s, d, _e in pending)
    for _seat, _deadline, entry in pending:  # claimed at the deadline by a scheduler that then died
        pipe = service.queue_redis.pipeline()
        pipe.zrem(timers.DEADLINES, entry)
        pipe.zadd(timers.INFLIGHT, {entry: deadline + timers.LEASE_SECONDS})
        assert pipe.execute()[0] == 1, "the scheduler claimed it first"
    found = wait_for(lambda: timeouts(client, integrator, g["id"])[0], timeout=15)
    assert found, "the deadlines of the lost batch were never enforced"
    lateness = parse_time(found[0]["time"]) - deadline
    assert timers.LEASE_SECONDS - 0.2 <= lateness <= timers.LEASE_SECONDS + 3.0, lateness
    entries = [e for _s, _d, e in pending]
    assert wait_for(lambda: not any(service.queue_redis.zscore(timers.INFLIGHT, e) for e in entries), timeout=5)


def test_deadlines_a_move_stored_but_never_scheduled_are_scheduled_by_the_workers(quiet_worker, integrator):
    # a move's append and its deadline jobs are two writes: Redis failing between them leaves the move
    # stored without deadlines; the workers' reconcile pass schedules them.  On a database of its own: the
    # pass looks at the most overdue games first, and the timed games other tests left silent would be
    # looked at (and enforced) before this one, so the lateness measured would be their backlog's
    service, client = quiet_worker
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
            service.queue_redis.zscore(
                timers.DEADLINES, timers.entry_id(gid, table["version"], seat, entry["deadline"])
            )
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


def _wait_past(moment: float) -> None:
    while time.time() <= moment + 0.02:
        time.sleep(0.02)


def test_a_move_after_its_seats_deadline_is_refused_and_the_seat_timed_out_then_and_there(client, integrator):
    """No worker runs here.  A move that comes after its seat's deadline (its turn, then its bank) is
    refused, 409 turn-expired, and the seats whose time is up are timed out by the refusal itself, as a
    worker would: no move is ever stored after its seat's deadline.  A move after the turn's time but
    within the bank is a move in time, its overrun charged to the bank."""
    g = create(client, integrator, options={"turn_seconds": 0.2, "bank_seconds": 0.6, "hands": 1})
    toks = tokens(g)
    view = client.get(f"/games/{g['id']}").get_json()
    seat = view["to_act"][0]
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"][0]
    _wait_past(parse_time(view["updated_at"]) + 0.25)  # past the turn's 0.2 s, within the bank's 0.6
    r = client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(toks[seat]))
    assert r.status_code == 201, r.get_json()
    after = client.get(f"/games/{g['id']}").get_json()
    assert 0.3 <= after["bank"][str(seat)] < 0.6  # the overrun past the turn's time charged

    late = [s for s in after["to_act"] if s != seat][0]
    deadline = after["deadlines"][str(late)]
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[late])).get_json()["moves"][0]
    _wait_past(parse_time(deadline))
    r = client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(toks[late]))
    problem = r.get_json()
    assert r.status_code == 409 and problem["type"].endswith(":turn-expired"), problem
    assert problem["deadline"] == deadline and f"seat {late}" in problem["detail"]
    found, events = timeouts(client, integrator, g["id"])
    assert late in [e["data"]["seat"] for e in found]  # timed out by the refusal, no worker running
    assert all(e["actor"] == "worker" for e in found)
    moved_late = [
        e
        for e in events
        if e["actor"] == f"seat:{late}" and parse_time(e["time"]) > parse_time(deadline) and e["version"] > 1
    ]
    assert not moved_late
    assert client.get(f"/games/{g['id']}").get_json()["version"] == events[-1]["version"]


def test_timing_options_are_validated(client, integrator):
    r = client.post(
        "/games", json={"game": "dalmuti", "players": list("abcd"), "options": {"turn_seconds": -1}}, headers=integrator
    )
    assert r.status_code == 422 and "turn_seconds" in r.get_json()["detail"]


def test_a_new_worker_schedules_again_deadlines_lost_with_the_queues(service, redis_url):
    """The schedule lives in RQ's Redis; if its entries are lost, a worker that starts arms every running
    game's clock again (entries are per game, version and seat, so nothing fires twice)."""
    g = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1, "turn_seconds": 1.0})
    ours = [e for _s, _d, e in timers.deadline_jobs(g["id"], service.tables.table(g["id"]))]
    assert ours and all(service.queue_redis.zscore(timers.DEADLINES, e) is not None for e in ours)
    service.queue_redis.zrem(timers.DEADLINES, *ours)  # the queues' Redis lost them
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


def test_the_first_append_after_redis_forgot_the_scripts_still_writes_its_deadlines(service):
    # a restarted Redis has no script loaded: the store's append runs its script again after the
    # pipeline (whose deadline writes then ran before it); the entries are written all the same
    service.redis.script_flush()
    gid = service.games.create_game("dalmuti", list("abcd"), {"turn_seconds": 30, "hands": 1})["id"]
    pending = timers.deadline_jobs(gid, service.tables.table(gid, fresh=True))
    assert pending and all(service.queue_redis.zscore(timers.DEADLINES, e) is not None for _s, _d, e in pending)
    assert service.redis.zscore(DUE, gid) == pytest.approx(min(d for _s, d, _e in pending))
    # a move after another restart: the entries of the version left go, the new version's come
    service.redis.script_flush()
    table = service.tables.table(gid, fresh=True)
    seat = service.reads.state_view(gid, service.identity.viewer(gid, None))["to_act"][0]
    service.moves.move(gid, seat, service.reads.legal_moves(gid, Viewer("seat", seat=seat))["moves"][0])
    moved = service.tables.table(gid, fresh=True)
    assert moved["version"] > table["version"]
    later = timers.deadline_jobs(gid, moved)
    assert later and all(service.queue_redis.zscore(timers.DEADLINES, e) is not None for _s, _d, e in later)
    gone = {e for _s, _d, e in pending} - {e for _s, _d, e in later}
    assert gone and all(service.queue_redis.zscore(timers.DEADLINES, e) is None for e in gone)
    assert service.redis.zscore(DUE, gid) == pytest.approx(min(d for _s, d, _e in later))


def test_a_forgotten_deadline_script_that_fails_again_does_not_fail_the_stored_move(service, monkeypatch, caplog):
    """The deadline writes are not part of the append: when Redis had forgotten their script and running
    it again fails too, the move stands, and its DUE mark (written beside it) sends the workers'
    reconcile pass to write the deadlines."""
    gid = service.games.create_game("dalmuti", list("abcd"), {"turn_seconds": 30, "hands": 1})["id"]
    sha = service.scheduler._in_append

    def refused(**_kwargs):
        raise redis.exceptions.ConnectionError("Connection reset by peer")

    monkeypatch.setitem(service.store._beside, sha, refused)
    service.redis.script_flush()
    seat = service.reads.state_view(gid, service.identity.viewer(gid, None))["to_act"][0]
    before = service.tables.table(gid, fresh=True)["version"]
    made = service.moves.move(gid, seat, service.reads.legal_moves(gid, Viewer("seat", seat=seat))["moves"][0])
    assert made["version"] > before == made["version"] - len(made["events"])
    assert service.tables.table(gid, fresh=True)["version"] == made["version"]
    assert "beside the append of game" in caplog.text and "Connection reset by peer" in caplog.text
    assert service.redis.zscore(DUE, gid) is not None  # the reconcile pass's mark


def test_the_timers_role_runs_its_worker_processes_and_they_stop_with_the_first(redis_url, monkeypatch):
    from rq import Worker

    from workers.__main__ import processes

    monkeypatch.delenv("NAIPES_TIMER_WORKERS", raising=False)
    assert processes(["timers"]) == 2 and processes(["bots"]) == 1 and processes([]) == 1
    monkeypatch.setenv("NAIPES_TIMER_WORKERS", "3")
    assert processes(["timers"]) == 3
    monkeypatch.setenv("NAIPES_TIMER_WORKERS", "0")
    with pytest.raises(SystemExit):
        processes(["timers"])
    monkeypatch.delenv("NAIPES_TIMER_WORKERS")
    client = redis.Redis.from_url(redis_url)
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT), "NAIPES_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "workers", "timers"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def ours():
            return [
                w
                for w in Worker.all(connection=client)
                if timers.TIMERS in w.queue_names() and (w.pid == proc.pid or _parent(w.pid) == proc.pid)
            ]

        assert wait_for(lambda: len(ours()) == 2, timeout=20), "the timers' role runs two workers"
        pids = [w.pid for w in ours()]
        proc.send_signal(signal.SIGTERM)  # as the start command stops it
        proc.wait(30)
        assert wait_for(lambda: not any(_alive(pid) for pid in pids), timeout=20), "a worker outlived the first"
    finally:
        kill_group(proc)
        client.close()


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
