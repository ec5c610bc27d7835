"""The Flask application factory: ``gunicorn 'service.web.app:create_app()'``."""

from __future__ import annotations

import json
import logging
import math
import re
from http import HTTPStatus

import redis
import yaml
from flask import Flask, Response, current_app, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge, default_exceptions

from service import bootstrap
from service.core import problems
from service.core.errors import ProblemError

# isort: off
from service.core.naipes import Naipes

# isort: off
# the resource modules add their routes to the blueprint as they are imported: this order is the contract's
from service.web import games, records, keys, health, me, seats  # noqa: F401

# isort: on
from service.web import docs, ids, live
from service.web.base import (
    PROBLEM,
    NaipesApi,
    blp,
    check_credential,
    operation,
    problem_response,
    reads_json,
)
from service.web.ratelimit import attach_rate_limits
from service.web.tournaments import install as install_tournaments

log = logging.getLogger("naipes")

API_TITLE = "naipes"
API_VERSION = "1.0.0"

SPEC_OPTIONS = {
    "info": {
        "description": (
            "An event-sourced card-game service. Every move is an event in a hash-chained log; "
            "every response is filtered by who asks: a seat token sees its own cards, no token is a spectator, "
            "an integrator key sees everything. Errors are application/problem+json (RFC 9457)."
        ),
    },
    "servers": [{"url": "http://127.0.0.1:8000", "description": "the start command's default"}],
    "components": {
        "securitySchemes": {
            "integratorKey": {
                "type": "http",
                "scheme": "bearer",
                "description": "An integrator key (NAIPES_API_KEYS or printed by the start command)",
            },
            "seatToken": {
                "type": "http",
                "scheme": "bearer",
                "description": "A seat's token, returned once by POST /games",
            },
        }
    },
}


INT_MIN, INT_MAX = -(2**63), 2**63 - 1  # what the event store's JSON (orjson) can write back
_SURROGATE = re.compile("[\ud800-\udfff]")


class BadJSON(ValueError):
    """A request body the strict parser refuses; the message names the problem and never quotes the body."""


class _Refused:
    """A number the parser read but refuses; the walk over the value names where it stood."""

    def __init__(self, why: str):
        self.why = why


def _strict_int(text: str) -> int | _Refused:
    if len(text) > 20 or not INT_MIN <= (value := int(text)) <= INT_MAX:
        return _Refused(f"the integer is outside the 64-bit range {INT_MIN} to {INT_MAX}")
    return value


def _strict_float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused("the number is too large for a double: numbers must be finite")
    return value


def _not_a_number(name: str) -> _Refused:
    return _Refused(f"{name} is not JSON: numbers must be finite")


def _where(path: tuple | None) -> str:
    """``players[1]`` of a path kept as ``(parent, key)`` links; member names shortened, never unprintable."""
    parts = []
    while path is not None:
        path, part = path
        parts.append(f"[{part}]" if isinstance(part, int) else "." + _SURROGATE.sub("?", part[:40]))
    return "".join(reversed(parts)).lstrip(".") or "the body"


def _check(value) -> None:
    """No refused number, and every string and member name valid Unicode: no lone surrogate (a
    \\ud800-\\udfff escape without its pair), which nothing downstream could store or send back."""
    stack = [(value, None)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Refused):
            raise BadJSON(f"{_where(path)}: {node.why}")
        if isinstance(node, str):
            if _SURROGATE.search(node):
                raise BadJSON(
                    f"{_where(path)}: a string holds a lone surrogate escape (\\ud800 to \\udfff "
                    "without its pair); text must be valid Unicode"
                )
        elif isinstance(node, dict):
            for k, v in node.items():
                if _SURROGATE.search(k):
                    raise BadJSON(
                        f"{_where(path)}: a member name holds a lone surrogate escape (\\ud800 to "
                        "\\udfff without its pair); text must be valid Unicode"
                    )
                stack.append((v, (path, k)))
        elif isinstance(node, list):
            stack.extend((v, (path, i)) for i, v in enumerate(node))


