"""Live routes: the event stream (SSE), Prometheus metrics, the replay viewer page."""

from __future__ import annotations

import re

import logging
import os
import threading
import time
from pathlib import Path

import marshmallow as ma
from flask import Response, current_app, g, request, send_file
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from domain import table as tables
from events.envelope import dumps

from . import metrics
from .application import ProblemError, not_found
from .http import ANY, app_service, bearer, errors

log = logging.getLogger("naipes.live")
access_log = logging.getLogger("naipes.access")

VIEWER_DIR = Path(__file__).resolve().parent / "viewer"
HEARTBEAT_SECONDS = float(os.environ.get("NAIPES_SSE_HEARTBEAT", "15"))
MAX_STREAMS = int(os.environ.get("NAIPES_MAX_STREAMS", "1000"))  # per web worker process
BATCH = 500

live = Blueprint("live", __name__, description="Live events, metrics and the replay viewer",
                 static_folder=str(VIEWER_DIR), static_url_path="/static/viewer")


class StreamQuerySchema(ma.Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0),
                           metadata={"description": "Send events with a version above this "
                                                    "(the Last-Event-ID header, when sent, wins)"})
    token = fields.String(validate=validate.Length(min=1, max=512),
                          metadata={"description": "A seat token or integrator key, for clients that cannot send "
                                                   "an Authorization header (a browser's EventSource)"})


# One message of the stream, as SSE clients parse it (each field a string; data is the envelope's JSON)
SSE_MESSAGE = {"type": "object", "required": ["id", "event", "data"],
               "properties": {"id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's version"},
                              "event": {"type": "string", "description": "The event's type"},
                              "data": {"type": "string", "description": "The envelope, JSON on one line"}}}
SSE_EXAMPLE = (": naipes event stream of game 3f9a1c07d2b84e6a\nretry: 2000\n\n"
               "id: 42\nevent: CardsPlayed\ndata: {\"game_id\":\"3f9a1c07d2b84e6a\",\"version\":42,"
               "\"type\":\"CardsPlayed\",\"actor\":\"seat:1\",\"data\":{...},...}\n\n"
               ": heartbeat\n\n")

_streams = threading.BoundedSemaphore(MAX_STREAMS)


