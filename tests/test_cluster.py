"""The store and the application on a three-master Redis Cluster (loopback ports).

Every script must touch keys of one hash slot: a key outside the game's slot
would make the cluster refuse the script with CROSSSLOT, and a multi-key
transaction across slots is refused by the client.  The store tests of
test_store.py run here again, over the cluster client, and a whole Dalmuti
game is played through the application and the HTTP routes.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from redis.crc import key_slot

from events.envelope import verify_chain
from events.store import EventStore, key
from service.core.naipes import Naipes
from service.core.timers import attach_scheduler
from service.web.app import create_app

from . import test_store
from .cluster import LocalCluster
from .conftest import API_KEY, ROOT, bearer
from .helpers import create, fresh_window, play_http
from .test_timers import kill_group, wait_for
from .test_tournaments import create_tournament, play_tournament


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    running = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield running
    running.stop()


@pytest.fixture()
def cluster_client(cluster):
    client = cluster.client()
    yield client
    client.close()


def test_the_cluster_has_three_masters_sharing_the_slots(cluster_client):
    masters = {n for n, info in cluster_client.cluster_nodes().items() if "master" in info["flags"]}
    assert len(masters) == 3
    # games spread over the masters: the test exercises more than one node
    nodes = {cluster_client.get_node_from_key(key(f"g{i}", "head")).name for i in range(30)}
    assert len(nodes) == 3


STORE_TESTS = [
    (test_store.test_versions_gapless_from_one_and_stream_ids_follow_versions, {}),
    (test_store.test_stale_expected_version_is_refused_and_writes_nothing, {}),
    (test_store.test_hash_chain_links_every_event, {}),
    (test_store.test_any_edit_breaks_the_chain_at_the_first_changed_event, {"tamper": "data"}),
    (test_store.test_any_edit_breaks_the_chain_at_the_first_changed_event, {"tamper": "order"}),
    (test_store.test_any_edit_breaks_the_chain_at_the_first_changed_event, {"tamper": "delete"}),
    (test_store.test_concurrent_appends_at_one_version_exactly_one_wins, {}),
    (test_store.test_idempotent_retry_returns_the_first_response_and_appends_nothing, {}),
    (test_store.test_all_keys_of_a_game_share_one_hash_slot, {}),
]


@pytest.mark.parametrize(
    ("check", "kwargs"),
    STORE_TESTS,
    ids=[f"{f.__name__}{'-' + '-'.join(k.values()) if k else ''}" for f, k in STORE_TESTS],
)
def test_store_on_the_cluster(check, kwargs, cluster_client):
    check(cluster_client, **kwargs)


def test_a_conflicting_append_is_refused_on_the_cluster(cluster_client):
    store = EventStore(cluster_client)
    gid = "conflict-on-cluster"
    first, _ = test_store.append(store, gid, 0, 2)
    assert first.version == 2
    with pytest.raises(test_store.VersionConflict):
        test_store.append(store, gid, 1, 1)
    assert [e["version"] for e in store.read(gid)] == [1, 2]


@pytest.fixture()
def cluster_service(cluster_client, redis_client):
    """Games on the cluster; RQ's queues on a single Redis (RQ's keys span hash slots)."""
    svc = Naipes(cluster_client, api_keys=[API_KEY], queue_client=redis_client)
    attach_scheduler(svc)
    return svc


@pytest.fixture()
def cluster_worker(cluster, redis_url):
    """A real RQ worker process: games through REDIS_URL (the cluster), queues on NAIPES_QUEUE_URL."""
    env = {
        **os.environ,
        "REDIS_URL": f"redis+cluster://127.0.0.1:{cluster.ports[0]}/0",
        "NAIPES_QUEUE_URL": redis_url,
        "PYTHONPATH": str(ROOT),
        "NAIPES_LOG_LEVEL": "WARNING",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "workers"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    yield proc
    kill_group(proc)


def test_a_whole_dalmuti_game_through_the_api_on_the_cluster(cluster_service, cluster_client):
    app = create_app(cluster_service, rate_limit="off")  # limits have their own tests
    app.config["TESTING"] = True
    client = app.test_client()
    integrator = bearer(API_KEY)
    g = create(client, integrator, players=["ana", "bea", "carl", "dani"], options={"hands": 1})
    final = play_http(client, g, random.Random(11))
    assert final["finished"]
    audit = client.get(f"/games/{g['id']}/audit", headers=integrator).get_json()
    assert audit["chain"]["ok"] and audit["version"] == final["version"] > 10
    # the log read back from the node that owns the game's slot verifies too
    assert verify_chain(EventStore(cluster_client).read(g["id"]))["ok"]
    slots = {key_slot(k.encode()) for k in cluster_service.store.game_keys(g["id"])}
    assert len(slots) == 1
    listed = client.get("/games?status=finished", headers=integrator).get_json()
    assert g["id"] in {row["id"] for row in listed["games"]}
    # an idempotent retry on the cluster returns the first answer
    g2 = create(client, integrator, players=["ana", "bea", "carl", "dani"], options={"hands": 1})
    view = client.get(f"/games/{g2['id']}").get_json()
    seat = view["to_act"][0]
    tok = {s["seat"]: s["token"] for s in g2["seats"]}[seat]
    move = client.get(f"/games/{g2['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    headers = {**bearer(tok), "Idempotency-Key": "retry-1"}
    first = client.post(f"/games/{g2['id']}/moves", json=move, headers=headers)
    again = client.post(f"/games/{g2['id']}/moves", json=move, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json()["replayed"] and again.get_json()["version"] == first.get_json()["version"]
    assert client.get(f"/games/{g2['id']}").get_json()["version"] == first.get_json()["version"]


def test_rate_limits_count_in_the_cluster(cluster_service):
    app = create_app(cluster_service, rate_limit="3 per minute")
    client = app.test_client()
    fresh_window(60)
    codes = [client.get("/games", headers=bearer(API_KEY)).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


def test_a_real_worker_enforces_deadlines_of_games_on_the_cluster(cluster_service, cluster_worker):
    """The worker process reaches the games through the cluster client and its
    queues through the single Redis: a timed game is moved by deadlines alone."""
    g = cluster_service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1, "turn_seconds": 0.3})
    timed_out = wait_for(
        lambda: (
            [e for e in cluster_service.store.read(g["id"]) if e["type"] == "TurnTimedOut"]
            and cluster_service.tables.table(g["id"], fresh=True)["version"] > 8
        ),
        30,
    )
    assert timed_out, "no deadline was enforced"
    events = cluster_service.store.read(g["id"])
    assert {e["actor"] for e in events if e["type"] == "TurnTimedOut"} == {"worker"}
    assert verify_chain(events)["ok"]


def test_a_tournament_runs_on_the_cluster(cluster_service, cluster_worker):
    """The tournament worker code on the cluster: pairs, creates games, records results, ends."""
    app = create_app(cluster_service, rate_limit="off")
    client = app.test_client()
    integrator = bearer(API_KEY)
    players = [f"c{i}" for i in range(8)]
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
    play_tournament(client, integrator, t["id"], set(players), random.Random(5))
    standings = client.get(f"/tournaments/{t['id']}/standings").get_json()["standings"]
    assert sorted(row["player"] for row in standings) == sorted(players)
    assert client.get(f"/tournaments/{t['id']}/events").get_json()["chain"]["ok"]


def test_deadlines_are_scheduled_and_enforced_on_the_cluster(cluster_service):
    """The deadline's code path (Deadlines.enforce_deadline) on the cluster; its entry is written
    into the schedule on RQ's Redis after the append."""
    g = cluster_service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1, "turn_seconds": 30})
    table = cluster_service.tables.table(g["id"])
    seat = next(int(s) for s, c in table["clock"].items() if c.get("deadline"))
    from service.core.timers import DEADLINES, entry_id

    scheduled = entry_id(g["id"], table["version"], seat, table["clock"][str(seat)]["deadline"])
    assert cluster_service.queue_redis.zscore(DEADLINES, scheduled) is not None
    assert cluster_service.deadlines.enforce_deadline(g["id"], table["version"], seat) is True
    assert cluster_service.deadlines.enforce_deadline(g["id"], table["version"], seat) is False  # fired twice: nothing
    events = cluster_service.store.read(g["id"], after=table["version"])
    assert events[0]["type"] == "TurnTimedOut" and events[0]["actor"] == "worker"
    assert verify_chain(cluster_service.store.read(g["id"]))["ok"]


def test_a_games_reader_on_the_cluster_blocks_on_its_log(cluster_service, cluster_client):
    """A cluster would carry every published message to every node: the store publishes nothing there,
    and a game's reader (service/web/fanout.py) follows the game by blocking reads of its stream."""
    from service.web import fanout as fanouts

    from .test_feed import one_move, reaches

    assert cluster_service.store.feed is None
    app = create_app(cluster_service, rate_limit="off")
    client = app.test_client()
    g = create(client, bearer(API_KEY), players=["ana", "bea", "carl", "dani"], options={"hands": 1})
    fan = fanouts.Fanout()
    hub = fan.follow(cluster_service, g["id"])
    rng = random.Random(4)
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    for _ in range(6):
        one_move(cluster_service, g["id"], toks, rng)
    head = cluster_service.tables.table(g["id"])["version"]
    reaches(hub, head)
    assert [e["version"] for e in hub.head.recent][-6:] == list(range(head - 5, head + 1))
    fan.leave(hub)
