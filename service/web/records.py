"""Routes of a game's records: its events, replays, audit trail, export and import, and the
reviewers' freezes, notes and adjudications."""

from __future__ import annotations

import logging

from flask import Response, request
from flask.views import MethodView

from service.core.errors import ProblemError
from service.web import schemas as s
from service.web.base import (
    ANY,
    INTEGRATOR,
    LANGUAGE_HEADERS,
    LOCATION_HEADER,
    any_caller,
    app_service,
    bearer,
    blp,
    caller,
    credential,
    current_caller,
    errors,
    integrator_key,
    json_response,
    labelled,
    language,
)
from service.web.live import credential_holds, wait_for_events
from service.web.ratelimit import charge_pages, revoked_problem

log = logging.getLogger("naipes.http")


@blp.route("/games/<game_id:game_id>/events")
class Events(MethodView):
    @credential(any_caller)
    @blp.arguments(s.EventsQuerySchema, location="query")
    @blp.response(200, s.EventsSchema, headers=LANGUAGE_HEADERS)
    @errors(401, 404, 409, 422, 429, 503)
    @blp.doc(
        security=ANY,
        operationId="getEvents",
        summary="The event log as the caller may see it; long-polls with wait",
        description="A long-poll (`wait`) from `after` past the last version the caller is shown is refused (409 "
        "`after-past-end`) rather than left waiting: no event the caller was sent has that version.",
    )
    def get(self, query, game_id):
        lang, svc = language(), app_service()
        after, limit = query["after"], query["limit"]
        events = svc.reads.events(game_id, current_caller(), after, limit, lang=lang)
        if query["wait"] > 0 and not events["events"]:
            if after > events["version"]:  # nothing it was sent: the log it followed is not this one
                svc.reads.resumable(game_id, current_caller(), after)
            # a caller held at a duplicate round's horizon waits for what it may see, not for the log
            shown = (
                (lambda: svc.reads.events(game_id, current_caller(), after, 1)["version"])
                if events["embargo"] is not None
                else None
            )
            viewer, credential = current_caller(), bearer()
            wait_for_events(svc, game_id, after, query["wait"], shown, credential_holds(svc, viewer, credential))
            # the credential once more: a key revoked or a seat token replaced during the wait gets nothing
            if viewer.kind == "integrator" and (rec := svc.keys.find(credential)) is not None and rec.revoked:
                raise revoked_problem(rec)
            events = svc.reads.events(game_id, caller(game_id), after, limit, lang=lang)
        return labelled(events, lang)


@blp.route("/games/<game_id:game_id>/replay")
class Replay(MethodView):
    @credential(any_caller)
    @blp.arguments(s.ReplayQuerySchema, location="query")
    @blp.response(200, s.GameViewSchema)
    @errors(400, 401, 403, 404, 422, 503)
    @blp.doc(security=ANY, operationId="getReplay", summary="The caller's view of the game as it was at a version")
    def get(self, query, game_id):
        return json_response(app_service().reads.replay(game_id, current_caller(), query["version"], query.get("as_")))


@blp.route("/games/<game_id:game_id>/audit")
class Audit(MethodView):
    @credential(integrator_key("review", "games", "admin", "tournaments"))
    @blp.response(200, s.AuditSchema)
    @errors(401, 403, 404, 503)
    @blp.doc(
        security=INTEGRATOR,
        operationId="getAudit",
        summary="Every event whole, and whether the hash chain verifies",
        description="The whole log: it counts as ceil(version / 100) requests of the key's rate-limit budget on "
        "this route (as pages of GET /games/{game_id}/events would; never more than a window's whole quota).",
    )
    def get(self, game_id):
        service = app_service()
        service.visibility.require_full_sight(game_id, current_caller())
        charge_pages(service.store.head(game_id)[0])  # the whole log: counted as its pages would be
        with service.records.audit_slot():  # read, checked and written out in one of the process's slots
            return json_response(service.records.audit(game_id))


NDJSON = "application/x-ndjson"
IMPORT_LIMIT = 32 * 1024 * 1024


