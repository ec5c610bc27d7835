"""The bare stack: Flask + Redis doing nothing but parse the JSON and one XADD (and, for the push loop,
a publish and a stream per seat).

The ceiling a Flask + Redis service reaches on this machine, served by the same
gunicorn configuration as naipes (``service/web/gunicorn_conf.py``).
"""

from __future__ import annotations

import json
import os
import queue
import threading

import redis
from flask import Flask, Response, jsonify, request

app = Flask("bare")
client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))


@app.post("/games/<game_id>/moves")
def move(game_id):
    body = request.get_json()
    version = client.xadd(f"bare:{{{game_id}}}:events", {"e": request.get_data()})
    return jsonify({"version": version.decode(), "type": body.get("type")}), 201


@app.get("/games/<game_id>/legal-moves")
def legal(game_id):
    client.get(f"bare:{{{game_id}}}:snap")
    return jsonify({"moves": [{"type": "pass"}]})


# The bare push loop: the floor of one request per move on this stack.  A table's seats each follow a
# stream of their own; a move is one POST (the turn read, then the event appended and published in one
# pipeline: two round trips, as naipes's move makes), and the seat to act next is pushed its turn on its
# stream.  Each web process holds one subscription for every game, as naipes's feed does; no rules, no
# hashes, no views: what is left is gunicorn, Flask, redis-py, the publish and the stream's write.

SEATS = 5
MOVES_PER_GAME = 170  # about a one-hand Dalmuti game's moves
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


@app.get("/push/<game_id>/stream")
def push_stream(game_id):
    seat = int(request.args["seat"])
    with _starting:
        if not _listening:
            _listening.append(True)
            threading.Thread(target=_listen, daemon=True).start()
    # the turn is read once the subscription holds (the first streams of a process opened before it did
    # missed the pushes in between, and their game stalled)
    _subscribed.wait(10)
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

    return Response(events(), mimetype="text/event-stream")


@app.post("/push/<game_id>/moves")
def push_move(game_id):
    body = request.get_json()
    turn = int(client.get(f"bare:{{{game_id}}}:turn") or 0)
    if body.get("turn") != turn:
        return jsonify({"error": "not this turn"}), 412
    pipe = client.pipeline(transaction=False)
    pipe.xadd(f"bare:{{{game_id}}}:events", {"e": request.get_data()})
    pipe.set(f"bare:{{{game_id}}}:turn", turn + 1)
    pipe.publish(f"bare:push:{game_id}", turn + 1)
    version = pipe.execute()[0]
    return jsonify({"version": version.decode(), "turn": turn + 1}), 201
