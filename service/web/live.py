"""Live routes: the event stream (SSE), Prometheus metrics, the replay viewer page."""

from __future__ import annotations

import functools
import logging
import os
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import marshmallow as ma
from flask import Response, current_app, g, request, send_file
from flask.views import MethodView
from marshmallow import fields, validate

from domain import table as tables
from service.core import facts, metrics
from service.core.errors import ProblemError, not_found
from service.core.identity import token_hash
from service.web.base import ANY, LANGUAGE_HEADERS, Blueprint, app_service, bearer, errors, language, language_headers
from service.web.fanout import Fanout, Hub
from service.web.ratelimit import PAGE_UNIT, Client, client, pacer
from service.web.schemas import GameViewSchema, LegalMovesSchema

log = logging.getLogger("naipes.live")
access_log = logging.getLogger("naipes.access")

VIEWER_DIR = Path(__file__).resolve().parent / "viewer"
HEARTBEAT_SECONDS = float(os.environ.get("NAIPES_SSE_HEARTBEAT", "15"))
# how a finished game's stream ends: an EventSource reconnects after the retry field's milliseconds, and what
# may follow a game's end (a reviewer's note or ruling) is rare: every 30 s, not every 2
GAME_OVER = ": game over\nretry: 30000\n\n"
# Streams per web worker process: in total (gunicorn_conf sets it below the worker's connection limit,
# leaving room for ordinary requests), per client (credential, else address) and per client address
MAX_STREAMS = max(1, int(os.environ.get("NAIPES_MAX_STREAMS", "750")))
MAX_STREAMS_PER_CLIENT = max(1, min(MAX_STREAMS, int(os.environ.get("NAIPES_MAX_STREAMS_PER_CLIENT", "64"))))
MAX_STREAMS_PER_ADDRESS = max(
    1,
    min(
        MAX_STREAMS,
        int(os.environ.get("NAIPES_MAX_STREAMS_PER_ADDRESS", str(max(MAX_STREAMS_PER_CLIENT, MAX_STREAMS // 3)))),
    ),
)
# a revoked key ends its streams within this (the key's record is trusted 2 s), and so does a replaced or
# dropped seat token on a Redis Cluster; with a feed, the change is pushed and ends them at once
RECHECK_SECONDS = 2.0
HELD_POLL_SECONDS = 1.0  # how often a stream held at an embargo's horizon looks whether it lifted
CREDENTIAL_POLL_SECONDS = 1.0  # how often a long-poll looks whether its caller's credential still holds


def _no_credential(_hub) -> str | None:
    """The credential check of a caller that sent none: nothing to lose, nothing to look at."""
    return None


LOOK_SECONDS = 0.5  # how often, at most, a stream looks whether its client went (each time it wakes past this)
# how long a quiet stream sleeps when the feed wakes it at a change of its game's seat tokens (a seat's, or
# one of no credential): every wake costs the web worker, and a process may hold hundreds of quiet streams.
# An integrator key's stream (its revocation is not pushed) and every stream on a Redis Cluster (no feed)
# wake every RECHECK_SECONDS / 2.
QUIET_SECONDS = 5.0
VIEW_MODES = ("first", "every", "turn", "none")
EVENT_MODES = ("all", "none")

live = Blueprint(
    "live",
    __name__,
    description="Live events, metrics and the replay viewer",
    static_folder=str(VIEWER_DIR),
    static_url_path="/static/viewer",
)


class StreamQuerySchema(ma.Schema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0),
        metadata={"description": "Send events with a version above this (the Last-Event-ID header, when sent, wins)"},
    )
    view = fields.String(
        validate=validate.OneOf(VIEW_MODES),
        metadata={
            "description": "When the stream sends a `state` message (the caller's view of the game and, when "
            "the caller's seat must act, its legal moves): `first` once as the stream opens (the default "
            "without Last-Event-ID or `after`; a resumed stream sends it once it has sent the events it owed, "
            "since the state's id is its version), `every` as it opens and after every batch of events (a seat then "
            "needs no other request than its moves), `turn` as it opens and after a batch that leaves the caller's "
            "seat to act (its turn and its moves; the events between tell the rest) or ends the game, `none` "
            "never (the default when resuming)"
        },
    )
    events = fields.String(
        load_default="all",
        validate=validate.OneOf(EVENT_MODES),
        metadata={
            "description": "Whether the stream sends the events (`all`, the default) or only its `state` messages "
            "(`none`, with `view=every` or `view=turn`): a seat that plays from its state alone then receives one "
            "message when its turn comes and nothing while the others play"
        },
    )
    token = fields.String(
        validate=validate.Length(min=1, max=512),
        metadata={
            "description": "A seat token or integrator key, for clients that cannot send "
            "an Authorization header (a browser's EventSource); never with one (400)"
        },
    )

    @ma.validates_schema
    def _states_only(self, data, **_kwargs):
        if data.get("events") == "none" and data.get("view") not in ("every", "turn"):
            raise ma.ValidationError(
                "events=none sends only state messages: it needs view=every or view=turn", "events"
            )


class StreamStateSchema(ma.Schema):
    """What a stream's ``state`` message carries in its ``data`` (the component StreamState)."""

    version = fields.Integer(required=True, metadata={"description": "The version shown (the message's `id`)"})
    view = fields.Nested(
        GameViewSchema, required=True, metadata={"description": "The caller's view, as GET /games/{game_id} gives it"}
    )
    legal_moves = fields.Nested(
        LegalMovesSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The caller's seat's moves, as GET /games/{game_id}/legal-moves gives them, when it must "
            "act; else null"
        },
    )


# One message of the stream, as SSE clients parse it (each field a string; data is the envelope's JSON)
SSE_MESSAGE = {
    "type": "object",
    "required": ["id", "event", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's version (the state's)"},
        "event": {"type": "string", "description": "The event's type, or `state`"},
        "data": {
            "type": "string",
            "description": "JSON on one line: for `event: state`, a StreamState (the version, the caller's view and "
            "its legal moves); for any other `event`, the event's envelope, an Event as GET /games/{game_id}/events "
            "gives it",
        },
    },
}
SSE_EXAMPLE = (
    ": naipes event stream of game 3f9a1c07d2b84e6a\nretry: 2000\n\n"
    'id: 41\nevent: state\ndata: {"version":41,"view":{"id":"3f9a1c07d2b84e6a","version":41,...},'
    '"legal_moves":{"version":41,"seat":1,"moves":[{"type":"pass","label":"pass"},...]}}\n\n'
    'id: 42\nevent: Played\ndata: {"game_id":"3f9a1c07d2b84e6a","version":42,'
    '"type":"Played","actor":"seat:1","data":{"seat":1,"cards":["7","7"],"rank":7,"count":2,...},...}\n\n'
    ": heartbeat\n\n"
)


class StreamSlots:
    """The streams one process follows, counted in total, per client and per client address.

    A client is its validated credential (integrator key, game and seat), else
    its address; streams opened with an integrator key do not count against the
    address.  Beyond a client's or an address's share: 429; beyond the total: 503.
    """

    def __init__(self, total: int, per_client: int, per_address: int):
        self.total, self.per_client, self.per_address = total, per_client, per_address
        self.open = 0
        self._clients: Counter = Counter()
        self._addresses: Counter = Counter()
        self._lock = threading.Lock()

    def acquire(self, who: Client):
        """A slot for ``who``, or a 429/503 problem; returns the slot's release (safe to call twice)."""
        name = f"{who.kind}:{who.name}"
        address = None if who.kind == "key" else who.address
        with self._lock:
            if self.open >= self.total:
                raise ProblemError(
                    503,
                    "Too many streams",
                    "this server follows as many streams as it may; retry later",
                    "unavailable",
                    headers={"Retry-After": "5"},
                )
            if self._clients[name] >= self.per_client:
                raise ProblemError(
                    429,
                    "Too many streams",
                    f"this client already follows {self.per_client} streams here; close one or retry later",
                    "too-many-requests",
                    headers={"Retry-After": "5"},
                )
            if address is not None and self._addresses[address] >= self.per_address:
                raise ProblemError(
                    429,
                    "Too many streams",
                    f"this client address already follows {self.per_address} streams here; close one or retry later",
                    "too-many-requests",
                    headers={"Retry-After": "5"},
                )
            self.open += 1
            self._clients[name] += 1
            if address is not None:
                self._addresses[address] += 1
        released = []

        def release() -> None:
            with self._lock:
                if released:
                    return
                released.append(True)
                self.open -= 1
                _drop(self._clients, name)
                if address is not None:
                    _drop(self._addresses, address)

        return release


def _drop(counter: Counter, name: str) -> None:
    counter[name] -= 1
    if counter[name] <= 0:
        del counter[name]


_streams = StreamSlots(MAX_STREAMS, MAX_STREAMS_PER_CLIENT, MAX_STREAMS_PER_ADDRESS)


LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
    "description": "The version of the last event received; the stream resumes after it",
    "example": "42",
}


