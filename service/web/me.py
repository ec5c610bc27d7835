"""``GET /me``: what the bearer credential is (an integrator key and its scopes, or a seat of one
game), and the rate-limit budget its requests are counted against, so that a client can check a
credential before using it.  The credential itself, or anything derived from it, is never sent back."""

from __future__ import annotations

from flask import current_app, g, request
from flask.views import MethodView

from service.core import facts
from service.core.errors import ProblemError
from service.core.identity import Viewer, token_game
from service.core.ids import is_game_id
from service.web import me_schemas as ms
from service.web.base import app_service, bearer, blp, credential, current_caller, errors, json_response
from service.web.ratelimit import counted_windows, policy_names


def me_credential(_args: dict) -> Viewer:
    """An integrator key, or a seat token of the game named by ``?game_id=``; else the 401 of every route
    (an unknown game too: the credential is what is asked about, not the game)."""
    token = bearer()
    identity = app_service().identity
    if not token:
        raise ProblemError(
            401,
            "Credential required",
            "send an integrator key or a seat token as bearer token",
            "unauthorized",
        )
    viewer = identity.integrator(token)
    if viewer is not None:
        return viewer
    game_id = request.args.get("game_id") or token_game(token)  # a seat token names its game
    if not (game_id and is_game_id(game_id)):
        raise ProblemError(
            401,
            "Unknown credential",
            "the bearer token is neither a live integrator key nor a seat token (a seat token issued before "
            "tokens named their game is checked against the game named by ?game_id=)",
            "unauthorized",
        )
    g.me_game = game_id
    seat = identity.seat_for_token(game_id, token)
    if seat is None:  # no game names a credential it does not know: an unknown game is no 404 here
        raise ProblemError(
            401,
            "Unknown credential",
            "the bearer token is neither an integrator key nor a seat token of this game",
            "unauthorized",
        )
    return Viewer("seat", seat=seat)


def _budget(own: str | None) -> dict | None:
    service_limits = current_app.extensions.get("naipes_rate_limits") or []
    if not service_limits:
        return None
    counted = counted_windows()
    windows = [
        {"policy": n, "quota": w.quota, "window": w.window, "remaining": w.remaining, "reset": w.reset}
        for n, w in zip(policy_names(counted), counted)
    ]
    return {
        "limits": own.split(";") if own else list(service_limits),
        "own": bool(own),
        "address_limits": list(current_app.extensions.get("naipes_rate_limits_address") or []),
        "windows": windows,
    }


@blp.route("/me")
class Me(MethodView):
    @credential(me_credential)
    @blp.arguments(ms.MeQuerySchema, location="query")
    @blp.response(200, ms.MeSchema, examples=ms.EXAMPLES)
    @errors(401, 422)
    @blp.doc(
        security=[{"integratorKey": []}, {"seatToken": []}],
        operationId="getMe",
        summary="What the bearer credential is (an integrator key and its scopes, or a seat of which game) "
        "and its rate-limit budget; check a credential before using it",
    )
    def get(self, query):
        viewer = current_caller()
        svc = app_service()
        if viewer.kind == "integrator":
            rec = svc.keys.lookup(bearer())
            if rec is None:  # revoked since the credential was checked
                raise ProblemError(
                    401, "Unknown credential", "the bearer token is not a live integrator key", "unauthorized"
                )
            return json_response(
                {
                    "kind": "integrator",
                    "key": {"id": rec.id, "name": rec.name, "scopes": sorted(rec.scopes)},
                    "rate_limit": _budget(rec.rate_limit),
                }
            )
        game_id = g.me_game  # the game the seat token named, or ?game_id=
        table = svc.tables.table(game_id)
        players = facts.players(table)
        return json_response(
            {
                "kind": "seat",
                "seat": {
                    "game_id": game_id,
                    "game": table["game"],
                    "seat": viewer.seat,
                    "player": players[viewer.seat],
                    "finished": facts.finished(table),
                },
                "rate_limit": _budget(None),
            }
        )
