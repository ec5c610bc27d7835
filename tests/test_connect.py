"""The service's Redis clients wait a bounded time for a reply (events/connect.py): a Redis that
stops answering fails the request that waits on it, instead of holding it (and whatever waits
behind it: a rate-limit count's adds, a worker's slot) for as long as the connection lives."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import redis

from events.connect import SOCKET_TIMEOUT, connect
from service.bootstrap import build


@pytest.fixture
def silent_server():
    """A real TCP server that accepts connections and never answers (a Redis stuck mid-reply)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_a_command_to_a_redis_that_never_answers_fails_within_the_timeout(silent_server):
    client = connect(silent_server, socket_timeout=0.3)
    t0 = time.monotonic()
    with pytest.raises(redis.exceptions.TimeoutError):
        client.ping()
    assert time.monotonic() - t0 < 2


def test_the_service_clients_have_a_timeout_whatever_the_library_default(redis_url):
    """redis-py's default has changed between releases (none, then 5 s): the service sets its own."""
    client = connect(redis_url)
    assert client.connection_pool.connection_kwargs["socket_timeout"] == SOCKET_TIMEOUT
    naipes = build("command", redis_url=redis_url, secret=b"s" * 32)
    assert naipes.redis.connection_pool.connection_kwargs["socket_timeout"] == SOCKET_TIMEOUT
    assert naipes.redis.ping()
