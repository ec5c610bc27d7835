"""Routes of games and their seats: the game types, creating and listing games, a game's view,
joining, legal moves and moves."""

from __future__ import annotations

from flask import Response, request
from flask.views import MethodView

from service.core import catalogue
from service.core.errors import ProblemError
from service.web import schemas as s
from service.web import seat_schemas as ss
from service.web.base import (
    _IDEMPOTENCY,
    _VERSION,
    ANY,
    INTEGRATOR,
    LANGUAGE_HEADERS,
    LOCATION_HEADER,
    SEAT,
    any_caller,
    app_service,
    blp,
    credential,
    current_caller,
    errors,
    integrator_key,
    json_response,
    labelled,
    language,
    require_integrator,
    seat_token,
)


@blp.route("/game-types")
class GameTypes(MethodView):
    @blp.response(200, s.GameTypeSchema(many=True))
    @blp.doc(
        security=[{}], operationId="listGameTypes", summary="The games naipes hosts, with player counts and options"
    )
    def get(self):
        return json_response(catalogue.game_types())


@blp.route("/game-types/<game_type>")
class GameType(MethodView):
    @blp.response(200, s.GameDescriptionSchema)
    @errors(404)
    @blp.doc(
        security=[{}],
        operationId="getGameType",
        summary="One game described: its cards and their codes, phases, roles, and every move type with its schema",
    )
    def get(self, game_type):
        return json_response(catalogue.describe_game(game_type))


@blp.route("/games")
class Games(MethodView):
    @credential(integrator_key())
    @blp.arguments(s.CreateGameSchema)
    @blp.response(201, ss.CreatedGameSchema, headers=LOCATION_HEADER)
    @errors(400, 401, 403, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="createGame",
        summary="Create a game; returns each seat's token once (an open seat's invitation)",
    )
    def post(self, body):
        viewer = current_caller()
        created = app_service().games.create_game(
            body["game"], body["players"], body.get("options") or {}, owner=viewer.key_id
        )
        return json_response(created, 201, {"Location": f"/games/{created['id']}"})

    @credential(integrator_key())
    @blp.arguments(s.GameListQuerySchema, location="query")
    @blp.response(200, s.GameListSchema)
    @errors(401, 403, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="listGames",
        summary="List games, newest first, filtered by type and status; page on with next_cursor",
    )
    def get(self, query):
        viewer = require_integrator()
        return json_response(
            app_service().listing.list_games(
                query.get("game"),
                query.get("status"),
                query["limit"],
                query["offset"],
                cursor=query.get("cursor"),
                viewer=viewer,
            )
        )


@blp.route("/games/<game_id:game_id>")
class Game(MethodView):
    @credential(any_caller)
    @blp.response(
        200,
        s.GameViewSchema,
        headers={
            "ETag": {"description": "The game's version", "schema": {"type": "string"}},
            "Vary": {
                "description": "Authorization: the view is the caller's (a cache keeps one per credential)",
                "schema": {"type": "string"},
            },
            "Cache-Control": {
                "description": "private, no-cache: no shared cache keeps a caller's view, and a client's cache "
                "checks it again (If-None-Match) before using it",
                "schema": {"type": "string"},
            },
        },
    )
    @blp.alt_response(
        304, description="Not modified (If-None-Match names the current version, weakly compared, or is *)"
    )
    @errors(401, 403, 404)
    @blp.doc(
        security=ANY,
        operationId="getGame",
        summary="The game as the caller may see it",
        parameters=[
            {
                "in": "header",
                "name": "If-None-Match",
                "schema": {"type": "string"},
                "required": False,
                "description": "An ETag from an earlier response",
            }
        ],
    )
    def get(self, game_id):
        view = app_service().reads.state_view(game_id, current_caller())
        etag = f'"{view["version"]}"'
        # weak comparison (RFC 9110, 13.1.2): W/"4" and "4" match alike, a list matches by any of its
        # tags, and * matches any version
        # one ETag for every caller's view of a version: a cache must keep each credential's view apart (a
        # spectator's reload revalidating a seat's cached view, its hand in it, would be told 304)
        private = {"ETag": etag, "Vary": "Authorization", "Cache-Control": "private, no-cache"}
        if request.if_none_match.contains_weak(str(view["version"])):
            return Response(status=304, headers=private)
        return json_response(view, headers=private)


@blp.route("/games/<game_id:game_id>/players")
class Players(MethodView):
    @credential(integrator_key())
    @blp.arguments(s.JoinSchema)
    @blp.response(201, s.JoinedSchema)
    @errors(400, 401, 403, 404, 409, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="joinGame",
        summary="The owning key brings a newcomer into a running game where its options allow it (Dalmuti: "
        "allow_joining); not a tournament's table",
        description="The newcomer's seat token is returned once. Refused: by another key than the game's owner "
        "(or an `admin` key), 403; a tournament's table, 409 `tournament-table`; a name already at the table, 409 "
        "`name-taken`; a game whose options or rules take no newcomer, 422 `illegal-move` with `rule` "
        "`joining-disabled`; a game not started, finished or frozen, 409 (`game-not-started`, `game-finished`, "
        "`game-frozen`).",
    )
    def post(self, body, game_id):
        return json_response(app_service().games.join(game_id, body["player"], current_caller()), 201)


