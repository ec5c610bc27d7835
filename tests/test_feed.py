"""A process follows the games of its streams on one Redis connection (events/feed.py): every append is
published, and a game's reader (service/web/fanout.py) folds what is pushed to it.  Pub/sub keeps
nothing for a connection that was not there: a reader that starts, or whose connection was cut, must
still see every event once and in order, from the log."""

from __future__ import annotations

import multiprocessing
import random
import time

import pytest
import redis

from events.envelope import GENESIS, dumps, seal, seal_batch
from events.feed import Feed, channel
from events.store import EventStore
from service.core.naipes import Naipes
from service.web import fanout as fanouts

from .helpers import create, tokens


@pytest.fixture()
def mover(redis_url):
    """Another process's application: the moves come from there, as from another web worker."""
    client = redis.Redis.from_url(redis_url, client_name="mover")
    yield Naipes(client)
    client.close()


def one_move(svc: Naipes, gid: str, toks: dict[int, str], rng: random.Random) -> None:
    seat = rng.choice(svc.reads.state_view(gid, svc.identity.viewer(gid, None))["to_act"])
    move = rng.choice(svc.reads.legal_moves(gid, svc.identity.viewer(gid, toks[seat]))["moves"])
    svc.moves.move(gid, seat, move, if_match=svc.tables.table(gid)["version"])