# the header is a parameter of the route: a list in the operation's own doc would replace the query's
@live.route("/games/<game_id:game_id>/stream", parameters=[LAST_EVENT_ID])
class Stream(MethodView):
    @live.arguments(StreamQuerySchema, location="query")
    @live.doc(
        security=ANY,
        operationId="streamEvents",
        summary="The event log as Server-Sent Events, live; resumes from Last-Event-ID",
        description=(
            "The stream opens with a `state` message (`event: state`, `id:` the version it shows, `data:` "
            '`{"version", "view", "legal_moves"}`: the caller\'s view as GET /games/{game_id} gives it and, '
            "when the caller's seat must act, its legal moves as GET /games/{game_id}/legal-moves gives them, else "
            "null), unless it resumes (Last-Event-ID or `after`; see the `view` parameter). Then each event after "
            "that version (after the one it resumes from), filtered for the caller exactly as "
            "GET /games/{game_id}/events filters it, as one SSE message: `id:` the event's version, "
            "`event:` its type, `data:` the "
            "envelope JSON on one line. With `view=every` a new `state` follows each batch of events, so a seat "
            "learns its turn and its moves from the stream and needs one request per move; with `events=none` "
            "(and `view=every` or `view=turn`) the stream sends those states and nothing else. "
            "The stream opens with a comment and a `retry: 2000` field (the reconnection delay EventSource "
            "uses). A comment line (`: heartbeat`) is sent every 15 seconds without events, and at most once a second "
            "once the client's side of the connection has ended (a write tells whether it is still there). "
            "Reconnecting with `Last-Event-ID` (or `after`) resumes without loss; a position past the last version "
            "the caller is shown is refused (409 `after-past-end`: no event it was sent has it). The stream ends "
            "after the last event of a finished game, or with a comment saying why (`: credential revoked`, "
            "`: credential no longer valid`) when its key is revoked, its seat token replaced or its seat "
            "left. A client "
            "may follow a bounded number of streams at once (429 beyond it), the server too (503). Every 100 events a "
            "stream sends count as a request of its caller's rate-limit budgets on this route, as a page of events "
            "does (GET /games/{game_id}/events): past them, the stream waits for the window to reset before it sends "
            "more, losing nothing."
        ),
        responses={
            "200": {
                "description": "An event stream (text/event-stream)",
                "content": {"text/event-stream": {"schema": SSE_MESSAGE, "example": SSE_EXAMPLE}},
                "headers": LANGUAGE_HEADERS,
            }
        },
    )
    @errors(400, 401, 403, 404, 409, 422, 429, 503)
    def get(self, query, game_id):
        svc = app_service()
        if query.get("token") is not None and request.headers.get("Authorization"):
            raise ProblemError(
                400,
                "Two credentials",
                "send the credential once, in the Authorization header or as ?token=, not both (RFC 6750, 2)",
                "bad-request",
            )
        credential = bearer() or query.get("token")
        viewer = svc.identity.viewer(game_id, credential)
        if not svc.store.exists(game_id):
            raise not_found(game_id)
        after = query["after"]
        last = request.headers.get("Last-Event-ID")
        if last is not None:
            if not re.fullmatch(r"[0-9]{1,18}", last.strip()):
                raise ProblemError(
                    400, "Bad Last-Event-ID", "Last-Event-ID must be an event version (digits)", "bad-request"
                )
            after = int(last.strip())
        resumed = last is not None or "after" in request.args
        svc.reads.resumable(game_id, viewer, after)
        views = query.get("view") or ("none" if resumed else "first")
        release = _streams.acquire(client())
        metrics.STREAMS.inc()
        heartbeat = current_app.config.get("NAIPES_SSE_HEARTBEAT", HEARTBEAT_SECONDS)
        holds = credential_holds(svc, viewer, credential)
        lang = language()  # read now: the body is sent after the request context is gone
        fanout = current_app.extensions["naipes_fanout"]
        resp = Response(
            _sse(
                svc,
                fanout,
                game_id,
                viewer,
                after,
                heartbeat,
                holds,
                release,
                lang,
                views,
                resumed,
                query["events"],
                gone=_client_gone(request.environ),
                pace=pacer(),
            ),
            mimetype="text/event-stream",
        )
        resp.call_on_close(release)  # also when the body never started
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers.update(language_headers(lang))
        resp.headers["X-Accel-Buffering"] = "no"
        return resp