@blp.route("/games/<game_id:game_id>/legal-moves")
class LegalMoves(MethodView):
    @credential(seat_token)
    @blp.response(200, s.LegalMovesSchema, headers=LANGUAGE_HEADERS)
    @errors(401, 403, 404)
    @blp.doc(security=SEAT, operationId="getLegalMoves", summary="The moves the caller's seat may make now")
    def get(self, game_id):
        lang = language()
        return labelled(app_service().reads.legal_moves(game_id, current_caller(), lang), lang)


@blp.route("/games/<game_id:game_id>/moves")
class Moves(MethodView):
    @credential(seat_token)
    @blp.arguments(s.MoveSchema())  # one instance: webargs would build one per request from the class
    @blp.response(
        201,
        s.MoveResultSchema,
        headers={
            "ETag": {
                "description": "The game's version after the move (If-Match of the next)",
                "schema": {"type": "string"},
            },
            **LANGUAGE_HEADERS,
        },
    )
    @errors(400, 401, 403, 404, 409, 412, 413, 415, 422)
    @blp.doc(
        security=SEAT,
        operationId="postMove",
        summary="Make a move for the caller's seat",
        parameters=[
            {
                "in": "header",
                "name": "If-Match",
                "required": False,
                "schema": {"type": "string"},
                "description": "The version the move expects: one ETag as the game's responses give it "
                '(`"42"`), or `*` (any version). Compared strongly, as RFC 9110 says: a weak tag '
                '(`W/"42"`) never matches, nor does a tag with leading zeros (`"042"`): 412 '
                "`precondition-failed`; 412 `version-mismatch` if the game has moved on; 400 for anything "
                "else (an unquoted number, a list of tags, a tag that is no version)",
            },
            {
                "in": "header",
                "name": "Idempotency-Key",
                "required": False,
                "schema": {"type": "string", "maxLength": 128},
                "description": "Retries with the same key return the first answer and append nothing",
            },
        ],
    )
    def post(self, move, game_id):
        viewer = current_caller()
        if_match = if_match_version(request.headers.get("If-Match"))
        idem = idempotency_key(request.headers.get("Idempotency-Key"))
        lang = language()
        result = app_service().moves.move(
            game_id, viewer.seat, move, if_match=if_match, idempotency_key=idem, lang=lang
        )
        return labelled(result, lang, 201, {"ETag": f'"{result["version"]}"'})


def idempotency_key(raw: str | None) -> str | None:
    """A move's Idempotency-Key header, checked (400 problem)."""
    if raw is not None and not _IDEMPOTENCY.fullmatch(raw):
        raise ProblemError(
            400, "Bad Idempotency-Key", "Idempotency-Key must be 1 to 128 visible ASCII characters", "bad-request"
        )
    return raw


def if_match_version(raw: str | None) -> int | None:
    """The version a move's If-Match header names, checked: one entity tag as ETag gives it (``"42"``),
    or ``*`` (any version: the game exists).  If-Match compares strongly (RFC 9110, 13.1.1): a weak
    tag (``W/"42"``) never matches, and neither does a tag no response ever gives (``"042"``): a 412.
    Empty elements of the list are no tags (RFC 9110, 5.6.1: ``"42",`` names one).  Anything else,
    an unquoted number among it (RFC 9110, 8.8.3: an entity tag is quoted), is a 400."""
    if raw is None:
        return None
    tags = [tag for tag in (part.strip() for part in raw.split(",")) if tag]
    if tags == ["*"]:
        return None
    weak = tags[0][2:] if len(tags) == 1 and tags[0][:2] in ("W/", "w/") else ""
    if len(weak) > 2 and weak[0] == weak[-1] == '"' and _VERSION.fullmatch(weak[1:-1]):
        raise ProblemError(
            412,
            "Weak entity tag",
            f"If-Match compares entity tags strongly, so the weak tag {tags[0]} never matches: send the ETag "
            f"as given ({tags[0][2:]})",
            "precondition-failed",
        )
    tag = tags[0] if len(tags) == 1 else ""
    if _VERSION.fullmatch(tag):
        raise ProblemError(
            400,
            "Bad If-Match",
            f'If-Match must name one version as ETag gives it, quoted ("{tag}"), or be *: an entity tag is '
            "1 to 18 ASCII digits between double quotes",
            "bad-request",
        )
    value = tag[1:-1] if len(tag) > 1 and tag[0] == tag[-1] == '"' else ""
    if not _VERSION.fullmatch(value):
        raise ProblemError(
            400,
            "Bad If-Match",
            "If-Match must name one version (1 to 18 ASCII digits, quoted as ETag gives it), or be *",
            "bad-request",
        )
    if value != str(int(value)):
        raise ProblemError(
            412,
            "No such entity tag",
            f"If-Match compares entity tags strongly, and no version of a game has the tag {tag}: send the "
            "ETag as given, with no leading zeros",
            "precondition-failed",
        )
    return int(value)
