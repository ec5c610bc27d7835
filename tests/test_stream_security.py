"""Event streams against a real gunicorn: credentials that end, caps per client and in total, half-sent requests."""

from __future__ import annotations

import socket
import time

import orjson
import redis
import requests

from service.core.naipes import Naipes

from .conftest import bearer
from .helpers import tokens
from .live import live_server, start_gunicorn  # noqa: F401 - fixture
from .test_stream import new_game, sse


def _stop(proc) -> None:
    proc.terminate()
    proc.wait(15)


def test_a_revoked_review_key_loses_its_open_stream_and_is_told_it_was_revoked(redis_url, integrator):
    proc, base = start_gunicorn(redis_url, {"NAIPES_SSE_HEARTBEAT": "0.5"})
    try:
        g = new_game(base, integrator)
        made = requests.post(f"{base}/keys", json={"name": "reviewer", "scopes": ["review"]}, headers=integrator)
        assert made.status_code == 201, made.text
        key = made.json()
        with requests.get(
            f"{base}/games/{g['id']}/stream", params={"after": 0}, headers=bearer(key["key"]), stream=True, timeout=30
        ) as r:
            assert r.status_code == 200
            stream = sse(r, timeout=20)
            head = requests.get(f"{base}/games/{g['id']}", timeout=10).json()["version"]
            seen = []
            for kind, msg in stream:
                if kind == "event":
                    seen.append(orjson.loads(msg["data"]))
                    if seen[-1]["version"] == head:
                        break
            assert any(e.get("private") for e in seen), "a review key sees the private parts"
            revoked = requests.delete(f"{base}/keys/{key['id']}", headers=integrator)
            assert revoked.status_code == 200
            # the key store caches a key 2 s per process; heartbeats every 0.5 s: the stream ends soon after
            t0 = time.monotonic()
            rest = list(stream)  # the server ends it
            assert time.monotonic() - t0 < 6
        assert rest[-1] == ("comment", "credential revoked"), rest[-3:]
        time.sleep(2.1)  # every worker's key cache has forgotten the key by now
        again = requests.get(f"{base}/games/{g['id']}", headers=bearer(key["key"]), timeout=10)
        assert again.status_code == 401 and again.headers["Content-Type"] == "application/problem+json"
        problem = again.json()
        assert problem["type"] == "urn:naipes:problem:key-revoked" and "revoked" in problem["detail"]
        assert key["id"] in problem["detail"]
        for path in (f"/games/{g['id']}/stream?token={key['key']}", "/games", "/tournaments"):
            r = requests.get(base + path, headers={} if "token=" in path else bearer(key["key"]), timeout=10)
            assert r.status_code == 401 and r.json()["type"] == "urn:naipes:problem:key-revoked", (path, r.text)
    finally:
        _stop(proc)


def test_a_stream_ends_when_its_seat_token_is_replaced(redis_url, integrator):
    proc, base = start_gunicorn(redis_url, {"NAIPES_SSE_HEARTBEAT": "0.5"})
    try:
        g = new_game(base, integrator)
        old = tokens(g)[2]
        with requests.get(f"{base}/games/{g['id']}/stream", params={"token": old}, stream=True, timeout=30) as r:
            assert r.status_code == 200
            stream = sse(r, timeout=20)
            next(msg for kind, msg in stream if kind == "event")
            Naipes(redis.Redis.from_url(redis_url)).games.reissue(g["id"])  # the game's seat tokens are replaced
            t0 = time.monotonic()
            rest = list(stream)  # the server ends it
            assert time.monotonic() - t0 < 6
        assert rest[-1] == ("comment", "credential no longer valid"), rest[-3:]
    finally:
        _stop(proc)


def test_a_quiet_stream_ends_within_two_seconds_of_its_seat_token_being_replaced(live_server, redis_url, integrator):
    live_server.app.config["NAIPES_SSE_HEARTBEAT"] = 15  # no heartbeat wakes it: the stream looks by itself
    g = new_game(live_server.url, integrator)
    with requests.get(
        f"{live_server.url}/games/{g['id']}/stream", headers=bearer(tokens(g)[2]), stream=True, timeout=30
    ) as r:
        stream = sse(r, timeout=20)
        next(msg for kind, msg in stream if kind == "event")  # its state: the stream is open
        Naipes(redis.Redis.from_url(redis_url)).games.reissue(g["id"])
        t0 = time.monotonic()
        rest = list(stream)  # the server ends it
        assert time.monotonic() - t0 < 3
    assert rest == [("comment", "credential no longer valid")], rest


def test_a_client_beyond_its_stream_cap_is_refused_while_others_are_served(redis_url, integrator):
    proc, base = start_gunicorn(redis_url, {"NAIPES_SSE_HEARTBEAT": "1", "NAIPES_MAX_STREAMS_PER_CLIENT": "3"})
    sessions: list[requests.Session] = []
    try:
        g = new_game(base, integrator)
        toks = tokens(g)
        codes = []
        opened = []  # held: a response let go would close its connection, and its stream with it
        refused = None
        for _ in range(10):  # two workers, three streams each at most
            s = requests.Session()
            sessions.append(s)
            r = s.get(f"{base}/games/{g['id']}/stream", headers=bearer(toks[0]), stream=True, timeout=10)
            codes.append(r.status_code)
            if r.status_code == 200:
                opened.append(r)
            else:
                refused = r
        assert codes.count(200) <= 6 and codes.count(429) == 10 - codes.count(200), codes
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert int(refused.headers["Retry-After"]) >= 1 and "streams" in refused.json()["detail"]
        # another seat of the same game, and anyone's ordinary request, are still served at once
        other = requests.Session()
        sessions.append(other)
        opened.append(other.get(f"{base}/games/{g['id']}/stream", headers=bearer(toks[1]), stream=True, timeout=10))
        assert opened[-1].status_code == 200
        t0 = time.monotonic()
        assert requests.get(f"{base}/games/{g['id']}", timeout=5).status_code == 200
        assert time.monotonic() - t0 < 2
    finally:
        for s in sessions:
            s.close()
        _stop(proc)


