"""Routes of seats that change hands: a game's seats, claiming an open seat with its invitation,
leaving, a new invitation, a finished game's rematch, and the lobby of games waiting for players
(the use cases are :mod:`service.core.seats`)."""

from __future__ import annotations

from flask.views import MethodView

from service.core.errors import ProblemError
from service.core.identity import SPECTATOR_VIEWER, Viewer
from service.core.seats import INVITATION_PREFIX
from service.web import seat_schemas as ss
from service.web.base import (
    ANY,
    INTEGRATOR,
    SEAT,
    any_caller,
    app_service,
    bearer,
    blp,
    credential,
    current_caller,
    errors,
    integrator_key,
    json_response,
    require_integrator,
    seat_token,
)

INVITATION = [{"invitation": []}]
SEAT_PARAMETER = {
    "in": "path",
    "name": "seat",
    "required": True,
    "schema": {"type": "integer", "minimum": 0},
    "description": "A seat of the game, from 0 (written without leading zeros)",
}


@blp.record_once
def _invitation_scheme(state) -> None:
    """The invitation, a bearer credential of its own, in the contract's security schemes."""
    api = state.app.extensions["flask-smorest"]["blp_name_to_api"][blp.name]
    api.spec.components.security_scheme(
        "invitation",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "An open seat's invitation (inv_...), given once to the key that created the game; "
            "it is exchanged once for the seat's token",
        },
    )


def invitation(_args: dict) -> Viewer:
    """An open seat's invitation as bearer credential (whether it is the seat's is the claim's to say)."""
    found = bearer()
    if not found:
        raise ProblemError(
            401, "Invitation required", "send the seat's invitation as bearer token (inv_...)", "unauthorized"
        )
    if not found.startswith(INVITATION_PREFIX):
        raise ProblemError(401, "Unknown credential", "the bearer token is not an invitation (inv_...)", "unauthorized")
    return SPECTATOR_VIEWER


def _seat(raw: str) -> int:
    """The seat of the path: a number (which the game's seats bound: see service.core.seats)."""
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9) or (raw != "0" and raw.startswith("0")):
        raise ProblemError(
            422, "No such seat", f"a seat is a number from 0, without leading zeros, not '{raw[:20]}'", "bad-seat"
        )
    return int(raw)


@blp.route("/games/<game_id:game_id>/seats")
class Seats(MethodView):
    @credential(any_caller)
    @blp.response(200, ss.SeatsSchema)
    @errors(401, 404)
    @blp.doc(
        security=ANY,
        operationId="getSeats",
        summary="Who sits where: open seats (with their claim URLs), seats left, and the rematch links",
    )
    def get(self, game_id):
        return json_response(app_service().seats.seats(game_id, current_caller()))


@blp.route("/games/<game_id:game_id>/seats/<seat>/claim", parameters=[SEAT_PARAMETER])
class Claim(MethodView):
    @credential(invitation)
    @blp.arguments(ss.ClaimSchema)
    @blp.response(201, ss.ClaimedSchema)
    @errors(400, 401, 404, 409, 410, 415, 422)
    @blp.doc(
        security=INVITATION,
        operationId="claimSeat",
        **{
            "x-codeSamples": [
                {
                    "lang": "curl",
                    "label": "curl",
                    "source": 'curl -s -X POST "$API/games/$GAME/seats/1/claim" -H "Authorization: Bearer $INVITATION" '
                    "-H 'Content-Type: application/json' -d '{\"player\": \"eli\"}'",
                }
            ]
        },
        summary="Exchange an open seat's invitation for its token (once), under a player's name; the last "
        "claim starts the game",
    )
    def post(self, body, game_id, seat):
        claimed = app_service().seats.claim(game_id, _seat(seat), bearer() or "", body["player"])
        return json_response(claimed, 201)


@blp.route("/games/<game_id:game_id>/seats/<seat>/leave", parameters=[SEAT_PARAMETER])
class Leave(MethodView):
    @credential(seat_token)
    @blp.response(200, ss.LeftSchema)
    @errors(401, 403, 404, 409, 422)
    @blp.doc(
        security=SEAT,
        operationId="leaveSeat",
        summary="The caller's seat leaves: open again before the start, else absent for good (the rules move "
        "for it); its token stops working",
    )
    def post(self, game_id, seat):
        return json_response(app_service().seats.leave(game_id, _seat(seat), current_caller()))


@blp.route("/games/<game_id:game_id>/seats/<seat>/invitation", parameters=[SEAT_PARAMETER])
class Invitation(MethodView):
    @credential(integrator_key())
    @blp.response(201, ss.NewInvitationSchema)
    @errors(401, 403, 404, 409, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="inviteToSeat",
        summary="A new invitation for an open seat (one left before the start), for the key that created the game",
    )
    def post(self, game_id, seat):
        return json_response(app_service().seats.new_invitation(game_id, _seat(seat), current_caller()), 201)


@blp.route("/games/<game_id:game_id>/seats/<seat>/bot", parameters=[SEAT_PARAMETER])
class SeatBot(MethodView):
    @credential(integrator_key())
    @blp.arguments(ss.SeatBotSchema)
    @blp.response(201, ss.SeatedBotSchema)
    @errors(401, 403, 404, 409, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="seatBot",
        summary="The owning key puts a bot in the seat of an absent player (timed out absent_after times in a "
        "row, or left): it plays the seat from its view from now on",
    )
    def post(self, body, game_id, seat):
        seated = app_service().seats.seat_bot(game_id, _seat(seat), body["bot"], current_caller())
        return json_response(seated, 201)


@blp.route("/games/<game_id:game_id>/rematch")
class Rematch(MethodView):
    @credential(any_caller)
    @blp.response(201, ss.RematchSchema)
    @errors(401, 403, 404, 409)
    @blp.doc(
        security=[{"seatToken": []}, {"integratorKey": []}],
        operationId="rematchGame",
        summary="A finished game's rematch (made once): same type, options and players, seats rotated; a seat's "
        "token gets its own new token, the owning key every seat's",
    )
    def post(self, game_id):
        return json_response(app_service().seats.rematch(game_id, current_caller()), 201)


@blp.route("/lobby")
class Lobby(MethodView):
    @credential(integrator_key())
    @blp.arguments(ss.LobbyQuerySchema, location="query")
    @blp.response(200, ss.LobbySchema)
    @errors(401, 403, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="getLobby",
        summary="Games waiting for players, newest first, with their open seats' claim URLs (never the invitations)",
    )
    def get(self, query):
        viewer = require_integrator()
        return json_response(
            app_service().seats.lobby(query.get("game"), query["limit"], cursor=query.get("cursor"), viewer=viewer)
        )
