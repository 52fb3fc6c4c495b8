"""/v1/memories/{id}/feedback, /v1/feedback/* and /v1/retrieval-params."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from quart import Blueprint, request
from quart_schema import RequestSchemaValidationError, document_request, validate_request

from app.api.encoding import to_json
from app.api.errors import HTTP_DETAILS
from app.auth import caller, require
from app.deps import deps
from app.errors import Unparseable
from app.models.feedback import NewFeedback, TuneRequest
from app.services import feedback

blueprint = Blueprint("feedback", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


async def _tune_request() -> TuneRequest:
    """The tune body, which may be absent: no body (or {}) means automatic tuning.

    quart-schema's validate_request refuses a missing body, so this route decodes its own.
    """
    body = await request.get_data(as_text=False)
    if not body.strip():
        return TuneRequest()
    if not request.is_json:
        raise Unparseable(HTTP_DETAILS[415])
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise Unparseable("the request body is not valid JSON") from error
    try:
        return TuneRequest.model_validate(data)
    except ValidationError as error:
        # The one error table turns it into 422 (or 400 for a body that is not an object).
        raise RequestSchemaValidationError(error) from error


@blueprint.post("/memories/<memory_id>/feedback")
@validate_request(NewFeedback)
async def give_feedback(memory_id: str, data: NewFeedback) -> tuple[Any, int]:
    return to_json(await feedback.record(deps().graph, caller(), memory_id, data)), 201


@blueprint.get("/feedback/stats")
async def stats() -> Any:
    return to_json(await feedback.stats(deps().graph, caller()))


@blueprint.get("/feedback/by-tier")
async def by_tier() -> Any:
    return to_json(await feedback.by_tier(deps().graph, caller()))


@blueprint.get("/retrieval-params")
async def retrieval_params() -> Any:
    return to_json(await feedback.params(deps().graph, caller()))


@blueprint.post("/retrieval-params/tune")
@document_request(TuneRequest)
async def tune() -> Any:
    data = await _tune_request()
    return to_json(await feedback.tune(deps().graph, caller(), data.feedback_weight))
