"""What every route module of the HTTP edge uses: the API (its problem+json
errors), the one blueprint of the game routes, how a request's credential is
resolved before anything reads its body, and JSON responses.

The routes themselves are thin, one module per resource: :mod:`service.web.games`
(game types, games, seats' moves), :mod:`service.web.records` (events, replays,
audit, export, import, review), :mod:`service.web.keys`, :mod:`service.web.health`,
:mod:`service.web.live` (stream, metrics, the viewer page) and
:mod:`service.web.tournaments`."""

from __future__ import annotations

import functools
import http
import logging
import re
from collections.abc import Callable

import marshmallow as ma
from flask import Response, current_app, g, request
from flask_smorest import Api
from flask_smorest import Blueprint as SmorestBlueprint
from flask_smorest.utils import prepare_response
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import LanguageAccept
from werkzeug.exceptions import HTTPException
from werkzeug.http import parse_accept_header

from events.envelope import dumps
from service.core import problems
from service.core.errors import ProblemError
from service.core.identity import Viewer
from service.core.naipes import Naipes
from service.core.words import LANGUAGES
from service.web import schemas as s
from service.web.bodies import SURROGATE
from service.web.ratelimit import RateLimitDocs, document_headers, response_headers

log = logging.getLogger("naipes.http")

PROBLEM = "application/problem+json"
_IDEMPOTENCY = re.compile(r"[\x21-\x7e]{1,128}")
_VERSION = re.compile(r"[0-9]{1,18}")
_CREDENTIAL = re.compile(r"[\x21-\x7e]{1,512}")


_THIS_REQUEST = object()


_QUOTED = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")  # what RFC 6750 allows in error_description


def bearer_challenge(error: str | None = None, description: str | None = None, scope: str | None = None) -> str:
    """A WWW-Authenticate value (RFC 6750, 3): no error code when no credential was sent."""
    value = 'Bearer realm="naipes"'
    if error:
        value += f', error="{error}"'
        if description:
            value += f', error_description="{_QUOTED.sub("?", description)[:200]}"'
    if scope:
        value += f', scope="{scope}"'
    return value


def _printable(value):
    """A problem's member as JSON can carry it: a lone surrogate that reached a detail becomes '?'."""
    if isinstance(value, str):
        return SURROGATE.sub("?", value)
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_printable(v) for v in value]
    return value


def problem_for(exc: ProblemError, sent_credential: bool, instance: object = _THIS_REQUEST) -> Response:
    """The response of a refusal: its problem+json, with the Bearer challenge of a 401 (and of a
    missing scope); ``sent_credential``: whether the request carried one."""
    headers = dict(exc.extra.pop("headers", None) or {})
    if exc.status == 401:
        headers.setdefault(
            "WWW-Authenticate", bearer_challenge("invalid_token" if sent_credential else None, exc.title)
        )
    elif exc.kind == "scope-missing":
        scopes = exc.extra.get("scopes") or [exc.extra.get("scope")]
        headers.setdefault(
            "WWW-Authenticate",
            bearer_challenge("insufficient_scope", exc.title, " ".join(str(s) for s in scopes if s)),
        )
    extra = {k: _printable(v) for k, v in exc.extra.items()}
    return problem_response(
        exc.status,
        _printable(exc.title),
        _printable(exc.detail),
        exc.kind,
        headers=headers,
        instance=instance,
        **extra,
    )


def redis_down(exc: Exception, instance: object = _THIS_REQUEST) -> Response:
    log.error("redis unreachable: %s", exc)
    return problem_response(
        503,
        "Service Unavailable",
        "the event store is unreachable; try again",
        "unavailable",
        headers={"Retry-After": "1"},
        instance=instance,
    )


def unexpected(exc: Exception, instance: object = _THIS_REQUEST) -> Response:
    """A defect: logged whole, answered without leaking internals."""
    log.exception("unhandled error", exc_info=exc)
    return problem_response(
        500, "Internal Server Error", "an unexpected error occurred; it has been logged", "internal", instance=instance
    )


def problem_response(
    status: int,
    title: str,
    detail: str,
    kind: str,
    headers: dict | None = None,
    *,
    instance: object = _THIS_REQUEST,
    **extra,
) -> Response:
    """A problem+json response; ``instance``: the path it is about (the current request's by default)."""
    if instance is _THIS_REQUEST:
        instance = request.path if request else None
    body = {
        "type": f"urn:naipes:problem:{kind}",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": instance,
        **{k: v for k, v in extra.items() if v is not None},
    }
    resp = Response(dumps(body), status=status, mimetype=PROBLEM)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


