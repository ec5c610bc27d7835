"""A process whose cached table is a few events behind (moves made through another web worker)
catches up in the round trip that checks the head: the events after its version come with the head
and are folded onto the cached table, which is then the table a fold of the whole log gives."""

from __future__ import annotations

import random
from collections import Counter

import redis

from domain import table as tables
from service.core.identity import Viewer
from service.core.naipes import Naipes

from .helpers import wire_commands


def _moves(svc: Naipes, gid: str, count: int, rng: random.Random) -> None:
    for _ in range(count):
        table = svc.tables.table(gid)
        seat = rng.choice(svc.reads.state_view(gid, svc.identity.viewer(gid, None))["to_act"])
        module_moves = svc.reads.legal_moves(gid, Viewer("seat", seat=seat))["moves"]
        svc.moves.move(gid, seat, rng.choice(module_moves), if_match=table["version"])


def _counted(monkeypatch, client: redis.Redis) -> Counter:
    """What ``client`` (named for it) sends on the wire from now on."""
    name = client.get_connection_kwargs()["client_name"]
    return wire_commands(monkeypatch, lambda conn: conn.client_name == name)


def _named(redis_url: str) -> Naipes:
    return Naipes(redis.Redis.from_url(redis_url, client_name="counted"))


def test_a_table_a_few_events_behind_catches_up_in_the_one_round_trip(redis_url, monkeypatch):
    service = _named(redis_url)  # its commands are told apart on the wire by its name
    other = Naipes(redis.Redis.from_url(redis_url))  # another process's moves
    gid = service.games.create_game("dalmuti", list("abcde"), {"hands": 1})["id"]
    rng = random.Random(11)
    start = service.tables.table(gid)["version"]  # cached here
    _moves(other, gid, 3, rng)
    head = other.tables.table(gid)
    assert head["version"] > start

    sent = _counted(monkeypatch, service.redis)
    caught = service.tables.table(gid)
    assert sum(sent.values()) == 1 and sent["EVALSHA"] == 1, sent  # no snapshot read, no read of the log
    assert caught == head == tables.fold(list(other.store.iter_all(gid)))
    assert service.tables.cached(gid) == caught

    sent.clear()
    assert service.tables.table(gid) is caught  # current: the same round trip, nothing to fold
    assert sum(sent.values()) == 1, sent


def test_a_table_far_behind_is_read_from_the_snapshot(redis_url, monkeypatch):
    service = _named(redis_url)  # its commands are told apart on the wire by its name
    other = Naipes(redis.Redis.from_url(redis_url))
    gid = service.games.create_game("dalmuti", list("abcde"), {"hands": 1})["id"]
    rng = random.Random(12)
    service.tables.table(gid)
    monkeypatch.setattr(type(service.tables), "CATCH_UP", 2)
    _moves(other, gid, 5, rng)
    sent = _counted(monkeypatch, service.redis)
    caught = service.tables.table(gid)
    assert sent["GET"] == 1, sent  # the snapshot
    assert caught == other.tables.table(gid) == tables.fold(list(other.store.iter_all(gid)))


def test_a_log_that_does_not_continue_the_cached_table_is_not_folded_onto_it(service, redis_url):
    """The events after the cached version must point at the cached table's hash: a cached table of
    another history (a game id whose log was written anew, say) is dropped for the snapshot."""
    other = Naipes(redis.Redis.from_url(redis_url))
    gid = service.games.create_game("dalmuti", list("abcde"), {"hands": 1})["id"]
    rng = random.Random(13)
    cached = service.tables.table(gid)
    forged = {**cached, "hash": "0" * 64, "notes": cached["notes"] + 7}  # another history, another table
    service.tables._cache[gid] = forged
    _moves(other, gid, 2, rng)
    assert service.tables.table(gid) == other.tables.table(gid)
    assert service.tables.cached(gid)["notes"] == cached["notes"]