@live.route("/games/<game_id>/stream")
class Stream(MethodView):
    @live.arguments(StreamQuerySchema, location="query")
    @live.doc(security=ANY, operationId="streamEvents",
              summary="The event log as Server-Sent Events, live; resumes from Last-Event-ID",
              description=(
                  "Each event of the game, filtered for the caller exactly as GET /games/{game_id}/events "
                  "filters it, as one SSE message: `id:` the event's version, `event:` its type, `data:` the "
                  "envelope JSON on one line. A comment line (`: heartbeat`) is sent every 15 seconds without "
                  "events. Reconnecting with `Last-Event-ID` (or `after`) resumes without loss. The stream ends "
                  "after the last event of a finished game."),
              parameters=[{"in": "header", "name": "Last-Event-ID", "required": False,
                           "schema": {"type": "string", "pattern": "^[0-9]+$"},
                           "description": "The version of the last event received; the stream resumes after it"}],
              responses={"200": {"description": "An event stream (text/event-stream)",
                                 "content": {"text/event-stream": {"schema": SSE_MESSAGE,
                                                                   "example": SSE_EXAMPLE}}}})
    @errors(400, 401, 403, 404, 422, 503)
    def get(self, query, game_id):
        svc = app_service()
        credential = bearer() or query.get("token")
        viewer = svc.viewer(game_id, credential)
        if not svc.store.exists(game_id):
            raise not_found(game_id)
        after = query["after"]
        last = request.headers.get("Last-Event-ID")
        if last is not None:
            if not re.fullmatch(r"[0-9]{1,18}", last.strip()):
                raise ProblemError(400, "Bad Last-Event-ID", "Last-Event-ID must be an event version (digits)",
                                   "bad-request")
            after = int(last.strip())
        if not _streams.acquire(blocking=False):
            raise ProblemError(503, "Too many streams", "this server follows as many streams as it may; retry later",
                               "unavailable", headers={"Retry-After": "5"})
        metrics.STREAMS.inc()
        heartbeat = current_app.config.get("NAIPES_SSE_HEARTBEAT", HEARTBEAT_SECONDS)
        resp = Response(_sse(svc, game_id, viewer, after, heartbeat), mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp


def _sse(svc, game_id: str, viewer, after: int, heartbeat: float):
    """The stream's body; releases its slot when the client goes or the game ends."""
    try:
        yield f": naipes event stream of game {game_id}\nretry: 2000\n\n"
        position = after
        while True:
            batch = svc.events(game_id, viewer, position, wait=heartbeat, limit=BATCH)
            for env in batch["events"]:
                position = env["version"]
                yield f"id: {position}\nevent: {env['type']}\ndata: {dumps(env).decode()}\n\n"
            if not batch["events"]:
                yield ": heartbeat\n\n"
            if position >= batch["version"] and tables.outcome(svc.table(game_id)) is not None:
                return
    except GeneratorExit:
        raise
    except Exception:  # noqa: BLE001 - the client reconnects with Last-Event-ID
        log.exception("event stream of game %s stopped", game_id)
    finally:
        _streams.release()


@live.route("/metrics")
class Metrics(MethodView):
    @live.doc(security=[{}], operationId="getMetrics", summary="Prometheus metrics (text exposition format)",
              responses={"200": {"description": "Moves, errors, request latency, timeouts fired, queue depth",
                                 "content": {"text/plain": {"schema": {"type": "string"},
                                                            "example": 'naipes_moves_total{game="dalmuti",'
                                                                       'result="accepted"} 1534.0\n'}}}})
    def get(self):
        body, content_type = metrics.exposition(app_service().queue_redis)
        return Response(body, content_type=content_type)


@live.route("/replay/<game_id>")
class ViewerPage(MethodView):
    @live.doc(security=[{}], operationId="getReplayViewer",
              summary="The replay viewer: a web page drawing the game at every version, and live",
              description="Plain HTML and JavaScript over GET /games/{game_id}, /replay and /stream. Paste a seat "
                          "token or an integrator key to see what it may see.",
              responses={"200": {"description": "The viewer page",
                                 "content": {"text/html": {"schema": {"type": "string"}}}}})
    @errors(404)
    def get(self, game_id):
        if not app_service().store.exists(game_id):
            raise not_found(game_id)
        resp = send_file(VIEWER_DIR / "index.html", mimetype="text/html", max_age=0)
        resp.headers["Cache-Control"] = "no-cache"
        return resp


# --------------------------------------------------------------- request hooks
MOVES_RULE = "/games/<game_id>/moves"


def _before():
    g.naipes_t0 = time.perf_counter()


def _after(resp: Response) -> Response:
    t0 = g.get("naipes_t0")
    if t0 is None:
        return resp
    elapsed = time.perf_counter() - t0
    rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
    status = resp.status_code
    metrics.LATENCY.labels(route=rule, method=request.method).observe(elapsed)
    if status >= 400:
        metrics.ERRORS.labels(status=str(status)).inc()
    if rule == MOVES_RULE and request.method == "POST":
        metrics.MOVES.labels(game=_game_type(), result=_move_result(resp)).inc()
    etag = resp.headers.get("ETag")
    if etag and etag.strip('"').isdigit():
        g.naipes_version = int(etag.strip('"'))
    if access_log.isEnabledFor(logging.INFO):
        access_log.info("%s %s %s", request.method, request.path, status,
                        extra={"status": status, "duration_ms": round(elapsed * 1000, 3)})
    return resp


def _game_type() -> str:
    game_id = (request.view_args or {}).get("game_id")
    svc = app_service()
    cached = svc._cache.get(game_id) if game_id else None  # the table the move just used
    if cached is not None:
        return cached.get("game", "unknown")
    return "unknown"


def _move_result(resp: Response) -> str:
    if resp.status_code == 201:
        return "accepted"
    body = resp.get_json(silent=True) or {}
    kind = str(body.get("type", "")).rsplit(":", 1)[-1]
    return kind or str(resp.status_code)


def install(api, app) -> None:
    """Register the live routes and the metrics hooks on an application."""
    api.register_blueprint(live)
    app.before_request(_before)
    app.after_request(_after)


def health_details(svc) -> dict:
    """Redis answered; are the workers alive and does a scheduler hold the deadline queue's lock?"""
    from rq import Queue, Worker
    from rq.scheduler import SCHEDULER_LOCKING_KEY_TEMPLATE

    from .timers import QUEUES, TIMERS

    workers = [w for w in Worker.all(connection=svc.queue_redis) if set(w.queue_names()) & set(QUEUES)]
    alive = [w for w in workers if w.get_state() != "suspended"]
    scheduler = bool(svc.queue_redis.exists(SCHEDULER_LOCKING_KEY_TEMPLATE % TIMERS))
    queues = {name: Queue(name, connection=svc.queue_redis).count for name in QUEUES}
    status = "ok" if alive and scheduler else "degraded"
    return {"status": status, "redis": True, "workers": len(alive), "scheduler": scheduler, "queues": queues}
