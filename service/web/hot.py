"""The two requests of a move, served without Flask's per-request machinery.

A client plays a move with ``GET /games/{id}/legal-moves`` and ``POST
/games/{id}/moves``: they are most of the service's traffic.  Through Flask, each
of them pays for a request context, the matching of the URL map, six
``before_request`` and four ``after_request`` hooks, flask-smorest's and webargs'
wrappers, a werkzeug Response and its headers object: more CPU than the move
itself.  :class:`HotPath`, a WSGI layer in front of the Flask application, serves
these two requests when they are plain, through the very functions the routes and
the hooks call:

* the credential: :func:`service.web.base.bearer_of`, then
  ``Identity.viewer(..., seat_only=True)``;
* the body: the Content-Type, the size limit, :func:`service.web.bodies.strict_loads`
  and the move body's schema (``type`` and ``label``; the move's own fields are
  checked by the application core, as for every route);
* the headers: :func:`service.web.games.if_match_version`,
  :func:`service.web.games.idempotency_key`, :func:`service.web.base.language_of`;
* the rate limits (:meth:`service.web.ratelimit.RateLimits.count`), the
  application core (``Reads.legal_moves``, ``Moves.move``), the problem
  responses (:func:`service.web.base.problem_for`), the metrics and the access
  log (:func:`service.web.live.observe`).

A request is plain when its method and path are those two operations', it has no
query, it sends a seat token of the path's game, and, for the move, a JSON body
whose length it states, within the size limit, that parses and fits the move body's
schema, with well-formed If-Match and Idempotency-Key (the read has no body).  Any
other request goes to Flask untouched (the bytes of the body read here are handed
back), before anything was counted: Flask answers it as it answers every request,
so every refusal of a credential, a header or a body is Flask's own.  The only answers made here are the
operation's success and the refusals that come after the request was counted (the
rate limit's 429, the core's 404/409/412/422, Redis away, a defect): the same
status, headers and body as Flask's, which ``tests/test_hot_path.py`` holds them to.
"""

from __future__ import annotations

import io
import re
import time

import redis
from werkzeug.http import parse_options_header

from events.envelope import dumps
from service.core.errors import ProblemError
from service.core.ids import is_game_id
from service.logs import game_context, set_version
from service.web.base import bearer_of, language_of, problem_for, redis_down, unexpected
from service.web.bodies import BadJSON, strict_loads
from service.web.games import idempotency_key, if_match_version
from service.web.live import observe, route_pattern
from service.web.ratelimit import Client, limit_headers, ordered
from service.web.schemas import MoveSchema

_PATH = re.compile(r"/games/([^/]+)/(legal-moves|moves)")
_LENGTH = re.compile(r"[0-9]{1,12}")  # a Content-Length this layer reads (any other: Flask's)
_OPERATIONS = {("GET", "legal-moves"), ("POST", "moves")}
_PATTERNS = {"legal-moves": "/games/<game_id:game_id>/legal-moves", "moves": "/games/<game_id:game_id>/moves"}


class _NotPlain(Exception):
    """The request goes to Flask."""


