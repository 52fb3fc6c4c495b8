"""/v1/entities and /v1/extract-entities (LLM, candidates and manual links)."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import caller, require
from app.api.bodies import validate_body, validate_optional_body
from app.api.context import registry
from app.api.errors import JSON_BODY, QUERY_STRING, USER_AUTH, error_statuses
from app.models.entities import (
    CandidatesRequest,
    EntityCandidates,
    EntityPage,
    EntityQuery,
    ExtractAnswer,
    ExtractRequest,
    LinkAnswer,
    LinkEntities,
    LinkEntitiesMany,
    LinkRequest,
)
from app.services.entities import linking, llm_extraction

blueprint = Blueprint("entities", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.get("/entities")
@validate_querystring(EntityQuery)
@validate_response(EntityPage)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404)
async def list_entities(query_args: EntityQuery) -> Any:
    return await linking.list_page(registry(), caller(), query_args)


@blueprint.post("/extract-entities")
@validate_optional_body(ExtractRequest)
@validate_response(ExtractAnswer)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 503)
async def extract_entities(data: ExtractRequest) -> Any:
    return await llm_extraction.extract(registry(), caller(), data)


@blueprint.post("/extract-entities/candidates")
@validate_optional_body(CandidatesRequest)
@validate_response(EntityCandidates)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def extraction_candidates(data: CandidatesRequest) -> Any:
    return await linking.candidates(registry(), caller(), data.limit, data.branch)


@blueprint.post("/extract-entities/link")
@validate_body(LinkRequest)
@validate_response(LinkAnswer)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def link_entities(data: LinkEntities | LinkEntitiesMany) -> Any:
    """One memory's entities (ours) or several memories' (Memoria's form)."""
    return await linking.link_manually(registry(), caller(), data)
