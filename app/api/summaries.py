"""/v1/sessions/{session_id}/summary."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_response

from app.api.auth import caller, require
from app.api.bodies import validate_optional_body
from app.api.context import registry
from app.api.errors import JSON_BODY, USER_AUTH, error_statuses
from app.models.summaries import Summary, SummaryRequest
from app.models.tasks import TaskAccepted
from app.services import summaries

blueprint = Blueprint("summaries", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.post("/sessions/<session_id>/summary")
@validate_optional_body(SummaryRequest)
@validate_response(Summary, 200)
@validate_response(TaskAccepted, 202)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 409)
async def summarize(session_id: str, data: SummaryRequest) -> tuple[Any, int]:
    made = await summaries.request(registry(), caller(), session_id, data)
    return made, 202 if isinstance(made, TaskAccepted) else 200