class HotPath:
    """WSGI middleware: ``inner`` is the Flask application's own ``wsgi_app``."""

    def __init__(self, app, inner):
        self.app = app
        self.inner = inner
        self._routes: dict[str, tuple[str, str]] | None = None  # operation -> (endpoint, metrics rule)

    def _prepare(self) -> dict[str, tuple[str, str]]:
        """The endpoints of the two routes, read from the application's URL map at the first request
        (every route is registered by then): the rate limits count per endpoint, as Flask's hook does."""
        found = {}
        for rule in self.app.url_map.iter_rules():
            for name, pattern in _PATTERNS.items():
                if rule.rule == pattern:
                    found[name] = (rule.endpoint, route_pattern(rule.rule))
        self._routes = found
        return found

    def __call__(self, environ, start_response):
        match = _PATH.fullmatch(environ.get("PATH_INFO", ""))
        if (
            match is None
            or (environ.get("REQUEST_METHOD"), match[2]) not in _OPERATIONS
            or environ.get("QUERY_STRING")
            or not is_game_id(match[1])
        ):
            return self.inner(environ, start_response)
        routes = self._routes if self._routes is not None else self._prepare()
        if match[2] not in routes:
            return self.inner(environ, start_response)
        try:
            return self._serve(environ, start_response, match[1], match[2], routes[match[2]])
        except _NotPlain:
            return self.inner(environ, start_response)

    # ------------------------------------------------------------------ the request
    def _serve(self, environ, start_response, game_id: str, operation: str, route: tuple[str, str]):
        t0 = time.perf_counter()
        svc = self.app.extensions["naipes"]
        viewer = self._seat(svc, environ, game_id)
        move = if_match = idem = None
        if operation == "moves":
            move, if_match, idem = self._move(environ)
        elif environ.get("CONTENT_LENGTH", "0") not in ("", "0") or environ.get("HTTP_TRANSFER_ENCODING"):
            raise _NotPlain  # a body on a read: Flask's strict parser looks at it
        lang = language_of(environ.get("HTTP_ACCEPT_LANGUAGE", ""))
        address = environ.get("REMOTE_ADDR") or "unknown"
        limiter = self.app.extensions.get("naipes_rate_limiter")
        windows = (
            ordered(limiter.count(Client("seat", f"{game_id}:{viewer.seat}", address), route[0]))
            if limiter is not None
            else []
        )
        path = environ["PATH_INFO"]
        with game_context(game_id):
            try:
                refused = limiter.refusal(windows) if limiter is not None else None
                if refused is not None:
                    raise refused
                if move is None:
                    body = svc.reads.legal_moves(game_id, viewer, lang)
                    status, headers = 200, []
                else:
                    body = svc.moves.move(
                        game_id, viewer.seat, move, if_match=if_match, idempotency_key=idem, lang=lang
                    )
                    status, headers = 201, [("ETag", f'"{body["version"]}"')]
            except Exception as exc:  # noqa: BLE001 - every failure of a counted request is answered, as Flask does
                return self._failed(environ, start_response, exc, windows, game_id, route, path, t0)
            set_version(body["version"])  # the access log's line names it, as Flask's does
            data = dumps(body)
            headers = [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(data))),
                *headers,
                ("Content-Language", lang),
                ("Vary", "Accept-Language"),
                *limit_headers(windows, status).items(),
            ]
            start_response("201 CREATED" if status == 201 else "200 OK", headers)
            self._observe(svc, environ, route, path, status, t0, game_id, "accepted")
            return [data]

    def _seat(self, svc, environ, game_id: str):
        """The caller: a seat token of the game, or the request is not plain."""
        try:
            credential = bearer_of(environ.get("HTTP_AUTHORIZATION", ""))
            if not credential or not credential.startswith("st_"):
                raise _NotPlain
            return svc.identity.viewer(game_id, credential, seat_only=True)
        except (ProblemError, redis.RedisError):
            raise _NotPlain from None

    def _move(self, environ) -> tuple[dict, int | None, str | None]:
        """The move, If-Match and Idempotency-Key of a plain move request (else not plain; the body
        read is handed back to Flask)."""
        mimetype = parse_options_header(environ.get("CONTENT_TYPE", ""))[0].lower()  # as werkzeug reads it
        length = environ.get("CONTENT_LENGTH", "")
        limit = self.app.config["MAX_CONTENT_LENGTH"]
        if (
            mimetype != "application/json"
            or environ.get("HTTP_TRANSFER_ENCODING")
            or environ.get("HTTP_CONTENT_ENCODING")
            or not _LENGTH.fullmatch(length)
            or not 0 < int(length) <= limit
        ):
            raise _NotPlain
        data = environ["wsgi.input"].read(int(length))
        environ["wsgi.input"] = io.BytesIO(data)  # Flask reads it again if the request is not plain
        if len(data) != int(length):
            raise _NotPlain
        try:
            body = strict_loads(data)
            if_match = if_match_version(environ.get("HTTP_IF_MATCH"))
            idem = idempotency_key(environ.get("HTTP_IDEMPOTENCY_KEY"))
        except (BadJSON, ProblemError):
            raise _NotPlain from None
        return _move_body(body), if_match, idem

    # ------------------------------------------------------------------ the answer
    def _failed(self, environ, start_response, exc, windows, game_id, route, path, t0):
        if isinstance(exc, ProblemError):
            resp = problem_for(exc, sent_credential=True, instance=path)
            result = exc.kind or str(exc.status)
        elif isinstance(exc, redis.exceptions.ConnectionError):
            resp = redis_down(exc, instance=path)
            result = "unavailable"
        else:
            resp = unexpected(exc, instance=path)
            result = "internal"
        for name, value in limit_headers(windows, resp.status_code).items():
            resp.headers[name] = value
        self._observe(self.app.extensions["naipes"], environ, route, path, resp.status_code, t0, game_id, result)
        return resp(environ, start_response)

    @staticmethod
    def _observe(svc, environ, route, path, status, t0, game_id, result) -> None:
        cached = svc.tables.cached(game_id) if route[1].endswith("/moves") else None
        observe(
            route[1],
            environ["REQUEST_METHOD"],
            path,
            status,
            time.perf_counter() - t0,
            game=cached.get("game", "unknown") if cached is not None else None,
            result=result,
        )


# the bounds of the move body's schema, read from it (MoveSchema: type 1 to 64 characters, label at most 1,000)
_TYPE, _LABEL = (MoveSchema().fields[name].validators[0] for name in ("type", "label"))


def _move_body(body) -> dict:
    """The move body as the move body's schema loads it (``MoveSchema``: ``type`` and ``label``,
    strings within its bounds, first; the game's own fields after them, as sent), or the request is
    not plain."""
    if not isinstance(body, dict):
        raise _NotPlain
    kind = body.get("type")
    if not isinstance(kind, str) or not _TYPE.min <= len(kind) <= _TYPE.max:
        raise _NotPlain
    move = {"type": kind}
    if "label" in body:
        label = body["label"]
        if not isinstance(label, str) or len(label) > _LABEL.max:
            raise _NotPlain
        move["label"] = label
    for key, value in body.items():
        if key not in move:
            move[key] = value
    return move
