"""The HTTP routes of tournaments and webhooks (thin, over service.core.tournaments)."""

from __future__ import annotations

import math

from flask import Response
from flask.views import MethodView

from service.core.errors import ProblemError
from service.core.identity import Viewer
from service.core.tournaments import Tournaments, attach_tournaments
from service.web import tournament_schemas as ts
from service.web.base import (
    ANY,
    INTEGRATOR,
    LOCATION_HEADER,
    Blueprint,
    app_service,
    bearer,
    credential,
    current_caller,
    errors,
    integrator_key,
    json_response,
)
from service.web.ratelimit import charge, pages, request_cost

blp = Blueprint("tournaments", __name__, description="Tournaments over many tables, and webhooks")

SCOPE = "tournaments"


def tournaments() -> Tournaments:
    return attach_tournaments(app_service())


def optional_integrator() -> Viewer | None:
    """The caller's integrator key when it sends one (anyone may read a tournament)."""
    credential = bearer()
    if credential is None:
        return None
    viewer = app_service().identity.integrator(credential)
    if viewer is None:
        raise ProblemError(
            401,
            "Unknown credential",
            "the bearer token is not a live integrator key (a table's seat token is not a credential here: a "
            "tournament's public parts are read without one)",
            "unauthorized",
        )
    return viewer


# the credential of each operation, decided before its body or query is read (see service.web.base.credential)
KEY = integrator_key(SCOPE)


def optional_key(_args: dict) -> Viewer | None:
    return optional_integrator()


@blp.route("/tournaments")
class TournamentsRoute(MethodView):
    @credential(KEY)
    @blp.arguments(ts.CreateTournamentSchema)
    @blp.response(201, ts.CreatedTournamentSchema, headers=LOCATION_HEADER)
    @errors(400, 401, 403, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="createTournament",
        summary="Create a tournament; pairs round 1 and returns its games with the seat tokens",
        description="Round 1's games are made in this request: it counts as one request of the key's rate-limit "
        "budget on this route for each table of round 1 it may seat (players / table_size.max, rounded up; never "
        "more than a window's whole quota).",
    )
    def post(self, body):
        size = body["table_size"]
        charge(math.ceil(len(body["players"]) / (size.get("max") or size["min"])) - 1)  # a game made per table
        created = tournaments().create(current_caller(), body)
        return json_response(created, 201, {"Location": f"/tournaments/{created['id']}"})

    @credential(KEY)
    @blp.arguments(ts.TournamentListQuerySchema, location="query")
    @blp.response(200, ts.TournamentListSchema)
    @errors(401, 403, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="listTournaments",
        summary="List tournaments, newest first; page on with next_cursor",
    )
    def get(self, query):
        return json_response(
            tournaments().list(query.get("status"), query["limit"], query["offset"], cursor=query.get("cursor"))
        )


@blp.route("/tournaments/<tournament_id:tournament_id>")
class TournamentRoute(MethodView):
    @credential(optional_key)
    @blp.response(200, ts.TournamentSchema)
    @errors(401, 404)
    @blp.doc(security=ANY, operationId="getTournament", summary="A tournament: format, players, the round in play")
    def get(self, tournament_id):
        return json_response(tournaments().view(tournament_id, current_caller()))


@blp.route("/tournaments/<tournament_id:tournament_id>/standings")
class StandingsRoute(MethodView):
    @credential(optional_key)
    @blp.response(200, ts.StandingsSchema)
    @errors(401, 404)
    @blp.doc(security=ANY, operationId="getStandings", summary="Standings: total points, then the declared tie-breaks")
    def get(self, tournament_id):
        return json_response(tournaments().standings(tournament_id, current_caller()))


@blp.route("/tournaments/<tournament_id:tournament_id>/rounds/<int:number>")
class RoundRoute(MethodView):
    @credential(optional_key)
    @blp.response(200, ts.RoundSchema)
    @errors(401, 404)
    @blp.doc(
        security=ANY,
        operationId="getRound",
        summary="One round: tables, seats, game ids, results; seat tokens for the tournament's key",
    )
    def get(self, tournament_id, number):
        return json_response(tournaments().round(tournament_id, number, current_caller()))