def test_streams_stop_below_the_connection_limit_so_ordinary_requests_still_answer(redis_url, integrator):
    """24 connections per worker: at most 18 streams each; the 37th stream is refused with 503."""
    proc, base = start_gunicorn(
        redis_url,
        {
            "NAIPES_SSE_HEARTBEAT": "1",
            "NAIPES_WORKER_CONNECTIONS": "24",
            "NAIPES_MAX_STREAMS_PER_CLIENT": "1000",
            "NAIPES_MAX_CONNECTIONS_PER_ADDRESS": "0",
        },
    )
    sessions: list[requests.Session] = []
    try:
        g = new_game(base, integrator)
        codes = []
        opened = []  # held: a response let go would close its connection, and its stream with it
        refused = None
        for _ in range(44):  # fewer than the two workers' 48 connections
            s = requests.Session()
            sessions.append(s)
            r = s.get(f"{base}/games/{g['id']}/stream", headers=integrator, stream=True, timeout=10)
            codes.append(r.status_code)
            if r.status_code == 200:
                opened.append(r)
            else:
                refused = r
                r.close()
                s.close()
        assert codes.count(200) <= 36 and 503 in codes, str(codes)
        assert set(codes) <= {200, 503}, codes
        assert refused.headers["Content-Type"] == "application/problem+json" and refused.headers["Retry-After"]
        for path in ("/health", f"/games/{g['id']}", f"/games/{g['id']}/events?after=0"):
            t0 = time.monotonic()
            assert requests.get(base + path, headers=integrator, timeout=5).status_code == 200, path
            assert time.monotonic() - t0 < 2, path
    finally:
        for s in sessions:
            s.close()
        _stop(proc)


def test_half_sent_requests_neither_fill_the_server_nor_stay_open(redis_url):
    """One address holds many half-sent requests (more than both workers' 40 connections): a request from
    another address is answered at once, and the server drops the half-sent ones within seconds."""
    proc, base = start_gunicorn(redis_url, {"NAIPES_WORKER_CONNECTIONS": "20"})
    host, port = base.removeprefix("http://").split(":")
    held: list[socket.socket] = []
    try:
        for _ in range(60):
            s = socket.create_connection((host, int(port)), timeout=5, source_address=("127.0.0.2", 0))
            s.sendall(b"GET /health HTTP/1.1\r\nHost: naipes\r\nX-Slow: ")  # and never the end of the headers
            held.append(s)
        time.sleep(0.5)
        t0 = time.monotonic()
        r = requests.get(f"{base}/health", timeout=5)
        assert r.status_code == 200 and time.monotonic() - t0 < 2
        # every half-sent request is refused or dropped by the server, none is kept for long
        t0 = time.monotonic()
        for s in held:
            s.settimeout(max(0.1, 12 - (time.monotonic() - t0)))
            try:
                while s.recv(4096):
                    pass
            except ConnectionResetError:
                pass
        assert time.monotonic() - t0 < 12
    finally:
        for s in held:
            s.close()
        _stop(proc)


def _ends_within(stream, seconds: float) -> bool:
    t0 = time.monotonic()
    for kind, msg in stream:
        if kind == "comment" and msg == "credential no longer valid":
            return True
        if time.monotonic() - t0 > seconds:
            return False
    return True  # the server closed the stream


def test_a_fresh_token_for_a_seat_ends_the_streams_of_its_earlier_one_within_seconds(
    live_server, redis_url, integrator
):
    """``seat_token`` (an owner's fresh token for a leaked one) writes the game's tokens by its own
    script: it must tell the processes following the game as ``set_tokens`` does, or their readers
    keep the earlier token working on open streams."""
    g = new_game(live_server.url, integrator)
    old = tokens(g)[2]
    with requests.get(f"{live_server.url}/games/{g['id']}/stream", headers=bearer(old), stream=True, timeout=30) as r:
        stream = sse(r, timeout=30)
        next(msg for kind, msg in stream if kind == "event")
        time.sleep(1.5)  # the reader has subscribed and read the tokens
        Naipes(redis.Redis.from_url(redis_url)).seats.seat_token(g["id"], 2)
        assert _ends_within(stream, 3), "the stream of a replaced token goes on"


def test_a_seat_left_ends_the_leavers_stream_within_seconds(live_server, integrator):
    g = new_game(live_server.url, integrator)
    tok = tokens(g)[2]
    with requests.get(f"{live_server.url}/games/{g['id']}/stream", headers=bearer(tok), stream=True, timeout=30) as r:
        stream = sse(r, timeout=30)
        next(msg for kind, msg in stream if kind == "event")
        time.sleep(1.5)
        left = requests.post(f"{live_server.url}/games/{g['id']}/seats/2/leave", headers=bearer(tok))
        assert left.status_code == 200, left.text
        assert _ends_within(stream, 3), "the leaver's stream goes on with its seat's private view"
