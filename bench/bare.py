"""The bare stack: Flask + Redis doing nothing but parse the JSON and one XADD (and, for the push loop,
a publish and a stream per seat).

The ceiling a Flask + Redis service reaches on this machine, served by the same
gunicorn configuration as naipes (``service/web/gunicorn_conf.py``).
"""

from __future__ import annotations

import os

import redis
from flask import Flask, Response, jsonify, request

from bench.bare_push import Feed

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

_feed = Feed(client)


@app.get("/push/<game_id>/stream")
def push_stream(game_id):
    return Response(_feed.open(game_id, int(request.args["seat"])), mimetype="text/event-stream")


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
