"""GET /games/{id}/stream: Server-Sent Events over real HTTP, resumed without loss."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import redis
import requests

from events.feed import channel
from service.core.naipes import Naipes
from service.web import fanout

from .conftest import bearer
from .helpers import tokens, wire_commands
from .live import live_server, start_gunicorn  # noqa: F401 - fixture


def sse(resp, stop_after: int | None = None, timeout: float = 30):
    """Parse an SSE response: yields ("comment", text) and ("event", {id, event, data})."""
    msg: dict = {}
    end = time.monotonic() + timeout
    for raw in resp.iter_lines(decode_unicode=True):
        assert time.monotonic() < end, "stream took too long"
        if raw is None:
            continue
        if raw == "":
            if "data" in msg:  # a block with only `retry:` is no message
                yield "event", msg
                msg = {}
            continue
        if raw.startswith(":"):
            yield "comment", raw[1:].strip()
            continue
        field, _, value = raw.partition(":")
        msg[field] = value[1:] if value.startswith(" ") else value


def new_game(base: str, integrator: dict) -> dict:
    r = requests.post(
        f"{base}/games",
        headers=integrator,
        json={"game": "dalmuti", "players": ["ana", "bea", "carl", "dani"], "options": {"hands": 1}},
    )
    assert r.status_code == 201, r.text
    return r.json()


def play(base: str, g: dict, rng: random.Random, max_moves: int | None = None) -> int:
    toks = tokens(g)
    made = 0
    while max_moves is None or made < max_moves:
        view = requests.get(f"{base}/games/{g['id']}").json()
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        moves = requests.get(f"{base}/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).json()["moves"]
        r = requests.post(f"{base}/games/{g['id']}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
        assert r.status_code == 201, r.text
        made += 1
    return made


def test_stream_resumes_from_last_event_id_without_loss_and_ends_with_the_game(live_server, integrator):
    base = live_server.url
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    seat_auth = bearer(toks[1])
    got: list[dict] = []

    # first connection, while moves are being made: read some events, then drop the connection
    mover = threading.Thread(target=play, args=(base, g, random.Random(3), 40))
    mover.start()
    with requests.get(
        f"{base}/games/{gid}/stream", params={"after": 0}, headers=seat_auth, stream=True, timeout=30
    ) as r:
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/event-stream")
        for kind, msg in sse(r):
            if kind == "event":
                got.append(msg)
                if len(got) == 12:
                    break
    mover.join()
    assert [int(m["id"]) for m in got] == list(range(1, 13))

    # the rest of the game is played while nobody listens; the token travels in the query this time
    play(base, g, random.Random(4))
    with requests.get(
        f"{base}/games/{gid}/stream",
        params={"token": toks[1]},
        headers={"Last-Event-ID": got[-1]["id"]},
        stream=True,
        timeout=30,
    ) as r:
        assert r.status_code == 200
        for kind, msg in sse(r):  # ends by itself: the game is finished
            if kind == "event":
                got.append(msg)

    versions = [int(m["id"]) for m in got]
    head = requests.get(f"{base}/games/{gid}").json()
    assert head["finished"]
    assert versions == list(range(1, head["version"] + 1)), "every version exactly once, in order"

    # each message is the envelope as GET /events gives it to this seat, with its type as the SSE event name
    import orjson

    listed = requests.get(f"{base}/games/{gid}/events", params={"after": 0, "limit": 5000}, headers=seat_auth).json()
    assert [orjson.loads(m["data"]) for m in got] == listed["events"]
    assert [m["event"] for m in got] == [e["type"] for e in listed["events"]]
    assert any(e.get("private") for e in listed["events"]), "the seat's own private parts are in its stream"
    assert all(set(e.get("private") or {}) <= {"1"} for e in listed["events"])

    # a spectator's stream carries no private part
    with requests.get(f"{base}/games/{gid}/stream", params={"after": 0}, stream=True, timeout=30) as r:
        spectator = [orjson.loads(m["data"]) for kind, m in sse(r) if kind == "event"]
    assert len(spectator) == head["version"] and not any(e.get("private") for e in spectator)

    # `after` resumes too
    with requests.get(
        f"{base}/games/{gid}/stream", params={"after": head["version"] - 3}, stream=True, timeout=30
    ) as r:
        tail = [int(m["id"]) for kind, m in sse(r) if kind == "event"]
    assert tail == [head["version"] - 2, head["version"] - 1, head["version"]]

    # a finished game's stream ends saying so, and asks an EventSource to come back in 30 s, not 2
    for params in ({"after": head["version"]}, {}):  # resumed at the end; fresh (the whole view, then the end)
        with requests.get(f"{base}/games/{gid}/stream", params=params, stream=True, timeout=30) as r:
            raw = r.text
        assert raw.endswith(": game over\nretry: 30000\n\n"), raw[-200:]
        assert raw.index("retry: 2000") < raw.index("retry: 30000")  # the last retry field is the one kept


def test_stream_sends_heartbeats_and_new_events_live(live_server, integrator):
    base = live_server.url
    g = new_game(base, integrator)
    gid = g["id"]
    start = requests.get(f"{base}/games/{gid}").json()["version"]
    seen: list[tuple[str, object]] = []
    with requests.get(f"{base}/games/{gid}/stream", params={"after": start}, stream=True, timeout=30) as r:
        stream = sse(r)
        for kind, msg in stream:  # heartbeat every 0.5 s in this server
            seen.append((kind, msg))
            if kind == "comment" and msg == "heartbeat":
                break
        threading.Timer(0.2, play, args=(base, g, random.Random(5), 1)).start()
        for kind, msg in stream:
            seen.append((kind, msg))
            if kind == "event":
                break
    assert ("comment", "heartbeat") in seen
    assert seen[-1][0] == "event" and int(seen[-1][1]["id"]) == start + 1


def test_stream_refuses_bad_input_with_problems(live_server, integrator):
    base = live_server.url
    g = new_game(base, integrator)
    cases = [
        (f"/games/{g['id']}/stream", {"Last-Event-ID": "x7"}, 400),
        (f"/games/{g['id']}/stream?after=-1", {}, 422),
        (f"/games/{g['id']}/stream?token=nope", {}, 401),
        (f"/games/{g['id']}/stream", {"Authorization": "Basic abc"}, 401),
        ("/games/not-a-game/stream", {}, 404),
        # one credential per request (RFC 6750, 2): the header and ?token= together are refused, not one chosen
        (f"/games/{g['id']}/stream?token={g['seats'][1]['token']}", integrator, 400),
        (f"/games/{g['id']}/stream?token={g['seats'][1]['token']}&token={g['seats'][2]['token']}", {}, 422),
        (f"/games/{g['id']}/stream?after=1&after=2", {}, 422),
    ]
    for path, headers, status in cases:
        r = requests.get(base + path, headers=headers, timeout=10)
        assert r.status_code == status, (path, r.text)
        assert r.headers["Content-Type"] == "application/problem+json"


def test_a_position_past_the_log_is_refused_not_left_waiting(live_server, integrator):
    """A stream resumed, or a long-poll, from a version past the game's head (a client's mistake, or a
    log whose end was lost in a failover) is refused at once with a problem naming the last version
    the caller is shown; before, it waited silently until other events reached that version. A
    position at the head still waits for the next event."""
    base = live_server.url
    g = new_game(base, integrator)
    play(base, g, random.Random(3), max_moves=2)
    head = requests.get(f"{base}/games/{g['id']}", timeout=10).json()["version"]
    asks = [
        ("stream", {"headers": {"Last-Event-ID": str(head + 1)}}),
        ("stream", {"params": {"after": head + 40}}),
        ("events", {"params": {"after": head + 1, "wait": 20}}),
    ]
    for route, ask in asks:
        started = time.monotonic()
        with requests.get(f"{base}/games/{g['id']}/{route}", timeout=10, stream=True, **ask) as r:
            assert r.status_code == 409, (route, ask, r.status_code)
            problem = r.json()
        assert time.monotonic() - started < 5, (route, ask)
        assert r.headers["Content-Type"] == "application/problem+json", (route, problem)
        assert problem["type"].endswith(":after-past-end") and f"version {head})" in problem["detail"], problem
    # without wait, a read past the head answers what there is: nothing, and the head
    r = requests.get(f"{base}/games/{g['id']}/events", params={"after": head + 1}, timeout=10)
    assert r.status_code == 200 and r.json()["events"] == [] and r.json()["version"] == head
    # at the head, the stream waits for the next move and sends it
    with requests.get(
        f"{base}/games/{g['id']}/stream", headers={"Last-Event-ID": str(head)}, stream=True, timeout=30
    ) as stream:
        assert stream.status_code == 200
        threading.Timer(0.2, play, args=(base, g, random.Random(4), 1)).start()
        event = next(msg for kind, msg in sse(stream, timeout=20) if kind == "event")
    assert int(event["id"]) == head + 1


def test_open_streams_do_not_block_moves_under_gunicorn(redis_url, integrator):
    """More open streams than the threaded worker had threads (2 x 8): moves still go through at once."""
    proc, base = start_gunicorn(redis_url, {"NAIPES_SSE_HEARTBEAT": "1"})
    sessions = []
    try:
        g = new_game(base, integrator)
        streams = []
        for _ in range(40):
            s = requests.Session()
            sessions.append(s)
            r = s.get(f"{base}/games/{g['id']}/stream", params={"after": 3}, stream=True, timeout=30)
            assert r.status_code == 200
            streams.append(r)
        t0 = time.monotonic()
        assert play(base, g, random.Random(6), 10) == 10
        assert time.monotonic() - t0 < 10
        assert requests.get(f"{base}/health", timeout=5).status_code == 200
        # every open stream received the ten moves' events
        for r in streams[:5]:
            ids = []
            for kind, msg in sse(r, timeout=15):
                if kind == "event":
                    ids.append(int(msg["id"]))
                    if len(ids) >= 10:
                        break
            assert ids[:10] == list(range(4, 14))
        for r in streams:
            r.close()
    finally:
        for s in sessions:
            s.close()
        proc.terminate()
        proc.wait(15)


def test_the_streams_of_a_game_share_one_reader_that_reads_each_batch_once(
    live_server, service, redis_url, integrator, monkeypatch
):
    """Six streams of one game in one process (its four seats with view=every, two spectators) follow
    the game through one reader, which the process's feed hands each batch the other process appended
    (events/feed.py): no read of the log for a batch, none for a stream's view or legal moves; the
    seats' token checks read the tokens once for them all, and again only when told they changed.
    The reader ends after the last stream, and its subscription with it."""
    base = live_server.url
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    hubs = live_server.app.extensions["naipes_fanout"]
    # the moves come from elsewhere, as from another process (its commands told apart on the wire by name)
    other = Naipes(redis.Redis.from_url(redis_url, client_name="other"))
    start = other.tables.table(gid)["version"]
    got: list[list[tuple[str, int]]] = [[] for _ in range(6)]
    stop = threading.Event()

    def follow(i: int, params: dict, headers: dict) -> None:
        with requests.get(f"{base}/games/{gid}/stream", params=params, headers=headers, stream=True, timeout=30) as r:
            for kind, msg in sse(r, timeout=60):
                if kind == "event":
                    got[i].append((msg["event"], int(msg["id"])))
                if stop.is_set():
                    return

    followers = [
        threading.Thread(target=follow, args=(seat, {"view": "every"}, bearer(toks[seat]))) for seat in range(4)
    ] + [threading.Thread(target=follow, args=(i, {}, {})) for i in (4, 5)]
    for t in followers:
        t.start()

    def seen_by_all(version: int) -> None:
        deadline = time.monotonic() + 15
        while not all(any(v == version for _, v in mine) for mine in got):
            assert time.monotonic() < deadline, f"not every stream showed version {version}: {got}"
            time.sleep(0.01)

    seen_by_all(start)  # every stream opened with its state
    sent = wire_commands(monkeypatch, lambda conn: conn.client_name != "other")  # this process's, not the mover's
    t0 = time.monotonic()
    moves = 0
    rng = random.Random(7)
    while moves < 12:
        table = other.tables.table(gid)
        seat = rng.choice(other.reads.state_view(gid, other.identity.viewer(gid, None))["to_act"])
        move = rng.choice(other.reads.legal_moves(gid, other.identity.viewer(gid, toks[seat]))["moves"])
        other.moves.move(gid, seat, move, if_match=table["version"])
        moves += 1
        seen_by_all(other.tables.table(gid)["version"])
        assert hubs.hubs() == 1
    time.sleep(2.5)  # quiet
    elapsed = time.monotonic() - t0
    sent = Counter(sent)  # what was sent while the moves were made, and since

    # no head check, no snapshot, no read of a batch: the log is read when the subscription (made as
    # the streams opened) holds and once every quiet SAFETY_SECONDS; the tokens then, and once every
    # TOKENS_FED_SECONDS (the streams check them at every batch: they are not read at every batch)
    assert set(sent) <= {"XRANGE", "HGETALL"}, sent
    assert sent["XRANGE"] <= 1 + elapsed / fanout.SAFETY_SECONDS + 1, (sent, elapsed)
    assert sent["HGETALL"] <= 1 + elapsed / fanout.TOKENS_FED_SECONDS + 1, (sent, elapsed)
    head = other.tables.table(gid)["version"]
    for i, mine in enumerate(got):
        events = [v for kind, v in mine if kind != "state"]
        assert events == list(range(start + 1, head + 1)), f"stream {i}: every event once, in order"
    for mine in got[:4]:  # each seat's last state is the game's head, after its events
        assert mine[-1] == ("state", head)

    stop.set()
    for t in followers:
        t.join(10)
    deadline = time.monotonic() + 5
    while hubs.hubs() or other.store.redis.pubsub_numsub(channel(gid))[0][1]:
        assert time.monotonic() < deadline, "the reader, or its subscription, outlived its streams"
        time.sleep(0.05)


def test_the_reader_of_a_finished_game_ends_soon_after_its_last_stream(live_server, integrator):
    """A reader waits on its game's log up to WAIT_SECONDS, but only FINISHED_WAIT_SECONDS once the game
    is over: the streams end with its last event, and the reader with them, not seconds later (holding
    a Redis connection all that time)."""
    assert fanout.FINISHED_WAIT_SECONDS * 4 < fanout.WAIT_SECONDS
    base = live_server.url
    g = new_game(base, integrator)
    hubs = live_server.app.extensions["naipes_fanout"]
    with requests.get(f"{base}/games/{g['id']}/stream", stream=True, timeout=30) as r:
        assert r.status_code == 200
        deadline = time.monotonic() + 10
        while not hubs.hubs():
            assert time.monotonic() < deadline, "the stream's reader did not start"
            time.sleep(0.01)
        play(base, g, random.Random(3))
        for _kind, _msg in sse(r, timeout=60):  # to the end of the stream: the game is over
            pass
    ended = time.monotonic()
    while hubs.hubs():
        assert time.monotonic() - ended < fanout.WAIT_SECONDS / 2, "the reader lingered on a finished game"
        time.sleep(0.02)


def test_a_stream_of_a_quiet_game_outlives_the_redis_socket_timeout_under_gunicorn(redis_url, integrator):
    """The start command's stack: redis-py's connections time a read out after 5 s, and a game can stay
    quiet far longer (a seat thinking).  The stream stays open across the quiet spell, heartbeats
    included, and shows the next move's event when it comes."""
    proc, base = start_gunicorn(redis_url, {"NAIPES_SSE_HEARTBEAT": "2"})
    try:
        g = new_game(base, integrator)
        with requests.get(f"{base}/games/{g['id']}/stream", params={"after": 3}, stream=True, timeout=30) as r:
            assert r.status_code == 200
            quiet_until = time.monotonic() + 7.5
            seen = []
            for kind, msg in sse(r, timeout=30):
                seen.append(kind)
                if kind == "event":
                    assert int(msg["id"]) == 4 and time.monotonic() >= quiet_until, seen
                    break
                if time.monotonic() >= quiet_until and "moved" not in seen:
                    seen.append("moved")
                    assert play(base, g, random.Random(1), 1) == 1
            assert "event" in seen, f"the stream ended before the move: {seen}"
            assert seen.count("comment") >= 3, seen  # the heartbeats of the quiet spell
    finally:
        proc.terminate()
        proc.wait(15)


