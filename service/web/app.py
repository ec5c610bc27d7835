"""The Flask application factory: ``gunicorn 'service.web.app:create_app()'``."""

from __future__ import annotations

import logging
from functools import partial
from http import HTTPStatus

import redis
import yaml
from flask import Flask, Response, current_app, request
from flask.json.provider import DefaultJSONProvider
from flask.testing import FlaskClient
from werkzeug.exceptions import RequestEntityTooLarge, default_exceptions
from werkzeug.wsgi import ClosingIterator

from service import bootstrap
from service.core import afterwards, problems
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
    bearer_challenge,
    blp,
    check_credential,
    operation,
    problem_for,
    problem_response,
    reads_json,
    reads_other_body,
    redis_down,
    unexpected,
)
from service.web.bodies import BadJSON, strict_loads
from service.web.hot import HotPath
from service.web.ratelimit import attach_rate_limits, trust_proxies
from service.web.schemas import ExportHeaderSchema
from service.web.tournaments import install as install_tournaments

log = logging.getLogger("naipes")

API_TITLE = "naipes"
API_VERSION = "1.0.0"

SPEC_OPTIONS = {
    "info": {
        "description": (
            "An event-sourced card-game service. Every move is an event in a hash-chained log; "
            "every response is filtered by who asks, by one decision for every route, stream and export: a seat "
            "token sees its own cards; no token is a spectator, who sees no hidden card; an integrator key sees "
            "every card of the games it owns (or whose tournament it owns), a key with the review or admin scope "
            "of every game, any other key what a spectator sees. A game may show every card once it is over "
            "(option public_after_end), and a duplicate tournament round holds back what its other tables still "
            "play (`embargo`). Errors are application/problem+json (RFC 9457). Each operation answers in the one "
            "type it documents (JSON; the stream's text/event-stream; the export's NDJSON; the viewer's HTML): "
            "Accept is not negotiated, and no request is refused for it. A query parameter takes one value: "
            "given twice, it is a 422 naming it."
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


class AfterAnswer:
    """WSGI middleware: what a request leaves for after its answer (:mod:`service.core.afterwards`:
    what a game's end sets going) runs when the server closes the answer's body, once it was sent.
    An answer that left nothing goes out as it came (most of them)."""

    def __init__(self, inner):
        self.inner = inner

    def __call__(self, environ, start_response):
        with afterwards.collected() as pending:
            try:
                body = self.inner(environ, start_response)
            except BaseException:
                afterwards.run(pending)
                raise
        if not pending:
            return body
        return ClosingIterator(body, partial(afterwards.run, pending))


class ClosingClient(FlaskClient):
    """Flask's test client, closing each answer it reads whole as a WSGI server does once the answer
    is sent (what the request left for after its answer then runs: :class:`AfterAnswer`).  An event
    stream is read, and closed, by its caller."""

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        if response.mimetype != "text/event-stream":
            response.get_data()
            response.close()
        return response


class NaipesFlask(Flask):
    """Flask, asking once per function (not on every request) whether a hook or view is a coroutine:
    the service has none, and the question costs an inspection per hook per request."""

    test_client_class = ClosingClient

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
    if not request.is_json or reads_other_body(operation()):
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


def _content_coding():
    """A body is read as sent: one with a content coding (``Content-Encoding: gzip``) is a 415 naming
    it (RFC 9110, 15.5.16), rather than its compressed bytes read as JSON, or a header that says one thing
    of a body that is another taken at its word."""
    coding = request.headers.get("Content-Encoding", "").strip()
    if not coding or coding.lower() == "identity" or not request.get_data(cache=True):
        return
    raise ProblemError(
        415,
        "Unsupported Media Type",
        f"request bodies are read without a content coding: send it uncompressed, with no Content-Encoding (got "
        f"Content-Encoding {coding[:100]})",
        "unsupported-media-type",
        headers={"Accept-Encoding": "identity"},
    )


def _sent_credential() -> bool:
    """Whether the request carried a bearer credential (the stream also takes one as ?token=)."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return True
    return (
        bool(request.args.get("token")) and request.url_rule is not None and request.url_rule.rule.endswith("/stream")
    )


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
    api.spec.components.schema("ExportHeader", schema=ExportHeaderSchema)  # named by the export's first line
    live.install(api, app)  # stream, metrics, replay viewer
    install_tournaments(api)
    docs.install(app)  # the contract rendered at /docs: outside the contract, like /openapi.json
    # after the rate limits (and the refusal of revoked keys) and the timing hook, in this order: the
    # operation's credential, then the body's type, then its JSON, then (in the route) its schema
    app.before_request(check_credential)
    app.before_request(_content_coding)
    app.before_request(_json_body_type)
    app.before_request(_strict_body)
    app.after_request(_challenge)  # after_request hooks run last registered first: on the final response
    app.after_request(_errors_as_problems)

    @app.errorhandler(ProblemError)
    def _problem(exc: ProblemError):
        return problem_for(exc, _sent_credential())

    @app.errorhandler(RecursionError)
    def _too_deep(exc):
        return problem_response(400, "Bad Request", "the JSON body is nested too deeply", "bad-request")

    @app.errorhandler(redis.exceptions.ConnectionError)
    def _redis_down(exc):
        return redis_down(exc)

    @app.errorhandler(Exception)
    def _unexpected(exc):
        return unexpected(exc)

    @app.get("/openapi.yaml")
    def _openapi_yaml():
        return Response(
            yaml.safe_dump(api.spec.to_dict(), sort_keys=False, allow_unicode=True), mimetype="application/yaml"
        )

    app.extensions["naipes_api"] = api
    app.wsgi_app = HotPath(app, app.wsgi_app)  # a move's two requests, when plain (see service.web.hot)
    app.wsgi_app = AfterAnswer(app.wsgi_app)  # what a request leaves for after its answer
    trust_proxies(app)  # outermost: every layer sees the client's address
    return app


def spec_yaml(app: Flask) -> str:
    return yaml.safe_dump(app.extensions["naipes_api"].spec.to_dict(), sort_keys=False, allow_unicode=True)
