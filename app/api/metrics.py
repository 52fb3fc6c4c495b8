"""/metrics (master key): the service's Prometheus metrics."""

from __future__ import annotations

from quart import Blueprint, Response
from quart_schema import document_response

from app import metrics
from app.api.auth import require
from app.api.errors import MASTER_AUTH, error_statuses
from app.models.metrics import MetricsText

blueprint = Blueprint("metrics", __name__)
blueprint.before_request(require("master"))


@blueprint.get("/metrics")
@document_response(MetricsText)
@error_statuses(*MASTER_AUTH)
async def exposition() -> Response:
    body, content_type = metrics.exposition()
    return Response(body, content_type=content_type)