def test_a_stream_whose_client_went_frees_its_slot_within_seconds_under_gunicorn(redis_url, integrator):
    """A client that closes its streams and opens them again at once (a page reloaded, a network blip)
    finds its streams counted no more: the server notices a closed connection when the stream wakes (at
    least every second), not at a failed write, which comes a heartbeat or two later."""
    proc, base = start_gunicorn(
        redis_url,
        {"NAIPES_WEB_WORKERS": "1", "NAIPES_MAX_STREAMS_PER_CLIENT": "2", "NAIPES_SSE_HEARTBEAT": "60"},
    )
    try:
        g = new_game(base, integrator)
        for round_ in range(3):
            opened = []
            for _ in range(2):
                r = requests.get(f"{base}/games/{g['id']}/stream", headers=integrator, stream=True, timeout=30)
                assert r.status_code == 200, (round_, r.text)
                opened.append(r)
            extra = requests.get(f"{base}/games/{g['id']}/stream", headers=integrator, stream=True, timeout=30)
            assert extra.status_code == 429  # the client's two are counted
            extra.close()
            for r in opened:
                next(r.iter_lines())  # the stream is served
                r.close()
            time.sleep(2.5)
    finally:
        proc.terminate()
        proc.wait(15)


def test_a_quiet_seat_stream_whose_client_went_is_freed_within_its_sleep_and_a_probe(redis_url, integrator):
    """A seat's quiet stream sleeps QUIET_SECONDS between looks (the feed wakes it when the seat tokens
    change): a client that closes it is counted no more within that and the probe's two writes."""
    from service.web.live import QUIET_SECONDS

    proc, base = start_gunicorn(
        redis_url,
        {"NAIPES_WEB_WORKERS": "1", "NAIPES_MAX_STREAMS_PER_CLIENT": "1", "NAIPES_SSE_HEARTBEAT": "60"},
    )
    try:
        g = new_game(base, integrator)
        seat = bearer(tokens(g)[0])
        for round_ in range(2):
            started = time.monotonic()
            while True:  # the last round's stream: counted until the server notices its client went
                r = requests.get(f"{base}/games/{g['id']}/stream?view=turn", headers=seat, stream=True, timeout=30)
                if r.status_code == 200:
                    break
                assert r.status_code == 429, r.text
                r.close()
                # (its sleep, a probe and a second look: about QUIET_SECONDS + 1.5 s; the heartbeat's 60 s without them)
                assert time.monotonic() - started < QUIET_SECONDS + 15, (
                    f"round {round_}: the closed stream still counts"
                )
                time.sleep(0.25)
            next(r.iter_lines())  # served
            r.close()
    finally:
        proc.terminate()
        proc.wait(15)


