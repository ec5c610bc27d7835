"""The event store against a real redis-server: atomic, versioned, chained appends."""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading

import pytest
import redis
from redis.crc import key_slot

from events.envelope import GENESIS, canonical, dumps, event_hash, seal_batch, verify_chain
from events.store import EventStore, VersionConflict, key


def _events(n: int, start: int = 0) -> list[dict]:
    return [{"type": "Thing", "data": {"i": start + i}, "private": {"0": {"secret": i}}} for i in range(n)]


def _gid() -> str:
    return secrets.token_hex(6)


def append(store: EventStore, gid: str, expected: int, n: int, **kw):
    head_v, head_h = store.head(gid)
    envs = seal_batch(gid, expected, head_h, _events(n, expected), actor="system", time="2026-01-01T00:00:00.000Z")
    return store.append(gid, expected, envs, **kw), envs


def test_versions_gapless_from_one_and_stream_ids_follow_versions(redis_client):
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 3)
    append(store, gid, 3, 2)
    ids = [i.decode() for i, _ in redis_client.xrange(key(gid, "events"))]
    assert ids == ["1-0", "2-0", "3-0", "4-0", "5-0"]
    assert [e["version"] for e in store.read(gid)] == [1, 2, 3, 4, 5]
    assert store.head(gid)[0] == 5
    assert redis_client.hget(key(gid, "head"), "version") == b"5"  # stored, not derived from XLEN


def test_stale_expected_version_is_refused_and_writes_nothing(redis_client):
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 2)
    envs = seal_batch(gid, 1, GENESIS, _events(3), actor="system", time="t")
    with pytest.raises(VersionConflict) as err:
        store.append(gid, 1, envs)
    assert err.value.current == 2
    assert redis_client.xlen(key(gid, "events")) == 2


def test_hash_chain_links_every_event(redis_client):
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 4)
    envs = store.read(gid)
    assert envs[0]["prev_hash"] == GENESIS
    for prev, cur in zip(envs, envs[1:]):
        assert cur["prev_hash"] == prev["hash"]
    body = {k: v for k, v in envs[2].items() if k != "hash"}
    assert envs[2]["hash"] == event_hash(envs[1]["hash"], body)
    assert verify_chain(envs)["ok"]


@pytest.mark.parametrize("tamper", ["data", "order", "delete"])
def test_any_edit_breaks_the_chain_at_the_first_changed_event(redis_client, tamper):
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 5)
    envs = store.read(gid)
    if tamper == "data":
        envs[2]["data"]["i"] = 99
        expected = 3
    elif tamper == "order":
        envs[1], envs[2] = envs[2], envs[1]
        expected = 2
    else:
        del envs[3]
        expected = 4
    check = verify_chain(envs)
    assert not check["ok"] and check["broken_at"] == expected, check


def test_concurrent_appends_at_one_version_exactly_one_wins(redis_client):
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 1)
    head = store.head(gid)
    wins, conflicts = [], []
    barrier = threading.Barrier(16)

    def worker(i):
        envs = seal_batch(gid, 1, head[1], [{"type": "Move", "data": {"who": i}}], actor=f"seat:{i}", time="t")
        barrier.wait()
        try:
            store.append(gid, 1, envs)
            wins.append(i)
        except VersionConflict:
            conflicts.append(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and len(conflicts) == 15
    envs = store.read(gid)
    assert [e["version"] for e in envs] == [1, 2] and verify_chain(envs)["ok"]


def test_idempotent_retry_returns_the_first_response_and_appends_nothing(redis_client):
    store, gid = EventStore(redis_client), _gid()
    first, _ = append(store, gid, 0, 1, idempotency_key="k1", response=b'{"answer":1}')
    assert first.version == 1
    again, _ = append(store, gid, 1, 1, idempotency_key="k1", response=b'{"answer":2}')
    assert again.replayed == b'{"answer":1}'
    assert store.head(gid)[0] == 1


def test_the_same_append_sent_again_is_answered_as_made_and_any_other_is_refused(redis_client):
    """A connection that lost an append's reply sends it again (redis-py's retry, the lane's new
    connection): that copy must not tell a client its stored move was refused."""
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 1)
    head = store.head(gid)
    mine = seal_batch(gid, 1, head[1], _events(2, 1), actor="seat:0", time="2026-01-01T00:00:01.000Z")
    assert store.append(gid, 1, mine).version == 3
    assert store.append(gid, 1, mine).version == 3  # the second copy: as made, nothing written
    assert redis_client.xlen(key(gid, "events")) == 3
    append(store, gid, 3, 1)  # the game goes on
    assert store.append(gid, 1, mine).version == 3  # a late copy still names its own version
    assert redis_client.xlen(key(gid, "events")) == 4 and store.head(gid)[0] == 4
    other = seal_batch(gid, 1, head[1], _events(2, 7), actor="seat:0", time="2026-01-01T00:00:01.000Z")
    with pytest.raises(VersionConflict) as err:  # another append at that version: refused, as ever
        store.append(gid, 1, other)
    assert err.value.current == 4
    # the same move sealed by another request (another time) is another append: refused
    later = seal_batch(gid, 1, head[1], _events(2, 1), actor="seat:0", time="2026-01-01T00:00:01.001Z")
    with pytest.raises(VersionConflict):
        store.append(gid, 1, later)
    assert verify_chain(store.read(gid))["ok"]