def wait_for_events(
    svc,
    game_id: str,
    after: int,
    seconds: float,
    shown: Callable[[], int] | None = None,
    holds: Callable[[Hub], str | None] = _no_credential,
) -> None:
    """A long-poll's wait (``GET /games/{id}/events?wait=``): until the game's log is past ``after``, at most
    ``seconds``.  It waits as a stream does, on the game's reader in this process (which the process's one
    subscription feeds), so a waiting request holds no Redis connection; and it holds one of the streams'
    slots, counted per client and address like theirs (429 beyond a client's share, 503 beyond the server's).
    ``shown``: for a caller held back by a duplicate round's embargo, the last version it may see now; the
    wait ends once that passes ``after`` (looked at as the log grows, and at least every HELD_POLL_SECONDS),
    not when the log does, so that when it ends tells nothing of the moves past the horizon.  ``holds``
    (:func:`credential_holds`): the wait ends as soon as the caller's credential no longer holds (looked at
    every second, as a stream's), so a revoked key or a replaced token gives back its slot at once."""
    release = _streams.acquire(client())
    try:
        fanout: Fanout = current_app.extensions["naipes_fanout"]
        hub = fanout.follow(svc, game_id)
        deadline = time.monotonic() + seconds
        try:
            # (the reader also wakes its waiters when told to read anew: a change of tokens, a new subscription)
            while (left := deadline - time.monotonic()) > 0:
                if holds(hub) is not None:
                    break
                if holds is not _no_credential:  # a credential is looked at again every second
                    left = min(left, CREDENTIAL_POLL_SECONDS)
                if shown is None:
                    if hub.head.version > after:
                        break
                    hub.wait(after, left)
                else:
                    if shown() > after:
                        break
                    hub.wait(hub.head.version, min(left, HELD_POLL_SECONDS))
        except RuntimeError:  # the reader stopped: the read that follows the wait tells what there is
            pass
        finally:
            fanout.leave(hub)
    finally:
        release()


