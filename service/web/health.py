"""The health route (Redis, the RQ workers and the deadline scheduler) and the service's public seal key."""

from __future__ import annotations

from flask.views import MethodView

from service.core.errors import ProblemError
from service.web import schemas as s
from service.web.base import app_service, blp, errors, json_response


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, s.HealthSchema)
    @errors(503)
    @blp.doc(
        security=[{}],
        operationId="getHealth",
        summary="Whether Redis answers (else 503), RQ workers are alive and the deadline scheduler runs",
    )
    def get(self):
        try:
            ok = bool(app_service().redis.ping())
        except Exception:  # noqa: BLE001 - any Redis failure means unhealthy
            ok = False
        if not ok:
            raise ProblemError(503, "Redis unreachable", "the service cannot reach Redis", "unavailable")
        return json_response(health_details(app_service()))


@blp.route("/seal-key")
class SealKey(MethodView):
    @blp.response(200, s.SealKeySchema)
    @blp.doc(
        security=[{}],
        operationId="getSealKey",
        summary="The public key this service signs its exports with: check an export's seal against it "
        "(naipes verify --key), whoever you are",
    )
    def get(self):
        return json_response({"algorithm": "Ed25519", "public_key": app_service().secret.public_key})


def health_details(svc) -> dict:
    """Redis answered; are the workers alive and does a scheduler hold the deadline queue's lock?"""
    from rq import Queue, Worker
    from rq.scheduler import SCHEDULER_LOCKING_KEY_TEMPLATE

    from service.core.timers import QUEUES, TIMERS

    workers = [w for w in Worker.all(connection=svc.queue_redis) if set(w.queue_names()) & set(QUEUES)]
    alive = [w for w in workers if w.get_state() != "suspended"]
    scheduler = bool(svc.queue_redis.exists(SCHEDULER_LOCKING_KEY_TEMPLATE % TIMERS))
    queues = {name: Queue(name, connection=svc.queue_redis).count for name in QUEUES}
    status = "ok" if alive and scheduler else "degraded"
    return {"status": status, "redis": True, "workers": len(alive), "scheduler": scheduler, "queues": queues}