def test_an_append_with_its_own_key_is_known_by_its_key_not_by_its_bytes(redis_client):
    """Two imports of one log are the same bytes: the second, with a key of its own, is refused, while the
    first one's own copy sent again is answered as made."""
    store, gid = EventStore(redis_client), _gid()
    log = seal_batch(gid, 0, GENESIS, _events(3, 1), actor="integrator", time="2026-01-01T00:00:01.000Z")
    assert store.append(gid, 0, log, idempotency_key="import:first").version == 3
    assert store.append(gid, 0, log, idempotency_key="import:first").replayed is not None  # its own copy
    with pytest.raises(VersionConflict) as err:
        store.append(gid, 0, log, idempotency_key="import:second")
    assert err.value.current == 3
    assert store.append(gid, 0, log).version == 3  # with no key, the bytes tell a resent append, as above
    assert redis_client.xlen(key(gid, "events")) == 3


class _ReplyDropper:
    """A TCP relay to Redis that, when told, swallows the next reply and closes that connection: a
    reply lost on the wire after the server ran the command."""

    def __init__(self, host: str, port: int):
        self.upstream = (host, port)
        self.drop_next = threading.Event()
        self.dropped = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        try:
            while data := src.recv(65536):
                if replies and self.drop_next.is_set():
                    self.drop_next.clear()
                    self.dropped += 1
                    break
                dst.sendall(data)
        except OSError:
            pass
        for end in (src, dst):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()


def test_a_move_whose_reply_was_lost_is_not_reported_refused(redis_url):
    """End to end over the store's own connections: the server appends, the reply is lost, the
    connection's retry sends the append again, and the caller is told the append was made."""
    url = redis.connection.parse_url(redis_url)
    relay = _ReplyDropper(url.get("host", "127.0.0.1"), url["port"])
    client = redis.Redis(host="127.0.0.1", port=relay.port)
    try:
        store, gid = EventStore(client), _gid()
        assert store._lane is not None
        append(store, gid, 0, 1)  # the lane's connection is open and idle now
        head = store.head(gid)
        envs = seal_batch(gid, 1, head[1], _events(1, 1), actor="seat:0", time="2026-01-01T00:00:02.000Z")
        relay.drop_next.set()
        assert store.append(gid, 1, envs).version == 2
        assert relay.dropped == 1  # the first reply was lost: the answer came from the copy
        assert client.xlen(key(gid, "events")) == 2 and verify_chain(store.read(gid))["ok"]
    finally:
        client.close()
        relay.close()


def test_canonical_json_is_key_sorted_and_compact():
    assert canonical({"b": 1, "a": [1, {"d": 2, "c": "ñ"}]}) == '{"a":[1,{"c":"ñ","d":2}],"b":1}'.encode()
    assert dumps({"x": 1}) == b'{"x":1}'


def test_all_keys_of_a_game_share_one_hash_slot(redis_client):
    store, gid = EventStore(redis_client), _gid()
    append(store, gid, 0, 1, snapshot=b"{}", idempotency_key="x", response=b"{}")
    store.set_tokens(gid, {"abc": 0})
    names = store.game_keys(gid)
    assert len(names) >= 5
    assert len({key_slot(n.encode()) for n in names}) == 1