def test_the_look_for_a_gone_client_peeks_without_waiting_and_leaves_the_socket_as_it_was():
    """One peek, the socket's timeout put back; a socket it must not peek at (TLS, HTTP/2's shared
    connection) is left to the heartbeats."""
    import socket

    from service.web.live import _client_gone

    ours, theirs = socket.socketpair()
    try:
        ours.settimeout(7.0)
        gone = _client_gone({"gunicorn.socket": ours, "SERVER_PROTOCOL": "HTTP/1.1"})
        assert gone() is False and ours.gettimeout() == 7.0  # nothing to read: still there, not waited for
        theirs.sendall(b"x")
        assert gone() is False and ours.recv(1) == b"x"  # bytes sent are left to be read
        assert _client_gone({"gunicorn.socket": ours, "SERVER_PROTOCOL": "HTTP/2.0"})() is False
        theirs.close()
        assert gone() is True and ours.gettimeout() == 7.0
        assert _client_gone({"gunicorn.socket": ours, "SERVER_PROTOCOL": "HTTP/2.0"})() is False

        class Tls:  # a TLS socket's face: never peeked at
            def getpeercert(self):
                raise AssertionError("looked at")

        assert _client_gone({"gunicorn.socket": Tls(), "SERVER_PROTOCOL": "HTTP/1.1"})() is False
    finally:
        ours.close()


def test_a_client_that_only_closed_its_sending_half_keeps_its_stream(live_server, integrator):
    """A client that sends its request and shuts its sending half (``nc -N``, some proxies) still reads:
    the end of its input is not the end of its stream."""
    import socket
    from urllib.parse import urlparse

    g = new_game(live_server.url, integrator)
    u = urlparse(live_server.url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"GET /games/{g['id']}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        s.shutdown(socket.SHUT_WR)
        got, t0 = b"", time.monotonic()
        while time.monotonic() - t0 < 4:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        assert time.monotonic() - t0 >= 4, f"the server ended a stream whose client still reads: {got[-200:]!r}"
        assert got.count(b"heartbeat") >= 2