def _client_gone(environ: dict):
    """A function telling, without waiting, whether the stream's client may have closed its connection.

    A write to a closed connection fails only at the second write after the close (the first is
    accepted before the client's reset comes back): with a heartbeat every 15 s, a stream whose client
    went would hold its slot, its place in its client's and address's counts, and its game's reader
    for up to 30 s.  The stream looks at its socket instead when it wakes (at most twice a second; a
    quiet one wakes at least every QUIET_SECONDS, or every second): readable with nothing to read is
    the end of what the client sends.  That may be a client that only
    closed its sending half and still reads, so the stream then writes a heartbeat (at most one a
    second): to a closed connection that write, or the next, fails and ends the stream; a half-closed
    client just reads it.  A socket it cannot peek at (TLS) is left to the heartbeats."""
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    if sock is None or hasattr(sock, "getpeercert") or not environ.get("SERVER_PROTOCOL", "").startswith("HTTP/1"):
        return lambda: False  # (TLS takes no peek; an HTTP/2 connection's socket is every stream's on it)

    def gone() -> bool:
        # one peek that does not wait (a timeout of 0: gevent's socket then neither polls nor yields;
        # a poll() here cost the stream more than rendering the state it woke for)
        timeout = sock.gettimeout()
        try:
            sock.settimeout(0.0)
            try:
                return sock.recv(1, socket.MSG_PEEK) == b""
            finally:
                sock.settimeout(timeout)
        except (OSError, ValueError):  # nothing to read yet; a TLS socket takes no flags; a reset shows at the write
            return False

    return gone