class NaipesApi(Api):
    """flask-smorest's Api, speaking problem+json for every error."""

    ERROR_SCHEMA = s.ProblemSchema

    def _init_spec(self, *, extra_plugins=None, **kwargs):
        super()._init_spec(extra_plugins=[*(extra_plugins or ()), RateLimitDocs()], **kwargs)

    def _register_responses(self):
        document_headers(self.spec)
        for status in http.HTTPStatus:
            response = {"description": status.phrase, "headers": response_headers(status.value)}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, self.spec, PROBLEM)
            else:
                prepare_response(response, self.spec, self.DEFAULT_RESPONSE_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {
            "description": "Default error response",
            "schema": self.ERROR_SCHEMA,
            "headers": response_headers("default"),
        }
        prepare_response(response, self.spec, PROBLEM)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def handle_http_exception(self, error: HTTPException):
        data = getattr(error, "data", None) or {}
        errors = data.get("errors") or data.get("messages")
        detail = error.description or error.name
        if errors:
            detail = "the request does not fit the contract: " + _flatten(errors)
        kind = problems.for_status(error.code or 500)
        headers = dict(data.get("headers") or {})
        if error.code == 405 and hasattr(error, "valid_methods") and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        return problem_response(
            error.code or 500, error.name, detail, kind, headers=headers, errors=_jsonable(errors) if errors else None
        )


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
    return bearer_of(request.headers.get("Authorization", ""))


def bearer_of(header: str) -> str | None:
    """The credential of an Authorization header (None: no header; 401 problem: not a bearer credential)."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ProblemError(
            401, "Bad Authorization header", "use 'Authorization: Bearer <key or token>'", "unauthorized"
        )
    if not _CREDENTIAL.fullmatch(value.strip()):
        raise ProblemError(
            401, "Bad Authorization header", "a key or token is 1 to 512 visible ASCII characters", "unauthorized"
        )
    return value.strip()


def caller(game_id: str | None) -> Viewer:
    return app_service().identity.viewer(game_id, bearer())


def require_integrator(scope: str = "games", *alternatives: str, game_id: str | None = None) -> Viewer:
    """The caller's integrator key, which must hold ``scope`` or one of the
    ``alternatives`` (401/403 otherwise; a seat token of ``game_id``: 403)."""
    return app_service().identity.require(bearer(), scope, *alternatives, game_id=game_id)


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
    return lambda args: require_integrator(scope, *alternatives, game_id=args.get("game_id"))


def any_caller(args: dict) -> Viewer:
    """A seat token of the path's game, an integrator key, or nothing (a spectator)."""
    return caller(args.get("game_id"))


def seat_token(args: dict) -> Viewer:
    """A seat token of the path's game (no credential: 401; an integrator key: 403)."""
    return app_service().identity.viewer(args["game_id"], bearer(), seat_only=True)


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


def reads_other_body(op) -> bool:
    """Whether the operation's body is of a type of its own, not JSON (an import's NDJSON): its own
    check of the Content-Type speaks for it (415), not the JSON parser."""
    body = ((getattr(op, "_apidoc", None) or {}).get("manual_doc") or {}).get("requestBody") or {}
    content = body.get("content") or {}
    return bool(content) and "application/json" not in content


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


def language() -> str:
    """The language of the labels of moves and events: the best of Accept-Language among the
    languages the games speak (English unless the caller prefers Spanish)."""
    return language_of(request.headers.get("Accept-Language", ""))


@functools.lru_cache(maxsize=256)
def language_of(accept_language: str) -> str:
    """The language an Accept-Language header asks for (see :func:`language`)."""
    return parse_accept_header(accept_language, LanguageAccept).best_match(LANGUAGES, default="en")


# the contract's words for the headers responses carry beside their body
LANGUAGE_HEADERS = {
    "Content-Language": {
        "description": "The language of the labels in this response (en or es), as Accept-Language chose it",
        "schema": {"type": "string", "enum": list(LANGUAGES)},
    },
    "Vary": {"description": "Accept-Language: the labels follow it", "schema": {"type": "string"}},
}
LOCATION_HEADER = {"Location": {"description": "The path of what was created", "schema": {"type": "string"}}}


def language_headers(lang: str) -> dict:
    """What a response whose moves or events carry labels says of their language."""
    return {"Content-Language": lang, "Vary": "Accept-Language"}


def labelled(body, lang: str, status: int = 200, headers: dict | None = None) -> Response:
    """A JSON response whose moves or events carry labels in ``lang``."""
    return json_response(body, status, {**(headers or {}), **language_headers(lang)})


def json_response(body, status: int = 200, headers: dict | None = None) -> Response:
    resp = Response(dumps(body), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


CHALLENGE_HEADER = {
    "WWW-Authenticate": {
        "description": 'The Bearer challenge (RFC 6750): `Bearer realm="naipes"`, with `error="invalid_token"` '
        'when a credential was sent and refused (and `error="insufficient_scope"` with `scope` on a '
        "403 for a missing scope)",
        "schema": {"type": "string"},
    }
}


def errors(*codes: int):
    """Document problem+json responses for an operation."""

    def wrap(fn):
        for code in codes:
            fn = blp.alt_response(
                code,
                schema=s.ProblemSchema,
                content_type=PROBLEM,
                description=http.HTTPStatus(code).phrase,
                headers=CHALLENGE_HEADER if code == 401 else None,
            )(fn)
        return fn

    return wrap


INTEGRATOR = [{"integratorKey": []}]
SEAT = [{"seatToken": []}]
ANY = [{"seatToken": []}, {"integratorKey": []}, {}]


class QueryParser(FlaskParser):
    """webargs' parser, with one rule for a query parameter given more than once: a parameter that takes
    one value answers 422 naming it, whichever route it came to, rather than one of the values chosen
    silently (``?limit=1&limit=500`` is two requests in one; a proxy and the service could each read a
    different one)."""

    def load_querystring(self, req, schema):
        args = req.args
        repeated = {
            field.data_key or name: ["given more than once: give one value"]
            for name, field in schema.fields.items()
            if not field.dump_only
            and not isinstance(field, ma.fields.List | ma.fields.Tuple)
            and len(args.getlist(field.data_key or name)) > 1
        }
        if repeated:
            raise ma.ValidationError(repeated)
        return super().load_querystring(req, schema)


class Blueprint(SmorestBlueprint):
    """A resource's routes: flask-smorest's blueprint, reading queries with :class:`QueryParser`."""

    ARGUMENTS_PARSER = QueryParser()


blp = Blueprint("naipes", __name__, description="Games, moves, replays and audit trails")
