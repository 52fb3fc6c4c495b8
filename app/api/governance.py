"""/v1/governance, /v1/consolidate and /v1/reflect (with its candidates route)."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import caller, limited, require
from app.api.bodies import validate_optional_body
from app.api.context import registry
from app.api.errors import JSON_BODY, USER_AUTH, error_statuses
from app.models.governance import (
    ConsolidateAnswer,
    ForceBody,
    ForceQuery,
    GovernanceAnswer,
    ReflectAnswer,
    ReflectCandidates,
    ReflectCandidatesRequest,
    ReflectRequest,
)
from app.services.governance import consolidate as consolidate_service
from app.services.governance import reflect, sweep

blueprint = Blueprint("governance", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.post("/governance")
@validate_querystring(ForceQuery)
@validate_optional_body(ForceBody)
@validate_response(GovernanceAnswer)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def govern(query_args: ForceQuery, data: ForceBody) -> Any:
    force = query_args.force or data.force
    return await sweep.govern(registry(), caller(), force=force)


@blueprint.post("/consolidate")
@validate_querystring(ForceQuery)
@validate_optional_body(ForceBody)
@validate_response(ConsolidateAnswer)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("consolidate_reflect")
async def consolidate(query_args: ForceQuery, data: ForceBody) -> Any:
    force = query_args.force or data.force
    return await consolidate_service.consolidate(registry(), caller(), force=force)


@blueprint.post("/reflect")
@validate_querystring(ForceQuery)
@validate_optional_body(ReflectRequest)
@validate_response(ReflectAnswer)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("consolidate_reflect")
async def reflect_insights(query_args: ForceQuery, data: ReflectRequest) -> Any:
    request = data.model_copy(update={"force": query_args.force or data.force})
    return await reflect.reflect(registry(), caller(), request)


@blueprint.post("/reflect/candidates")
@validate_optional_body(ReflectCandidatesRequest)
@validate_response(ReflectCandidates)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def reflect_candidates(data: ReflectCandidatesRequest) -> Any:
    return await reflect.candidates(registry(), caller(), data.limit)