@blp.route("/games/<game_id:game_id>/export")
class Export(MethodView):
    @credential(integrator_key("review", "games", "admin", "tournaments"))
    @errors(401, 403, 404)
    @blp.doc(
        security=INTEGRATOR,
        operationId="exportGame",
        summary="The whole log as JSON Lines (a header, then every event whole), for naipes verify and import",
        description="The header names the game, its version, its head hash and outcome, and carries `seal`: "
        "this service's Ed25519 signature over the game id, version and head hash (and `seal_key`, the key it "
        "says it is: check against GET /seal-key, not against the file). A chain of hashes proves a log "
        "unchanged since it was written, not who wrote it; the seal says this service wrote it. An import here "
        "says whether the seal held (`provenance.sealed`); `naipes verify --key <public key>` checks it anywhere. "
        "An export counts as ceil(version / 100) requests of the key's rate-limit budget on this route (as pages of "
        "GET /games/{game_id}/events would; never more than a window's whole quota).",
        responses={
            "200": {
                "description": "The log, one JSON document a line: the first an ExportHeader "
                "(#/components/schemas/ExportHeader), each after it an Event, whole (its private part and salt "
                "included), in version order from 1",
                "content": {NDJSON: {"schema": {"type": "string"}}},
                "headers": {
                    "Content-Disposition": {
                        "description": "attachment, named after the game (`<game_id>.jsonl`)",
                        "schema": {"type": "string"},
                    }
                },
            }
        },
    )
    def get(self, game_id):
        viewer = current_caller()
        service = app_service()
        service.visibility.require_full_sight(game_id, viewer)
        charge_pages(service.store.head(game_id)[0])  # the whole log: counted as its pages would be
        log.info("export of game %s by %s", game_id, viewer.key_id)
        return Response(
            service.records.export_lines(game_id),
            mimetype=NDJSON,
            headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
        )


@blp.route("/games/import")
class Import(MethodView):
    @credential(integrator_key("games"))
    @blp.response(201, s.ImportedGameSchema, headers=LOCATION_HEADER)
    @errors(400, 401, 403, 409, 413, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="importGame",
        summary="Load an exported log into this store: checked like naipes verify, then replayable as it was",
        description="The body is an export (GET /games/{game_id}/export), sent as application/x-ndjson. It "
        "counts as ceil(events / 100) requests of the key's rate-limit budget on this route, as its export did "
        "(never more than a window's whole quota). Refused before anything is written, the cheap refusals first: "
        "more events than its game can reach (413); review events from a key without the `review` scope (403 "
        "`review-authority`); a game this store holds (409 `game-exists`); then a log that does not verify, or "
        "whose creation a game made here could not have (422: its options and bot seats as POST /games checks "
        "them).",
        requestBody={"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}},
    )
    def post(self):
        viewer = current_caller()
        if request.mimetype not in (NDJSON, "application/jsonl", "text/plain"):
            raise ProblemError(415, "Unsupported Media Type", f"send the export as {NDJSON}", "unsupported-media-type")
        request.max_content_length = IMPORT_LIMIT
        lines = request.get_data().splitlines()
        charge_pages(sum(1 for line in lines if line.strip()) - 1)  # its events, counted as an export's are
        created = app_service().records.import_lines(lines, viewer)
        return json_response(created, 201, {"Location": f"/games/{created['id']}"})


def _review(game_id: str, kind: str, body: dict) -> Response:
    """A reviewer's event (freeze, note, adjudication): the review scope (checked by the request
    hook, see :func:`credential`), then the application."""
    return json_response(app_service().records.review(game_id, current_caller(), kind, body), 201)


REVIEWER = integrator_key("review")


@blp.route("/games/<game_id:game_id>/freeze")
class Freeze(MethodView):
    @credential(REVIEWER)
    @blp.arguments(s.FreezeSchema)
    @blp.response(201, s.ReviewResultSchema)
    @errors(400, 401, 403, 404, 409, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="freezeGame",
        summary="A reviewer freezes the game: moves and deadlines stop until an unfreeze adjudication",
    )
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
    @blp.doc(
        security=INTEGRATOR,
        operationId="adjudicate",
        summary="A reviewer's ruling, appended to the log: void, award a result, correct scores, unfreeze",
    )
    def post(self, body, game_id):
        return _review(game_id, "adjudicate", body)
