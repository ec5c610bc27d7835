"""The HTTP layer: thin routes over :mod:`service.application`."""

from __future__ import annotations

import http
import logging
import re
from collections.abc import Callable

from flask import Response, current_app, g, request
from flask.views import MethodView
from flask_smorest import Api, Blueprint
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException

from events.envelope import dumps

from . import problems
from . import schemas as s
from .application import Naipes, ProblemError, Viewer

log = logging.getLogger("naipes.http")

PROBLEM = "application/problem+json"
_IDEMPOTENCY = re.compile(r"[\x21-\x7e]{1,128}")
_VERSION = re.compile(r"[0-9]{1,18}")
_CREDENTIAL = re.compile(r"[\x21-\x7e]{1,512}")


def problem_response(status: int, title: str, detail: str, kind: str, headers: dict | None = None,
                     **extra) -> Response:
    body = {"type": f"urn:naipes:problem:{kind}", "title": title, "status": status, "detail": detail,
            "instance": request.path if request else None, **{k: v for k, v in extra.items() if v is not None}}
    resp = Response(dumps(body), status=status, mimetype=PROBLEM)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


class NaipesApi(Api):
    """flask-smorest's Api, speaking problem+json for every error."""

    ERROR_SCHEMA = s.ProblemSchema

    def _register_responses(self):
        for status in http.HTTPStatus:
            response = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, self.spec, PROBLEM)
            else:
                prepare_response(response, self.spec, self.DEFAULT_RESPONSE_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def handle_http_exception(self, error: HTTPException):
        data = getattr(error, "data", None) or {}
        errors = data.get("errors") or data.get("messages")
        detail = error.description or error.name
        if errors:
            detail = "the request does not fit the contract: " + _flatten(errors)
        if error.code == 429:
            detail = (f"too many requests with this credential (limit: {error.description}); "
                      "retry after the seconds in Retry-After")
            window = getattr(getattr(error, "limit", None), "limit", None)
            headers_429 = {"Retry-After": str(max(1, int(window.get_expiry())) if window else 1)}
            data = {**data, "headers": {**dict(data.get("headers") or {}), **headers_429}}
        kind = problems.for_status(error.code or 500)
        headers = dict(data.get("headers") or {})
        if error.code == 405 and hasattr(error, "valid_methods") and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        return problem_response(error.code or 500, error.name, detail, kind, headers=headers,
                                errors=_jsonable(errors) if errors else None)


def _flatten(errors, prefix: str = "") -> str:
    parts = []
    if isinstance(errors, dict):
        for k, v in errors.items():
            if k in ("json", "query", "headers") and not prefix:
                parts.append(_flatten(v, ""))
            else:
                parts.append(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(errors, list):
        msgs = [m for m in errors if isinstance(m, str)]
        if msgs:
            parts.append(f"{prefix or 'body'}: {' '.join(msgs)}")
        for m in errors:
            if not isinstance(m, str):
                parts.append(_flatten(m, prefix))
    else:
        parts.append(f"{prefix}: {errors}")
    return "; ".join(p for p in parts if p)


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def app_service() -> Naipes:
    return current_app.extensions["naipes"]


def bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ProblemError(401, "Bad Authorization header", "use 'Authorization: Bearer <key or token>'",
                           "unauthorized")
    if not _CREDENTIAL.fullmatch(value.strip()):
        raise ProblemError(401, "Bad Authorization header", "a key or token is 1 to 512 visible ASCII characters",
                           "unauthorized")
    return value.strip()


def caller(game_id: str | None) -> Viewer:
    return app_service().viewer(game_id, bearer())


def require_integrator(scope: str = "games", *alternatives: str) -> Viewer:
    """The caller's integrator key, which must hold ``scope`` or one of the
    ``alternatives`` (401/403 otherwise)."""
    return app_service().require(bearer(), scope, *alternatives)


# ------------------------------------------------------------ the credential of an operation
Resolver = Callable[[dict], "Viewer | None"]


def credential(resolve: Resolver):
    """Declare the credential an operation takes: ``resolve``, given the path's arguments, turns
    the request's bearer credential into the caller or raises the 401/403/404 problem.

    :func:`check_credential`, a request hook, calls it before the body or the query is read, so
    that a bad credential is told so whatever the body holds; the operation then reads the
    caller with :func:`current_caller`."""
    def wrap(fn):
        fn.naipes_credential = resolve
        return fn
    return wrap


def integrator_key(scope: str = "games", *alternatives: str) -> Resolver:
    """An integrator key holding ``scope`` or one of the ``alternatives``."""
    return lambda _args: require_integrator(scope, *alternatives)


def any_caller(args: dict) -> Viewer:
    """A seat token of the path's game, an integrator key, or nothing (a spectator)."""
    return caller(args.get("game_id"))


def seat_token(args: dict) -> Viewer:
    """A seat token of the path's game (no credential: 401; an integrator key: 403)."""
    return app_service().viewer(args["game_id"], bearer(), seat_only=True)


def operation_of(view, method: str):
    """The function serving ``method`` on a route's view (a MethodView's method), or None."""
    cls = getattr(view, "view_class", None)
    if cls is None:
        return None
    method = method.lower()
    return getattr(cls, method, None) or (getattr(cls, "get", None) if method == "head" else None)


def operation():
    """The function serving the current request, or None (no route matched)."""
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    return operation_of(view, request.method) if view is not None else None


def reads_json(op) -> bool:
    """Whether the operation reads a JSON body (its ``@blp.arguments`` of location json)."""
    params = (getattr(op, "_apidoc", None) or {}).get("arguments", {}).get("parameters", [])
    return any(p.get("in") == "json" for p in params)


def check_credential() -> None:
    """Request hook: the operation's credential, decided before anything reads the body or the query."""
    resolve = getattr(operation(), "naipes_credential", None)
    if resolve is not None:
        g.naipes_caller = resolve(request.view_args or {})


def current_caller() -> Viewer | None:
    """The caller :func:`check_credential` resolved for this request."""
    if "naipes_caller" not in g:
        check_credential()
    return g.get("naipes_caller")


def json_response(body, status: int = 200, headers: dict | None = None) -> Response:
    resp = Response(dumps(body), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


CHALLENGE_HEADER = {"WWW-Authenticate": {
    "description": "The Bearer challenge (RFC 6750): `Bearer realm=\"naipes\"`, with `error=\"invalid_token\"` "
                   "when a credential was sent and refused (and `error=\"insufficient_scope\"` with `scope` on a "
                   "403 for a missing scope)",
    "schema": {"type": "string"}}}


def errors(*codes: int):
    """Document problem+json responses for an operation."""
    def wrap(fn):
        for code in codes:
            fn = blp.alt_response(code, schema=s.ProblemSchema, content_type=PROBLEM,
                                  description=http.HTTPStatus(code).phrase,
                                  headers=CHALLENGE_HEADER if code == 401 else None)(fn)
        return fn
    return wrap


INTEGRATOR = [{"integratorKey": []}]
SEAT = [{"seatToken": []}]
ANY = [{"seatToken": []}, {"integratorKey": []}, {}]

blp = Blueprint("naipes", __name__, description="Games, moves, replays and audit trails")


@blp.route("/game-types")
class GameTypes(MethodView):
    @blp.response(200, s.GameTypeSchema(many=True))
    @blp.doc(security=[{}], operationId="listGameTypes", summary="The games naipes hosts, with player counts and options")
    def get(self):
        return json_response(Naipes.game_types())


@blp.route("/games")
class Games(MethodView):
    @credential(integrator_key())
    @blp.arguments(s.CreateGameSchema)
    @blp.response(201, s.CreatedGameSchema)
    @errors(400, 401, 403, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="createGame", summary="Create a game; returns each seat's token once")
    def post(self, body):
        viewer = current_caller()
        created = app_service().create_game(body["game"], body["players"], body.get("options") or {},
                                            owner=viewer.key_id)
        return json_response(created, 201, {"Location": f"/games/{created['id']}"})

    @credential(integrator_key())
    @blp.arguments(s.GameListQuerySchema, location="query")
    @blp.response(200, s.GameListSchema)
    @errors(401, 403, 422)
    @blp.doc(security=INTEGRATOR, operationId="listGames",
             summary="List games, newest first, filtered by type and status; page on with next_cursor")
    def get(self, query):
        viewer = require_integrator()
        return json_response(app_service().list_games(query.get("game"), query.get("status"), query["limit"],
                                                      query["offset"], cursor=query.get("cursor"), viewer=viewer))


@blp.route("/games/<game_id:game_id>")
class Game(MethodView):
    @credential(any_caller)
    @blp.response(200, s.GameViewSchema, headers={"ETag": {"description": "The game's version",
                                                          "schema": {"type": "string"}}})
    @blp.alt_response(304, description="Not modified (If-None-Match names the current version)")
    @errors(401, 403, 404)
    @blp.doc(security=ANY, operationId="getGame", summary="The game as the caller may see it",
             parameters=[{"in": "header", "name": "If-None-Match", "schema": {"type": "string"}, "required": False,
                          "description": "An ETag from an earlier response"}])
    def get(self, game_id):
        view = app_service().state_view(game_id, current_caller())
        etag = f'"{view["version"]}"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        return json_response(view, headers={"ETag": etag})


@blp.route("/games/<game_id:game_id>/players")
class Players(MethodView):
    @credential(integrator_key())
    @blp.arguments(s.JoinSchema)
    @blp.response(201, s.JoinedSchema)
    @errors(400, 401, 403, 404, 409, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="joinGame",
             summary="A newcomer joins a running game where its options allow it (Dalmuti: allow_joining)")
    def post(self, body, game_id):
        return json_response(app_service().join(game_id, body["player"]), 201)


@blp.route("/games/<game_id:game_id>/legal-moves")
class LegalMoves(MethodView):
    @credential(seat_token)
    @blp.response(200, s.LegalMovesSchema)
    @errors(401, 403, 404)
    @blp.doc(security=SEAT, operationId="getLegalMoves", summary="The moves the caller's seat may make now")
    def get(self, game_id):
        return json_response(app_service().legal_moves(game_id, current_caller()))


@blp.route("/games/<game_id:game_id>/moves")
class Moves(MethodView):
    @credential(seat_token)
    @blp.arguments(s.MoveSchema)
    @blp.response(201, s.MoveResultSchema)
    @errors(400, 401, 403, 404, 409, 412, 413, 415, 422)
    @blp.doc(security=SEAT, operationId="postMove", summary="Make a move for the caller's seat",
             parameters=[
                 {"in": "header", "name": "If-Match", "required": False, "schema": {"type": "string"},
                  "description": "The version the move expects (an ETag); 412 if the game has moved on"},
                 {"in": "header", "name": "Idempotency-Key", "required": False,
                  "schema": {"type": "string", "maxLength": 128},
                  "description": "Retries with the same key return the first answer and append nothing"},
             ])
    def post(self, move, game_id):
        viewer = current_caller()
        if_match = _if_match()
        idem = request.headers.get("Idempotency-Key")
        if idem is not None and not _IDEMPOTENCY.fullmatch(idem):
            raise ProblemError(400, "Bad Idempotency-Key", "Idempotency-Key must be 1 to 128 visible ASCII characters",
                               "bad-request")
        result = app_service().move(game_id, viewer.seat, move, if_match=if_match, idempotency_key=idem)
        return json_response(result, 201, {"ETag": f'"{result["version"]}"'})


def _if_match() -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    value = raw.strip().removeprefix("W/").strip('"')
    if not _VERSION.fullmatch(value):
        raise ProblemError(400, "Bad If-Match", "If-Match must be a version number (1 to 18 ASCII digits), "
                           "as given in ETag", "bad-request")
    return int(value)


@blp.route("/games/<game_id:game_id>/events")
class Events(MethodView):
    @credential(any_caller)
    @blp.arguments(s.EventsQuerySchema, location="query")
    @blp.response(200, s.EventsSchema)
    @errors(401, 404, 422)
    @blp.doc(security=ANY, operationId="getEvents", summary="The event log as the caller may see it; long-polls with wait")
    def get(self, query, game_id):
        return json_response(app_service().events(game_id, current_caller(), query["after"], query["wait"],
                                                  query["limit"]))


@blp.route("/games/<game_id:game_id>/replay")
class Replay(MethodView):
    @credential(any_caller)
    @blp.arguments(s.ReplayQuerySchema, location="query")
    @blp.response(200, s.GameViewSchema)
    @errors(400, 401, 403, 404, 422, 503)
    @blp.doc(security=ANY, operationId="getReplay", summary="The caller's view of the game as it was at a version")
    def get(self, query, game_id):
        return json_response(app_service().replay(game_id, current_caller(), query["version"], query.get("as_")))


@blp.route("/games/<game_id:game_id>/audit")
class Audit(MethodView):
    @credential(integrator_key("review", "games", "admin", "tournaments"))
    @blp.response(200, s.AuditSchema)
    @errors(401, 403, 404)
    @blp.doc(security=INTEGRATOR, operationId="getAudit", summary="Every event whole, and whether the hash chain verifies")
    def get(self, game_id):
        app_service().require_full_sight(game_id, current_caller())
        return json_response(app_service().audit(game_id))


NDJSON = "application/x-ndjson"
IMPORT_LIMIT = 32 * 1024 * 1024


@blp.route("/games/<game_id:game_id>/export")
class Export(MethodView):
    @credential(integrator_key("review", "games", "admin", "tournaments"))
    @errors(401, 403, 404)
    @blp.doc(security=INTEGRATOR, operationId="exportGame",
             summary="The whole log as JSON Lines (a header, then every event whole), for naipes verify and import",
             responses={"200": {"description": "The log", "content": {NDJSON: {"schema": {"type": "string"}}}}})
    def get(self, game_id):
        viewer = current_caller()
        service = app_service()
        service.require_full_sight(game_id, viewer)
        log.info("export of game %s by %s", game_id, viewer.key_id)
        return Response(service.export_lines(game_id), mimetype=NDJSON,
                        headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'})


@blp.route("/games/import")
class Import(MethodView):
    @credential(integrator_key("games"))
    @blp.response(201, s.ImportedGameSchema)
    @errors(400, 401, 403, 409, 413, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="importGame",
             summary="Load an exported log into this store: checked like naipes verify, then replayable as it was",
             requestBody={"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}})
    def post(self):
        viewer = current_caller()
        if request.mimetype not in (NDJSON, "application/jsonl", "text/plain"):
            raise ProblemError(415, "Unsupported Media Type", f"send the export as {NDJSON}", "unsupported-media-type")
        request.max_content_length = IMPORT_LIMIT
        lines = request.get_data().splitlines()
        created = app_service().import_lines(lines, viewer)
        return json_response(created, 201, {"Location": f"/games/{created['id']}"})


def _review(game_id: str, kind: str, body: dict) -> Response:
    """A reviewer's event (freeze, note, adjudication): the review scope (checked by the request
    hook, see :func:`credential`), then the application."""
    return json_response(app_service().review(game_id, current_caller(), kind, body), 201)


REVIEWER = integrator_key("review")


@blp.route("/games/<game_id:game_id>/freeze")
class Freeze(MethodView):
    @credential(REVIEWER)
    @blp.arguments(s.FreezeSchema)
    @blp.response(201, s.ReviewResultSchema)
    @errors(400, 401, 403, 404, 409, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="freezeGame",
             summary="A reviewer freezes the game: moves and deadlines stop until an unfreeze adjudication")
    def post(self, body, game_id):
        return _review(game_id, "freeze", body)


@blp.route("/games/<game_id:game_id>/notes")
class Notes(MethodView):
    @credential(REVIEWER)
    @blp.arguments(s.NoteSchema)
    @blp.response(201, s.ReviewResultSchema)
    @errors(400, 401, 403, 404, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="addNote", summary="A reviewer attaches a note to a version")
    def post(self, body, game_id):
        return _review(game_id, "note", body)


@blp.route("/games/<game_id:game_id>/adjudications")
class Adjudications(MethodView):
    @credential(REVIEWER)
    @blp.arguments(s.AdjudicationSchema)
    @blp.response(201, s.ReviewResultSchema)
    @errors(400, 401, 403, 404, 409, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="adjudicate",
             summary="A reviewer's ruling, appended to the log: void, award a result, correct scores, unfreeze")
    def post(self, body, game_id):
        return _review(game_id, "adjudicate", body)


ADMIN = integrator_key("admin")


@blp.route("/keys")
class Keys(MethodView):
    @credential(ADMIN)
    @blp.arguments(s.CreateKeySchema)
    @blp.response(201, s.KeySchema)
    @errors(400, 401, 403, 415, 422)
    @blp.doc(security=INTEGRATOR, operationId="createKey",
             summary="Create an integrator key with scopes (admin scope); the secret is shown once")
    def post(self, body):
        return json_response(app_service().keys.create(body["name"], body["scopes"]), 201)

    @credential(ADMIN)
    @blp.response(200, s.KeySchema(many=True))
    @errors(401, 403)
    @blp.doc(security=INTEGRATOR, operationId="listKeys", summary="The stored integrator keys (never their secrets)")
    def get(self):
        return json_response(app_service().keys.list())


@blp.route("/keys/<key_id>")
class Key(MethodView):
    @credential(ADMIN)
    @blp.response(200, s.KeySchema)
    @errors(401, 403, 404)
    @blp.doc(security=INTEGRATOR, operationId="revokeKey", summary="Revoke a key: it is refused from now on")
    def delete(self, key_id):
        rec = app_service().keys.revoke(key_id)
        if rec is None:
            raise ProblemError(404, "Key not found", f"there is no key '{key_id}'", "key-not-found")
        return json_response(rec)


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, s.HealthSchema)
    @errors(503)
    @blp.doc(security=[{}], operationId="getHealth",
             summary="Whether Redis answers (else 503), RQ workers are alive and the deadline scheduler runs")
    def get(self):
        try:
            ok = bool(app_service().redis.ping())
        except Exception:  # noqa: BLE001 - any Redis failure means unhealthy
            ok = False
        if not ok:
            raise ProblemError(503, "Redis unreachable", "the service cannot reach Redis", "unavailable")
        from .http_live import health_details

        return json_response(health_details(app_service()))
