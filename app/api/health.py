"""Liveness and readiness probes (no authentication)."""

from __future__ import annotations

from quart import Blueprint, Response
from quart_schema import hide

from app.deps import deps
from app.errors import Unavailable

blueprint = Blueprint("health", __name__)


@blueprint.get("/health")
@hide
async def liveness() -> Response:
    return Response("ok", content_type="text/plain")


@blueprint.get("/health/instance")
@hide
async def readiness() -> tuple[dict[str, str], int]:
    instance_id = deps().instance_id
    try:
        await deps().graph.ping()
    except Unavailable as error:
        return {"status": "degraded", "instance_id": instance_id, "detail": error.detail}, 503
    return {"status": "ok", "instance_id": instance_id}, 200