@blp.route("/tournaments/<tournament_id:tournament_id>/withdraw")
class WithdrawRoute(MethodView):
    @credential(KEY)
    @blp.arguments(ts.WithdrawSchema)
    @blp.response(200, ts.WithdrawnSchema)
    @errors(400, 401, 403, 404, 409, 415, 422)
    @blp.doc(
        security=INTEGRATOR, operationId="withdrawPlayer", summary="Withdraw a player: it is not paired in later rounds"
    )
    def post(self, body, tournament_id):
        return json_response(tournaments().withdraw(current_caller(), tournament_id, body["player"]))


@blp.route("/tournaments/<tournament_id:tournament_id>/events")
class TournamentEventsRoute(MethodView):
    @credential(optional_key)
    @blp.arguments(ts.TournamentEventsQuerySchema, location="query")
    @blp.response(200, ts.TournamentEventsSchema)
    @errors(401, 404, 422)
    @blp.doc(
        security=ANY,
        operationId="getTournamentEvents",
        summary="The tournament's hash-chained log and its chain check (private parts for its key only)",
        description="The chain is checked, and the tournament folded, over the whole log whatever the page: "
        "the request counts as ceil(version / 100) requests of the caller's budgets on this route (the version "
        "it is shown) when that is more than its page's count (never more than a window's whole quota).",
    )
    def get(self, query, tournament_id):
        # the whole log is read and hashed: counted as its pages, as far as the caller is shown it (the length
        # of a log held back past a duplicate round's horizon is no one's to learn from a count), and before
        # the log is read when the process's fold of the tournament is current
        paid = request_cost()
        found = tournaments().events(
            tournament_id,
            current_caller(),
            query["after"],
            query["limit"],
            charge=lambda shown: charge(pages(shown) - paid, counted=paid),
        )
        return json_response(found)


@blp.route("/webhooks")
class WebhooksRoute(MethodView):
    @credential(KEY)
    @blp.arguments(ts.CreateWebhookSchema)
    @blp.response(201, ts.CreatedWebhookSchema, headers=LOCATION_HEADER)
    @errors(400, 401, 403, 409, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="createWebhook",
        summary="Register a URL for signed event POSTs; returns the signing secret once",
        description="The URL is sent each event of `events` as a signed POST: the callback `event` says "
        "what it is sent and how to check the signature.",
        callbacks=ts.webhook_callbacks(),
    )
    def post(self, body):
        record = tournaments().webhooks.register(current_caller(), body["url"], body["events"])
        return json_response(
            {k: record[k] for k in ("id", "url", "events", "created_at", "secret")},
            201,
            {"Location": f"/webhooks/{record['id']}"},
        )

    @credential(KEY)
    @blp.response(200, ts.WebhookSchema(many=True))
    @errors(401, 403)
    @blp.doc(security=INTEGRATOR, operationId="listWebhooks", summary="The caller's webhooks")
    def get(self):
        return json_response(tournaments().webhooks.list(current_caller()))


@blp.route("/webhooks/<webhook_id>")
class WebhookRoute(MethodView):
    @credential(KEY)
    @blp.response(204)
    @errors(401, 403, 404)
    @blp.doc(security=INTEGRATOR, operationId="deleteWebhook", summary="Delete a webhook and its delivery log")
    def delete(self, webhook_id):
        tournaments().webhooks.delete(current_caller(), webhook_id)
        return Response(status=204)


@blp.route("/webhooks/<webhook_id>/deliveries")
class DeliveriesRoute(MethodView):
    @credential(KEY)
    @blp.arguments(ts.DeliveriesQuerySchema, location="query")
    @blp.response(200, ts.DeliveriesSchema)
    @errors(401, 403, 404, 422)
    @blp.doc(
        security=INTEGRATOR, operationId="getWebhookDeliveries", summary="The webhook's delivery attempts, newest first"
    )
    def get(self, query, webhook_id):
        return json_response(tournaments().webhooks.deliveries(current_caller(), webhook_id, query["limit"]))


def install(api) -> None:
    """Register the routes on ``api`` (the tournaments' hooks are wired by :mod:`service.bootstrap`), and
    the shapes of what webhooks are sent (the callback of POST /webhooks names them)."""
    for schema in ts.WEBHOOK_EVENTS.values():
        api.spec.components.schema(schema.__name__, schema=schema)
    api.register_blueprint(blp)
