"""The bare push loop as a raw WSGI callable: ``bench/bare.py``'s push endpoints without Flask.

Same protocol, same Redis work, same gunicorn configuration (``service/web/gunicorn_conf.py``: gevent,
the same workers): ``GET /push/<game>/stream?seat=N`` is a seat's event stream, pushed a state when it
must act (and every seat the game's end); ``POST /push/<game>/moves`` reads the turn, refuses a move for
another turn (412), then appends, sets the turn and publishes in one pipeline.  One subscription per
process hands the pushes to the streams of its seats.  What it separates from ``bare-push`` is Flask's
routing, request and response objects: what is left is gunicorn, gevent, redis-py and the JSON.

    gunicorn -c service/web/gunicorn_conf.py bench.bare_wsgi:app
"""

from __future__ import annotations

import json
import os
import queue
import threading
from urllib.parse import parse_qs

import redis

client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))

SEATS = 5  # as bench/bare.py
MOVES_PER_GAME = 170
_streams: dict[tuple[str, int], queue.Queue] = {}  # (game, seat) -> its stream's messages, in this process
_listening: list[bool] = []
_starting = threading.Lock()
_subscribed = threading.Event()  # set once Redis confirmed the subscription: a push before it would be lost


def _listen() -> None:
    """The process's one subscription: every game's pushes, each handed to the stream of its seat here."""
    pubsub = client.pubsub()
    pubsub.psubscribe("bare:push:*")
    for message in pubsub.listen():
        if message["type"] == "psubscribe":
            _subscribed.set()
            continue
        if message["type"] != "pmessage":
            continue
        game_id = message["channel"].decode().removeprefix("bare:push:")
        turn = int(message["data"])
        seats = range(SEATS) if turn >= MOVES_PER_GAME else (turn % SEATS,)
        for seat in seats:
            q = _streams.get((game_id, seat))
            if q is not None:
                q.put(turn)


def _state(turn: int) -> bytes:
    return b"event: state\ndata: " + json.dumps({"turn": turn, "finished": turn >= MOVES_PER_GAME}).encode() + b"\n\n"


def _json(start_response, status: str, body: dict) -> list[bytes]:
    data = json.dumps(body, separators=(",", ":")).encode() + b"\n"
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return [data]


def _stream(environ, start_response, game_id: str):
    seat = int(parse_qs(environ.get("QUERY_STRING", ""))["seat"][0])
    with _starting:
        if not _listening:
            _listening.append(True)
            threading.Thread(target=_listen, daemon=True).start()
    _subscribed.wait(10)  # the turn is read once the subscription holds
    q = _streams[(game_id, seat)] = queue.Queue()
    turn = int(client.get(f"bare:{{{game_id}}}:turn") or 0)

    def events():
        try:
            if turn % SEATS == seat or turn >= MOVES_PER_GAME:
                yield _state(turn)
            while True:
                now = q.get(timeout=30)
                yield _state(now)
                if now >= MOVES_PER_GAME:
                    return
        finally:
            _streams.pop((game_id, seat), None)

    start_response("200 OK", [("Content-Type", "text/event-stream; charset=utf-8")])
    return events()


def _move(environ, start_response, game_id: str) -> list[bytes]:
    raw = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    body = json.loads(raw)
    turn = int(client.get(f"bare:{{{game_id}}}:turn") or 0)
    if body.get("turn") != turn:
        return _json(start_response, "412 Precondition Failed", {"error": "not this turn"})
    pipe = client.pipeline(transaction=False)
    pipe.xadd(f"bare:{{{game_id}}}:events", {"e": raw})
    pipe.set(f"bare:{{{game_id}}}:turn", turn + 1)
    pipe.publish(f"bare:push:{game_id}", turn + 1)
    version = pipe.execute()[0]
    return _json(start_response, "201 Created", {"turn": turn + 1, "version": version.decode()})


def app(environ, start_response):
    parts = environ.get("PATH_INFO", "").split("/")  # "", "push", game, "stream" | "moves"
    method = environ["REQUEST_METHOD"]
    if len(parts) == 4 and parts[1] == "push" and parts[2]:
        if parts[3] == "stream" and method == "GET":
            return _stream(environ, start_response, parts[2])
        if parts[3] == "moves" and method == "POST":
            return _move(environ, start_response, parts[2])
    return _json(start_response, "404 Not Found", {"error": "not found"})