def reaches(hub: fanouts.Hub, version: int, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while hub.head.version < version:
        assert hub.failed is None, hub.failed
        assert time.monotonic() < deadline, f"the reader of {hub.game_id} is at {hub.head.version}, not {version}"
        hub.wait(hub.head.version, 0.05)


def in_order(hub: fanouts.Hub) -> list[int]:
    return [e["version"] for e in hub.head.recent]


def subscribers(client: redis.Redis, gid: str) -> int:
    return client.pubsub_numsub(channel(gid))[0][1]


def followed(client, service: Naipes, integrator: dict, mover: Naipes, rng: random.Random):
    """A new game, its reader in a fan-out of the test's own, and one move of another process's that the
    reader has folded: (fan-out, game, hub)."""
    fan = fanouts.Fanout()
    g = create(client, integrator)
    hub = fan.follow(service, g["id"])
    one_move(mover, g["id"], tokens(g), rng)
    reaches(hub, mover.tables.table(g["id"])["version"])
    return fan, g, hub


def envelope(game_id: str, version: int, prev: str) -> dict:
    return seal(game_id, version, prev, {"type": "noted", "data": {"n": version}}, actor="system", time="t")


def test_an_append_reaches_its_follower_as_one_batch_of_what_the_log_holds(redis_client, redis_url):
    store = EventStore(redis_client)
    got: list = []
    store.feed.follow("f1", got.append)
    deadline = time.monotonic() + 5
    while not got:  # the subscription holds: the follower is told to read the log
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert got == [None]
    batch = seal_batch("f1", 0, GENESIS, [{"type": "noted", "data": {"n": n}} for n in range(3)], actor="a", time="t")
    other = redis.Redis.from_url(redis_url)
    EventStore(other).append("f1", 0, batch)  # from another process's store
    other.close()
    while len(got) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert got[1] == store.read("f1") == batch  # one message: the three events, as stored
    store.feed.leave("f1", got.append)
    while subscribers(redis_client, "f1"):
        assert time.monotonic() < deadline, "the channel is still subscribed after its follower left"
        time.sleep(0.01)


def test_a_process_follows_many_games_on_one_connection(client, integrator, mover, redis_url):
    """Forty games followed in this process: one connection subscribed to the forty channels (a blocking
    read per game would hold forty), every move of every game pushed to its reader, and no subscription
    left once the streams are gone."""
    rng = random.Random(11)
    fan = fanouts.Fanout()
    games = [create(client, integrator) for _ in range(40)]
    named = redis.Redis.from_url(redis_url, client_name="follower")  # its connections told apart by name
    service = Naipes(named)

    def mine(**kind) -> list[dict]:
        return [c for c in named.client_list(**kind) if c["name"] == "follower"]

    hubs = [fan.follow(service, g["id"]) for g in games]
    for g in games:
        for _ in range(3):
            one_move(mover, g["id"], tokens(g), rng)
    for g, hub in zip(games, hubs, strict=True):
        reaches(hub, mover.tables.table(g["id"])["version"])
    assert fan.hubs() == 40
    assert service.store.feed.following() == 40
    assert [int(c["sub"]) for c in mine(_type="pubsub")] == [40]
    assert not [c for c in mine() if "b" in c["flags"]], "a connection blocked on a game's log"
    assert len(mine()) < 10, "a connection per game"
    for hub in hubs:
        fan.leave(hub)
    deadline = time.monotonic() + fanouts.WAIT_SECONDS + 5
    while fan.hubs() or any(subscribers(named, g["id"]) for g in games):
        assert time.monotonic() < deadline, "readers or subscriptions outlived their streams"
        time.sleep(0.05)
    named.close()


def test_moves_made_while_the_feed_was_cut_reach_the_reader_once_and_in_order(client, service, integrator, mover):
    """The feed's connection is killed and moves are made at once, before it is back: their messages
    are lost with it, and the reader reads them from the log when the subscription holds again."""
    rng = random.Random(5)
    fan, g, hub = followed(client, service, integrator, mover, rng)
    connects = service.store.feed.connects
    for _ in range(3):
        assert service.store.redis.client_kill_filter(_type="pubsub") >= 1
        for _ in range(4):
            one_move(mover, g["id"], tokens(g), rng)
        head = mover.tables.table(g["id"])["version"]
        reaches(hub, head)
        assert in_order(hub) == list(range(in_order(hub)[0], head + 1))
    assert service.store.feed.connects >= connects + 3
    fan.leave(hub)


def test_a_reader_started_just_before_a_move_misses_nothing(client, service, integrator, mover):
    """A reader's table is read, then its subscription is made: a move landing between the two, or
    while the subscription is on its way, is in the log when the subscription holds."""
    rng = random.Random(9)
    g = create(client, integrator)
    for _ in range(15):
        fan = fanouts.Fanout()
        hub = fan.follow(service, g["id"])
        one_move(mover, g["id"], tokens(g), rng)  # at once, racing the subscription
        reaches(hub, mover.tables.table(g["id"])["version"])
        fan.leave(hub)


def test_an_append_that_published_nothing_is_seen_at_the_readers_next_look_and_it_ends_with_its_streams(
    client, service, integrator, mover, monkeypatch
):
    """A writer that publishes nothing (a process of an earlier release, during an upgrade) is caught up
    with at the reader's look at the log after SAFETY_SECONDS quiet; a reader whose last stream goes
    ends then, not at its next look."""
    monkeypatch.setattr(fanouts, "SAFETY_SECONDS", 1.5)
    rng = random.Random(11)
    fan, g, hub = followed(client, service, integrator, mover, rng)
    mover.store.feed = None  # its appends publish nothing from here
    one_move(mover, g["id"], tokens(g), rng)
    head = mover.tables.table(g["id"])["version"]
    time.sleep(0.5)
    assert hub.head.version < head, "not published, yet pushed"
    reaches(hub, head, seconds=fanouts.SAFETY_SECONDS + 2)
    monkeypatch.setattr(fanouts, "SAFETY_SECONDS", 60.0)
    hub.nudge()  # (the reader's wait now runs on the long look)
    time.sleep(0.2)
    left = time.monotonic()
    fan.leave(hub)
    while fan.hubs() or subscribers(service.store.redis, g["id"]):
        assert time.monotonic() - left < 3, "the reader outlived its last stream"
        time.sleep(0.02)


def test_a_reader_catching_up_in_many_reads_does_not_wake_the_streams_for_each(
    client, service, integrator, mover, monkeypatch
):
    """The feed's word to read anew (a subscription made again, a token changed) wakes every stream of
    the game to look at its credential; a backlog longer than one read is read on without saying so
    again."""
    monkeypatch.setattr(fanouts, "BATCH", 3)
    rng = random.Random(13)
    fan, g, hub = followed(client, service, integrator, mover, rng)
    mover.store.feed = None  # its appends publish nothing: the reader finds them in the log
    before = hub.head.version
    for _ in range(10):
        one_move(mover, g["id"], tokens(g), rng)
    head = mover.tables.table(g["id"])["version"]
    told = hub.told
    assert service.store.redis.client_kill_filter(_type="pubsub") >= 1  # the feed says once: read anew
    reaches(hub, head)
    assert head - before >= 10  # (caught up in four reads at least)
    assert hub.told == told + 1
    fan.leave(hub)


def test_a_forged_message_on_a_channel_does_not_reach_the_streams(client, service, integrator, mover):
    """A message that is not a batch of the game's events (or is one out of turn) sends the reader to the
    log: what the streams show is what the log holds."""
    rng = random.Random(2)
    fan = fanouts.Fanout()
    g = create(client, integrator)
    hub = fan.follow(service, g["id"])
    version = mover.tables.table(g["id"])["version"]
    reaches(hub, version)
    mover.store.redis.publish(channel(g["id"]), b"not json")
    far = envelope(g["id"], version + 5, "0" * 64)
    mover.store.redis.publish(channel(g["id"]), dumps(far))
    one_move(mover, g["id"], tokens(g), rng)
    reaches(hub, mover.tables.table(g["id"])["version"])
    assert hub.head.recent == tuple(mover.store.read(g["id"], hub.head.recent[0]["version"] - 1))
    fan.leave(hub)


def _in_child(feed: Feed, queue) -> None:
    got: list = []
    feed.follow("forked", got.append)
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        time.sleep(0.01)
    queue.put((got, feed.connects))


def test_a_forked_child_subscribes_on_a_connection_of_its_own(redis_client):
    store = EventStore(redis_client)
    parent: list = []
    store.feed.follow("parent", parent.append)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_in_child, args=(store.feed, queue), daemon=True)
    child.start()
    try:
        got, connects = queue.get(timeout=30)
        child.join(30)
    finally:
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert got == [None] and connects == 1  # its own connection, its own subscription
    assert store.feed.following() == 1  # the parent's follower is the parent's alone
    store.feed.leave("parent", parent.append)


