"""Routes of integrator keys (the admin scope)."""

from __future__ import annotations

from flask.views import MethodView

from service.core.errors import ProblemError
from service.web import schemas as s
from service.web.base import (
    INTEGRATOR,
    app_service,
    blp,
    credential,
    errors,
    integrator_key,
    json_response,
)

ADMIN = integrator_key("admin")


@blp.route("/keys")
class Keys(MethodView):
    @credential(ADMIN)
    @blp.arguments(s.CreateKeySchema)
    @blp.response(201, s.KeySchema)
    @errors(400, 401, 403, 415, 422)
    @blp.doc(
        security=INTEGRATOR,
        operationId="createKey",
        summary="Create an integrator key with scopes (admin scope); the secret is shown once",
    )
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