def strict_loads(data: str | bytes) -> object:
    """The one JSON parser of request bodies: standard JSON, UTF-8, valid Unicode text, integers within
    64 bits and finite numbers only (anything else is :class:`BadJSON`)."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJSON(f"the body is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(data, parse_int=_strict_int, parse_float=_strict_float, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        raise BadJSON(f"the body is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise BadJSON("the JSON body is nested too deeply") from None
    _check(value)
    return value


def _printable(value):
    """A problem's member as JSON can carry it: a lone surrogate that reached a detail becomes '?'."""
    if isinstance(value, str):
        return _SURROGATE.sub("?", value)
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_printable(v) for v in value]
    return value


class NaipesFlask(Flask):
    """Flask, asking once per function (not on every request) whether a hook or view is a coroutine:
    the service has none, and the question costs an inspection per hook per request."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._sync: dict = {}  # the application's own: it keeps its hooks' objects alive, and no longer

    def ensure_sync(self, func):
        found = self._sync.get(func)
        if found is None:
            found = self._sync[func] = super().ensure_sync(func)
        return found


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON with :func:`strict_loads` for reading."""

    def loads(self, s, **kwargs):
        return strict_loads(s)


def _strict_body():
    """Every JSON request body goes through the strict parser before any route reads it: a body it
    refuses is a 400 naming the problem (the routes' own parsing then only sees sound JSON)."""
    if not request.is_json:
        return None
    data = request.get_data(cache=True)  # a Content-Length over MAX_CONTENT_LENGTH: 413
    limit = request.max_content_length
    if (
        request.content_length is None
        and limit is not None
        and len(data) >= limit
        and request.environ["wsgi.input"].read(1)
    ):
        raise RequestEntityTooLarge()  # a chunked body goes on past the limit, where get_data stopped reading
    if not data.strip():
        return None
    try:
        value = current_app.json.loads(data)
    except BadJSON as exc:
        return problem_response(400, "Invalid JSON body", str(exc), "bad-request")
    request._cached_json = (value, value)  # what request.get_json() returns from here on: parsed once
    return None


def _json_body_type():
    """A body an operation reads as JSON is sent as JSON: one sent with another Content-Type (or
    none) is a 415 naming the type, rather than a schema's "missing data" for fields it holds.
    After the credential (see service.web.base.check_credential), before the strict parser."""
    if request.is_json or not reads_json(operation()):
        return
    if not request.get_data(cache=True).strip():
        return  # no body at all: the schema names the fields it needs
    got = f"Content-Type {request.mimetype[:100]}" if request.mimetype else "no Content-Type"
    raise ProblemError(
        415,
        "Unsupported Media Type",
        f"this operation reads a JSON body: send it with Content-Type: application/json (got {got})",
        "unsupported-media-type",
        headers={"Accept-Post": "application/json"} if request.method == "POST" else None,
    )