def credential_holds(svc, viewer, credential: str | None):
    """A function of the game's hub telling why the stream's credential no longer holds (None while it does)."""
    if viewer.kind == "integrator":

        def key_holds(_hub: Hub) -> str | None:
            rec = svc.keys.find(credential)  # the key store's cache: a revocation tells within seconds
            if rec is None:
                return "credential no longer valid"
            return "credential revoked" if rec.revoked else None

        return key_holds
    if viewer.kind == "seat":
        digest = token_hash(credential or "")

        def seat_holds(hub: Hub) -> str | None:  # the game's tokens as its hub holds them (Hub.seat_of)
            return None if hub.seat_of(digest) == viewer.seat else "credential no longer valid"

        return seat_holds
    return _no_credential


def _sse(
    svc,
    fanout: Fanout,
    game_id: str,
    viewer,
    after: int,
    heartbeat: float,
    holds=_no_credential,
    release=lambda: None,
    lang: str = "en",
    views: str = "none",
    resumed: bool = True,
    events: str = "all",
    gone=lambda: False,
    pace=lambda _units: 0.0,
):
    """The stream's body; releases its slot when the client goes, the game ends or the credential ends.

    The game's hub (:mod:`service.web.fanout`) reads the log once for every stream of the game in this process;
    this stream renders each version it reads as its caller may see it. ``views``: when a ``state`` message is
    sent (``first``, ``every``, ``turn`` or ``none``); ``events``: ``none`` sends the states alone (the events
    are passed over unrendered). A fresh stream (``resumed`` False: neither Last-Event-ID nor ``after``) goes on
    with the events after the state it shows; a resumed one with the events after its position, and shows its
    first state once it has sent them (a state's id is its version: sent first, it would be the position a
    client dropped at once resumes from). The credential is checked again before every batch is sent, when the
    game's feed says its seat tokens changed, and while the game is quiet at least every QUIET_SECONDS (an
    integrator key's stream, or any on a Redis Cluster: every RECHECK_SECONDS / 2), and so is whether the client
    is still there (``gone``). Every PAGE_UNIT events sent count as a request of the client's budgets on the
    stream route (``pace``, as a page of events is counted): past the budget the stream waits for its window to
    reset before it sends more."""
    hub = None
    try:
        yield f": naipes event stream of game {game_id}\nretry: 2000\n\n"
        hub = fanout.follow(svc, game_id)
        position = after
        # a resumed stream of events shows its first state after its catch-up: the state's id is its version,
        # and a client dropped between a state sent first and the events it skipped would resume past them
        pending = views != "none" and resumed and events == "all"
        if views != "none" and not pending:
            head = hub.head
            version, message, last = hub.state(head, viewer, hub.sight(head, viewer), lang)
            # a fresh stream goes on after the state it shows, and so does one of states alone (a resumed
            # stream of events is ``pending``: its state comes after its catch-up)
            position = version
            yield message
            if last and position >= version:
                yield GAME_OVER
                return  # a finished game shown whole: nothing follows
        quiet = time.monotonic()
        probed = looked = float("-inf")
        unpaid = 0  # events sent not yet counted (less than PAGE_UNIT)
        fed = svc.store.feed is not None and viewer.kind != "integrator"
        nap = QUIET_SECONDS if fed else RECHECK_SECONDS / 2
        while True:
            told = hub.told  # (before the credential is looked at: a change after it wakes the wait below)
            now = time.monotonic()
            if now - looked >= LOOK_SECONDS:  # (not at every wake: a stream of a busy game wakes at every move)
                looked = now
                if now - probed >= 1.0 and gone():  # the client may have gone: a write tells
                    probed = quiet = now
                    yield ": heartbeat\n\n"
                    continue
            ended = holds(hub)
            if ended:
                yield f": {ended}\n\n"
                return
            head = hub.head
            seen = hub.sight(head, viewer)
            # a caller held back by a duplicate round's embargo sees the log up to its horizon
            held = seen.held
            until = seen.last_version(head.version)
            if position < until:
                units = 0  # of PAGE_UNIT events sent, to be counted
                if events == "none":  # the states alone: the batch is passed over
                    position, text = until, ""
                else:
                    before = position
                    position, text = hub.events(head, seen, lang, position, until)
                    units, unpaid = divmod(unpaid + position - before, PAGE_UNIT)
                # a state after the batch, unless newer events are on their way (and a state after them)
                # (a caller held at an embargo's horizon is not told the game is over: it sees no end yet)
                wanted = pending or views == "every" or (views == "turn" and not held and _acting(viewer, head.table))
                if wanted and position == until and (held or hub.head is head):
                    version, message, _last = hub.state(head, viewer, seen, lang)
                    if version == position:
                        text += message
                        pending = False
                if text:
                    yield text
                    quiet = time.monotonic()
                if units and (wait := pace(units)):
                    time.sleep(wait)  # over the budget: the rest when its window resets
                if position < until:
                    continue  # catching up
            elif pending and position == until:  # a resumed stream with nothing to catch up: its state at once
                pending = False
                yield hub.state(head, viewer, seen, lang)[1]
                quiet = time.monotonic()
            # the end of a finished game's log; a caller held back by an embargo waits for it to lift
            if not held and position >= head.version and tables.outcome(head.table) is not None:
                if hub.head is not head:
                    continue  # more came meanwhile (a note, a ruling): read on
                if not pending:  # (a state owed is sent once this process has read up to the position)
                    yield GAME_OVER
                    return
            left = heartbeat - (time.monotonic() - quiet)
            if left <= 0:
                yield ": heartbeat\n\n"
                quiet = time.monotonic()
                continue
            # (a probe's heartbeat is followed by another look within a second: its second write tells)
            sleep = nap if time.monotonic() - probed > LOOK_SECONDS + 1.0 else RECHECK_SECONDS / 2
            hub.wait(head.version, min(left, sleep, HELD_POLL_SECONDS if held else left), told)
    except GeneratorExit:
        raise
    except Exception:  # the client reconnects with Last-Event-ID
        log.exception("event stream of game %s stopped", game_id)
    finally:
        if hub is not None:
            fanout.leave(hub)
        release()


