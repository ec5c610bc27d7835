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
from urllib.parse import parse_qs

import redis

from bench.bare_push import Feed

client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
_feed = Feed(client)


def _json(start_response, status: str, body: dict) -> list[bytes]:
    data = json.dumps(body, separators=(",", ":")).encode() + b"\n"
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return [data]


def _stream(environ, start_response, game_id: str):
    seat = int(parse_qs(environ.get("QUERY_STRING", ""))["seat"][0])
    events = _feed.open(game_id, seat)
    start_response("200 OK", [("Content-Type", "text/event-stream; charset=utf-8")])
    return events


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
