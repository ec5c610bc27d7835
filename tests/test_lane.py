"""The event store's hot scripts go over connections of their own (events/lane.py): they must answer
as the client would, through a server that forgot its scripts, dropped the connection or answered
too late, and in a forked child."""

from __future__ import annotations

import multiprocessing
import time

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from events.lane import Lane
from events.store import EventStore

_ECHO = "return {KEYS[1], ARGV[1]}"
# busy for ARGV[1] microseconds, by the server's clock
_SLOW = """
local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start > tonumber(ARGV[1])
return 'slow'
"""


@pytest.fixture()
def lane_client(redis_url):
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


def test_a_script_answers_as_through_the_client_on_one_reused_connection(lane_client):
    lane = Lane(lane_client)
    echo = lane_client.register_script(_ECHO)
    for i in range(5):
        assert lane.run(echo, ["k{a}"], [i]) == echo(keys=["k{a}"], args=[i]) == [b"k{a}", str(i).encode()]
    assert len(lane._idle) == 1  # one caller at a time: one connection, back in the lane after each call
    assert lane.call("PING") in (b"PONG", "PONG", True)


def test_a_server_that_forgot_its_scripts_is_given_the_script_again(lane_client):
    lane = Lane(lane_client)
    echo = lane_client.register_script(_ECHO)
    assert lane.run(echo, ["k{a}"], ["x"]) == [b"k{a}", b"x"]
    lane_client.script_flush()
    assert lane_client.script_exists(echo.sha) == [False]
    assert lane.run(echo, ["k{a}"], ["y"]) == [b"k{a}", b"y"]
    assert lane_client.script_exists(echo.sha) == [True]


def test_a_dropped_connection_is_opened_again(lane_client):
    lane = Lane(lane_client)
    echo = lane_client.register_script(_ECHO)
    lane.run(echo, ["k{a}"], ["x"])
    killed = lane_client.client_kill_filter(_type="normal", skipme=True)
    assert killed >= 1  # the lane's idle connection among them
    assert lane.run(echo, ["k{a}"], ["y"]) == [b"k{a}", b"y"]


def test_a_reply_that_came_too_late_is_never_taken_for_the_next_one(redis_url):
    """A read that timed out leaves its reply on the wire: that connection must not serve again."""
    client = redis.Redis.from_url(redis_url, socket_timeout=0.1, retry=Retry(NoBackoff(), 0))
    try:
        lane = Lane(client)
        slow, echo = client.register_script(_SLOW), client.register_script(_ECHO)
        with pytest.raises(redis.TimeoutError):
            lane.run(slow, ["k{a}"], [400_000])
        time.sleep(0.5)  # the slow reply has arrived by now
        assert lane.run(echo, ["k{a}"], ["mine"]) == [b"k{a}", b"mine"]
    finally:
        client.close()


def _in_child(lane: Lane, script, queue) -> None:
    queue.put((len(lane._idle), lane.run(script, ["k{a}"], ["child"])))


def test_a_forked_child_opens_its_own_connections(lane_client):
    lane = Lane(lane_client)
    echo = lane_client.register_script(_ECHO)
    lane.run(echo, ["k{a}"], ["parent"])
    assert len(lane._idle) == 1
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_in_child, args=(lane, echo, queue))
    child.start()
    idle_in_child, answer = queue.get(timeout=30)
    child.join(30)
    assert child.exitcode == 0
    assert idle_in_child == 0 and answer == [b"k{a}", b"child"]
    assert lane.run(echo, ["k{a}"], ["parent again"]) == [b"k{a}", b"parent again"]  # the parent's still serves


def test_only_a_client_of_one_server_takes_a_lane(lane_client):
    assert EventStore(lane_client)._lane is not None
    assert not Lane.serves(object())


def test_pipelined_commands_answer_in_order_with_an_error_in_its_place(lane_client):
    lane = Lane(lane_client)
    lane_client.delete("lane{a}:n", "lane{a}:s")
    lane_client.set("lane{a}:s", "text")
    replies = lane.pipelined([("INCRBY", "lane{a}:n", 2), ("INCRBY", "lane{a}:s", 1), ("INCRBY", "lane{a}:n", 3)])
    assert replies[0] == 2 and replies[2] == 5
    assert isinstance(replies[1], redis.ResponseError)  # not an integer: refused, the next one still answered
    assert lane.call("GET", "lane{a}:n") == b"5"  # and the connection reads on from there


def test_the_bench_of_one_commands_cost_runs_both_ways():
    """bench/redis_commands.py (the figures docs/performance.md cites) measures each way, with and
    without gevent."""
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parent.parent / "bench" / "redis_commands.py"
    out = subprocess.run(
        [sys.executable, str(bench), "--commands", "50"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    rows = [line.split() for line in out.splitlines() if "EVALSHA," in line or "GET," in line]
    assert len(rows) == 8 and all(float(row[-2]) > 0 and float(row[-1]) > 0 for row in rows), out


def test_a_pool_of_another_kind_keeps_its_own_bounds(redis_url):
    """A blocking pool bounds its connections: the store leaves its commands to it."""
    client = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(redis_url, max_connections=2))
    try:
        assert not Lane.serves(client) and EventStore(client)._lane is None
    finally:
        client.close()