@live.route("/metrics")
class Metrics(MethodView):
    @live.doc(
        security=[{}],
        operationId="getMetrics",
        summary="Prometheus metrics (text exposition format)",
        responses={
            "200": {
                "description": "Moves, errors, request latency, timeouts fired, queue depth",
                "content": {
                    "text/plain": {
                        "schema": {"type": "string"},
                        "example": 'naipes_moves_total{game="dalmuti",result="accepted"} 1534.0\n',
                    }
                },
            }
        },
    )
    def get(self):
        body, content_type = metrics.exposition(app_service().queue_redis)
        return Response(body, content_type=content_type)


@live.route("/replay/<game_id:game_id>")
class ViewerPage(MethodView):
    @live.doc(
        security=[{}],
        operationId="getReplayViewer",
        summary="The replay viewer: a web page drawing the game at every version, and live",
        description="Plain HTML and JavaScript over GET /games/{game_id}, /replay and /stream. Paste a seat "
        "token or an integrator key to see what it may see.",
        responses={"200": {"description": "The viewer page", "content": {"text/html": {"schema": {"type": "string"}}}}},
    )
    @errors(404)
    def get(self, game_id):
        if not app_service().store.exists(game_id):
            raise not_found(game_id)
        resp = send_file(VIEWER_DIR / "index.html", mimetype="text/html", max_age=0)
        resp.headers["Cache-Control"] = "no-cache"
        return resp


