"""Liveness and readiness probes (no authentication)."""

from __future__ import annotations

from quart import Blueprint, Response
from quart_schema import document_response, validate_response

from app.api.context import registry
from app.api.errors import error_statuses
from app.errors import DATABASE_RETRY_AFTER_S
from app.models.health import Alive, Ready
from app.services import health

blueprint = Blueprint("health", __name__)


@blueprint.get("/health")
@document_response(Alive)
async def liveness() -> Response:
    return Response("ok", content_type="text/plain")


@blueprint.get("/health/instance")
@validate_response(Ready)
@error_statuses(503)
async def readiness() -> tuple[dict[str, str], int] | tuple[dict[str, str], int, dict[str, str]]:
    instance_id = registry().instance_id
    problem = await health.unready_because(registry())
    if problem is not None:
        degraded = {"status": "degraded", "instance_id": instance_id, "detail": problem}
        return degraded, 503, {"Retry-After": str(DATABASE_RETRY_AFTER_S)}
    return {"status": "ok", "instance_id": instance_id}, 200