def _sent_credential() -> bool:
    """Whether the request carried a bearer credential (the stream also takes one as ?token=)."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return True
    return (
        bool(request.args.get("token")) and request.url_rule is not None and request.url_rule.rule.endswith("/stream")
    )


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


def _challenge(resp: Response) -> Response:
    """Every 401 carries the Bearer challenge, whoever answered it."""
    if resp.status_code == 401 and "WWW-Authenticate" not in resp.headers:
        resp.headers["WWW-Authenticate"] = bearer_challenge("invalid_token" if _sent_credential() else None)
    return resp


def _errors_as_problems(resp: Response) -> Response:
    """An error a library answered by itself (a file's failed precondition, say) is problem+json too."""
    if resp.status_code < 400 or resp.mimetype == PROBLEM:
        return resp
    known = default_exceptions[resp.status_code]() if resp.status_code in default_exceptions else None
    title = known.name if known else HTTPStatus(resp.status_code).phrase
    detail = known.description if known else title
    keep = {
        k: v
        for k, v in resp.headers.items()
        if k in ("Allow", "Retry-After", "ETag", "Last-Modified", "WWW-Authenticate")
    }
    return problem_response(resp.status_code, title, detail, problems.for_status(resp.status_code), headers=keep)


def create_app(service: Naipes | None = None, redis_url: str | None = None, *, rate_limit: str | None = None) -> Flask:
    """``rate_limit``: the limits per credential (default from
    ``NAIPES_RATE_LIMIT``; ``"off"`` for none)."""
    app = NaipesFlask("naipes")
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS=SPEC_OPTIONS,
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    app.json = StrictJSONProvider(app)
    if service is None:
        service = bootstrap.build("web", redis_url=redis_url)
    else:
        bootstrap.wire(service, schedule=False)  # a caller's application: its scheduler is the caller's
    app.extensions["naipes"] = service
    attach_rate_limits(app, service.redis, rate_limit)

    from service.web.examples import ExamplesPlugin
    from service.web.schemas import MovesPlugin

    api = NaipesApi(app, spec_kwargs={"extra_plugins": [ExamplesPlugin(), MovesPlugin()]})
    ids.install(app, api)  # before any route: every path id goes through the one validator
    api.register_blueprint(blp)
    live.install(api, app)  # stream, metrics, replay viewer
    install_tournaments(api)
    docs.install(app)  # the contract rendered at /docs: outside the contract, like /openapi.json
    # after the rate limits (and the refusal of revoked keys) and the timing hook, in this order: the
    # operation's credential, then the body's type, then its JSON, then (in the route) its schema
    app.before_request(check_credential)
    app.before_request(_json_body_type)
    app.before_request(_strict_body)
    app.after_request(_challenge)  # after_request hooks run last registered first: on the final response
    app.after_request(_errors_as_problems)

    @app.errorhandler(ProblemError)
    def _problem(exc: ProblemError):
        headers = dict(exc.extra.pop("headers", None) or {})
        if exc.status == 401:
            headers.setdefault(
                "WWW-Authenticate", bearer_challenge("invalid_token" if _sent_credential() else None, exc.title)
            )
        elif exc.kind == "scope-missing":
            scopes = exc.extra.get("scopes") or [exc.extra.get("scope")]
            headers.setdefault(
                "WWW-Authenticate",
                bearer_challenge("insufficient_scope", exc.title, " ".join(str(s) for s in scopes if s)),
            )
        extra = {k: _printable(v) for k, v in exc.extra.items()}
        return problem_response(
            exc.status, _printable(exc.title), _printable(exc.detail), exc.kind, headers=headers, **extra
        )

    @app.errorhandler(RecursionError)
    def _too_deep(exc):
        return problem_response(400, "Bad Request", "the JSON body is nested too deeply", "bad-request")

    @app.errorhandler(redis.exceptions.ConnectionError)
    def _redis_down(exc):
        log.error("redis unreachable: %s", exc)
        return problem_response(
            503,
            "Service Unavailable",
            "the event store is unreachable; try again",
            "unavailable",
            headers={"Retry-After": "1"},
        )

    @app.errorhandler(Exception)
    def _unexpected(exc):  # a defect: log it whole, answer without leaking internals
        log.exception("unhandled error")
        return problem_response(
            500, "Internal Server Error", "an unexpected error occurred; it has been logged", "internal"
        )

    @app.get("/openapi.yaml")
    def _openapi_yaml():
        return Response(
            yaml.safe_dump(api.spec.to_dict(), sort_keys=False, allow_unicode=True), mimetype="application/yaml"
        )

    app.extensions["naipes_api"] = api
    return app


def spec_yaml(app: Flask) -> str:
    return yaml.safe_dump(app.extensions["naipes_api"].spec.to_dict(), sort_keys=False, allow_unicode=True)