# --------------------------------------------------------------- request hooks
MOVES_RULE = "/games/<game_id>/moves"
_CONVERTER = re.compile(r"<(?:[a-z_]+:)?([a-z_]+)>")


def _before():
    g.naipes_t0 = time.perf_counter()


def _after(resp: Response) -> Response:
    t0 = g.get("naipes_t0")
    if t0 is None:
        return resp
    elapsed = time.perf_counter() - t0
    rule = route_pattern(request.url_rule.rule) if request.url_rule is not None else "unmatched"
    etag = resp.headers.get("ETag")
    if etag and etag.strip('"').isdigit():
        g.naipes_version = int(etag.strip('"'))
    moved = rule == MOVES_RULE and request.method == "POST"
    observe(
        rule,
        request.method,
        request.path,
        resp.status_code,
        elapsed,
        game=_game_type() if moved else None,
        result=_move_result(resp) if moved else None,
    )
    return resp


def observe(
    rule: str,
    method: str,
    path: str,
    status: int,
    elapsed: float,
    *,
    game: str | None = None,
    result: str | None = None,
) -> None:
    """What a served request leaves in the metrics and the access log (``rule``: the route's pattern;
    ``game`` and ``result``: a move's game type and outcome, ``accepted`` or its problem's kind)."""
    _latency(rule, method).observe(elapsed)
    if status >= 400:
        metrics.ERRORS.labels(status=str(status)).inc()
    if rule == MOVES_RULE and method == "POST":
        _moves(game or "unknown", result or str(status)).inc()
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %s", method, path, status, extra={"status": status, "duration_ms": round(elapsed * 1000, 3)}
        )


@functools.lru_cache(maxsize=512)
def route_pattern(rule: str) -> str:
    """The route's pattern without its converters: /games/<game_id>/moves."""
    return _CONVERTER.sub(r"<\1>", rule)


@functools.lru_cache(maxsize=512)
def _moves(game: str, result: str):
    """The moves counter's child of a game type and result (found once, not on every move)."""
    return metrics.MOVES.labels(game=game, result=result)


@functools.lru_cache(maxsize=512)
def _latency(route: str, method: str):
    """The latency histogram's child of a route and method (found once, not on every request)."""
    return metrics.LATENCY.labels(route=route, method=method)


def _acting(viewer, table: dict) -> bool:
    """Whether a stream with ``view=turn`` sends a state after a batch that leaves ``table``: the caller
    is a seat the table waits for, or the game is over (its final state)."""
    return tables.outcome(table) is not None or (viewer.kind == "seat" and viewer.seat in facts.to_act(table))


def _game_type() -> str:
    game_id = (request.view_args or {}).get("game_id")
    svc = app_service()
    cached = svc.tables.cached(game_id) if game_id else None  # the table the move just used
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
    api.spec.components.schema("StreamState", schema=StreamStateSchema)  # named by the stream's `data`
    api.register_blueprint(live)
    app.extensions["naipes_fanout"] = Fanout()  # the streams' readers, one per game followed here
    # the first hook: every answer is timed and counted, a refusal by an earlier hook (a 429) too
    app.before_request_funcs.setdefault(None, []).insert(0, _before)
    app.after_request(_after)