def test_only_a_client_of_one_server_carries_a_feed():
    with pytest.raises(ValueError, match="Cluster"):
        Feed(object())


def test_a_long_poll_waits_longer_than_the_redis_socket_timeout(client, integrator, redis_url):
    """``GET /games/{id}/events?wait=`` allows up to 30 s, and redis-py's connections time a read out
    after 5 s (its default): a long-poll waits on the game's reader, and a reader that blocks on the
    log (on a Redis Cluster) makes its wait of reads shorter than that."""
    g = create(client, integrator)
    version = client.get(f"/games/{g['id']}").get_json()["version"]
    t0 = time.monotonic()
    r = client.get(f"/games/{g['id']}/events?after={version}&wait=6", headers=integrator)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["events"] == [] and 6 <= time.monotonic() - t0 < 9
    short = EventStore(redis.Redis.from_url(redis_url, socket_timeout=1))  # a shorter timeout in the URL
    t0 = time.monotonic()
    assert short.read_new(g["id"], version, 10, 3000) == []  # a blocking read below it: empty, no error
    assert time.monotonic() - t0 < 1


def test_an_append_the_server_refuses_to_publish_writes_nothing(redis_client, redis_url):
    """A Redis user whose ACL leaves out the channels cannot publish: the append fails, and the script
    has written nothing (it publishes before its first write) instead of a move stored but refused."""
    redis_client.execute_command("ACL", "SETUSER", "nochannels", "on", ">pw", "~naipes:*", "+@all", "resetchannels")
    try:
        host, port = redis_url.removeprefix("redis://").split("/")[0].split(":")
        limited = redis.Redis(host=host, port=int(port), username="nochannels", password="pw")
        batch = seal_batch("acl1", 0, GENESIS, [{"type": "noted", "data": {}}], actor="a", time="t")
        with pytest.raises(redis.exceptions.ResponseError, match="(?i)publish|channel|permission"):
            EventStore(limited).append("acl1", 0, batch)
        assert redis_client.xlen("naipes:{acl1}:events") == 0
        assert redis_client.hget("naipes:{acl1}:head", "version") is None
        # and so does a fresh seat token (the streams of the earlier one would not be told to end)
        gid = Naipes(redis_client).games.create_game("dalmuti", list("abcd"), {"hands": 1})["id"]
        held = redis_client.hgetall(f"naipes:{{{gid}}}:auth")
        with pytest.raises(redis.exceptions.ResponseError, match="(?i)publish|channel|permission"):
            Naipes(limited).seats.seat_token(gid, 0)
        assert redis_client.hgetall(f"naipes:{{{gid}}}:auth") == held
        limited.close()
    finally:
        redis_client.execute_command("ACL", "DELUSER", "nochannels")
