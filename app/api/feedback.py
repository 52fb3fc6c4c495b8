"""/v1/memories/{id}/feedback, /v1/feedback/* and /v1/retrieval-params."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_response

from app.api.auth import caller, require
from app.api.bodies import validate_body, validate_optional_body
from app.api.context import registry
from app.api.errors import JSON_BODY, USER_AUTH, error_statuses
from app.models.feedback import (
    FeedbackByTier,
    FeedbackRecorded,
    FeedbackStats,
    NewFeedback,
    RetrievalParams,
    TuneRequest,
    TuneResult,
)
from app.services import feedback

blueprint = Blueprint("feedback", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.post("/memories/<memory_id>/feedback")
@validate_body(NewFeedback)
@validate_response(FeedbackRecorded, 201)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def give_feedback(memory_id: str, data: NewFeedback) -> tuple[Any, int]:
    return await feedback.record(registry(), caller(), memory_id, data), 201


@blueprint.get("/feedback/stats")
@validate_response(FeedbackStats)
@error_statuses(*USER_AUTH)
async def stats() -> Any:
    return await feedback.stats(registry(), caller())


@blueprint.get("/feedback/by-tier")
@validate_response(FeedbackByTier)
@error_statuses(*USER_AUTH)
async def by_tier() -> Any:
    return await feedback.by_tier(registry(), caller())


@blueprint.get("/retrieval-params")
@validate_response(RetrievalParams)
@error_statuses(*USER_AUTH)
async def retrieval_params() -> Any:
    return await feedback.params(registry(), caller())


@blueprint.post("/retrieval-params/tune")
@validate_optional_body(TuneRequest)
@validate_response(TuneResult)
@error_statuses(*USER_AUTH, *JSON_BODY)
async def tune(data: TuneRequest) -> Any:
    """No body (or {}) tunes automatically."""
    return await feedback.tune(registry(), caller(), data.feedback_weight)
