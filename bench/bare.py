"""The bare stack: Flask + Redis doing nothing but parse the JSON and one XADD.

The ceiling a Flask + Redis service reaches on this machine, served by the same
gunicorn configuration as naipes (``service/web/gunicorn_conf.py``).
"""

from __future__ import annotations

import os

import redis
from flask import Flask, jsonify, request

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
