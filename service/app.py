"""The Flask application factory: ``gunicorn 'service.app:create_app()'``."""

from __future__ import annotations

import logging
import os

import redis
import yaml
from flask import Flask, Response

from events.connect import connect, data_url, queue_url

from .application import Naipes, ProblemError
from .http import NaipesApi, blp, problem_response
from .http_tournaments import install as install_tournaments
from .ratelimit import attach_rate_limits

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
            "integratorKey": {"type": "http", "scheme": "bearer",
                              "description": "An integrator key (NAIPES_API_KEYS or printed by the start command)"},
            "seatToken": {"type": "http", "scheme": "bearer",
                          "description": "A seat's token, returned once by POST /games"},
        }
    },
}


def create_app(service: Naipes | None = None, redis_url: str | None = None, *,
               rate_limit: str | None = None) -> Flask:
    """``rate_limit``: Flask-Limiter limits per credential (default from
    ``NAIPES_RATE_LIMIT``; ``"off"`` for none)."""
    app = Flask("naipes")
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS=SPEC_OPTIONS,
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    if service is None:
        url = redis_url or data_url()
        client = connect(url, health_check_interval=30)
        queues = queue_url(url)
        keys = [k.strip() for k in os.environ.get("NAIPES_API_KEYS", "").split(",") if k.strip()]
        service = Naipes(client, api_keys=keys, queue_client=connect(queues) if queues != url else None)
        from .timers import attach_scheduler

        attach_scheduler(service)
    app.extensions["naipes"] = service
    # a Redis Cluster client has no single connection pool: the limiter then counts in the cluster
    attach_rate_limits(app, getattr(service.redis, "connection_pool", service.redis), rate_limit)

    from .examples import ExamplesPlugin

    api = NaipesApi(app, spec_kwargs={"extra_plugins": [ExamplesPlugin()]})
    api.register_blueprint(blp)
    __import__("service.http_live").http_live.install(api, app)  # stream, metrics, replay viewer
    install_tournaments(api, service)

    @app.errorhandler(ProblemError)
    def _problem(exc: ProblemError):
        headers = exc.extra.pop("headers", None)
        return problem_response(exc.status, exc.title, exc.detail, exc.kind, headers=headers, **exc.extra)

    @app.errorhandler(RecursionError)
    def _too_deep(exc):
        return problem_response(400, "Bad Request", "the JSON body is nested too deeply", "bad-request")

    @app.errorhandler(redis.exceptions.ConnectionError)
    def _redis_down(exc):
        log.error("redis unreachable: %s", exc)
        return problem_response(503, "Service Unavailable", "the event store is unreachable; try again",
                                "unavailable", headers={"Retry-After": "1"})

    @app.errorhandler(Exception)
    def _unexpected(exc):  # a defect: log it whole, answer without leaking internals
        log.exception("unhandled error")
        return problem_response(500, "Internal Server Error", "an unexpected error occurred; it has been logged",
                                "internal")

    @app.get("/openapi.yaml")
    def _openapi_yaml():
        return Response(yaml.safe_dump(api.spec.to_dict(), sort_keys=False, allow_unicode=True),
                        mimetype="application/yaml")

    app.extensions["naipes_api"] = api
    return app


def spec_yaml(app: Flask) -> str:
    return yaml.safe_dump(app.extensions["naipes_api"].spec.to_dict(), sort_keys=False, allow_unicode=True)
