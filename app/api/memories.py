"""/v1/memories, /v1/observe and /v1/profiles/me."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import caller, limited, require
from app.api.bodies import validate_body
from app.api.context import registry
from app.api.errors import JSON_BODY, QUERY_STRING, USER_AUTH, error_statuses
from app.models.history import History
from app.models.memories import (
    CorrectById,
    CorrectByQuery,
    Corrected,
    Deleted,
    DeleteQuery,
    FulltextRequest,
    ListQuery,
    Memory,
    MemoryList,
    MemoryPage,
    MemoryQuery,
    Observe,
    Observed,
    Profile,
    ProfileQuery,
    ReadQuery,
    Retrieved,
    RetrieveRequest,
    StoreBatch,
    StoredBatch,
    StoreMemory,
)
from app.models.purge import Purge, Purged
from app.services import memories, profile

# Aliased because the handlers below bear the same names.
from app.services import observe as observe_service
from app.services import purge as purge_service
from app.services.retrieval import fulltext, pipeline
from app.services.versioning import history

blueprint = Blueprint("memories", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.get("/memories")
@validate_querystring(ListQuery)
@validate_response(MemoryPage)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404, 410)
async def list_memories(query_args: ListQuery) -> Any:
    return await memories.list_page(registry(), caller(), query_args)


@blueprint.post("/memories")
@validate_body(StoreMemory)
@validate_response(Memory, 201)
@validate_response(Memory, 200)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("store")
async def store(data: StoreMemory) -> tuple[Any, int]:
    memory, created = await memories.store(registry(), caller(), data)
    return memory, 201 if created else 200


@blueprint.post("/memories/batch")
@validate_body(StoreBatch)
@validate_response(StoredBatch, 201)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("batch")
async def store_batch(data: StoreBatch) -> tuple[Any, int]:
    return await memories.store_batch(registry(), caller(), data.items(), data.branch), 201


@blueprint.post("/memories/retrieve")
@validate_body(RetrieveRequest)
@validate_response(Retrieved)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 410, 429)
@limited("retrieve")
async def retrieve(data: RetrieveRequest) -> Any:
    found = await pipeline.hybrid(registry(), caller(), data, mode="retrieve")
    return found


@blueprint.post("/memories/search")
@validate_body(RetrieveRequest)
@validate_response(Retrieved)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 410, 429)
@limited("retrieve")
async def search(data: RetrieveRequest) -> Any:
    found = await pipeline.hybrid(registry(), caller(), data, mode="search")
    return found


@blueprint.post("/memories/fulltext-search")
@validate_body(FulltextRequest)
@validate_response(MemoryList)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 410, 429)
@limited("retrieve")
async def fulltext_search(data: FulltextRequest) -> Any:
    return await fulltext.search(registry(), caller(), data)


@blueprint.put("/memories/<memory_id>/correct")
@validate_body(CorrectById)
@validate_response(Memory)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("store")
async def correct(memory_id: str, data: CorrectById) -> Any:
    return await memories.correct(registry(), caller(), memory_id, data)


@blueprint.post("/memories/correct")
@validate_body(CorrectByQuery)
@validate_response(Corrected)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("store")
async def correct_by_query(data: CorrectByQuery) -> Any:
    return await memories.correct_by_query(registry(), caller(), data)


@blueprint.post("/memories/query")
@validate_body(MemoryQuery)
@validate_response(MemoryPage)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 410, 429)
@limited("retrieve")
async def query(data: MemoryQuery) -> Any:
    """Filters only, no ranking."""
    return await memories.query(registry(), caller(), data)


@blueprint.get("/memories/<memory_id>")
@validate_querystring(ReadQuery)
@validate_response(Memory)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404, 410)
async def get_memory(memory_id: str, query_args: ReadQuery) -> Any:
    return await memories.get(registry(), caller(), memory_id, query_args.branch, query_args.as_of)


@blueprint.get("/memories/<memory_id>/history")
@validate_querystring(ReadQuery)
@validate_response(History)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404, 410)
async def memory_history(memory_id: str, query_args: ReadQuery) -> Any:
    return await history.history(
        registry(), caller(), memory_id, query_args.branch, query_args.as_of
    )


@blueprint.delete("/memories/<memory_id>")
@validate_querystring(DeleteQuery)
@validate_response(Deleted)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404, 429)
@limited("store")
async def delete(memory_id: str, query_args: DeleteQuery) -> Any:
    return await memories.delete(registry(), caller(), memory_id, query_args)


@blueprint.post("/observe")
@validate_body(Observe)
@validate_response(Observed, 201)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("store")
async def observe(data: Observe) -> tuple[Any, int]:
    return await observe_service.observe(registry(), caller(), data), 201


@blueprint.get("/profiles/me")
@validate_querystring(ProfileQuery)
@validate_response(Profile)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404)
async def my_profile(query_args: ProfileQuery) -> Any:
    return await profile.profile(registry(), caller(), query_args)


@blueprint.post("/memories/purge")
@validate_body(Purge)
@validate_response(Purged)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 429)
@limited("purge")
async def purge(data: Purge) -> Any:
    return await purge_service.purge(registry(), caller(), data)
