"""/v1/memories, /v1/observe and /v1/profiles/me."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_request

from app.api.encoding import to_json
from app.auth import caller, limited, require
from app.deps import deps
from app.models.memories import (
    CorrectById,
    CorrectByQuery,
    DeleteQuery,
    FulltextRequest,
    ListQuery,
    Observe,
    RetrieveRequest,
    StoreBatch,
    StoreMemory,
)
from app.models.snapshots import Purge
from app.services import memories, retrieval

blueprint = Blueprint("memories", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.get("/memories")
@validate_querystring(ListQuery)
async def list_memories(query_args: ListQuery) -> Any:
    page = await memories.list_page(
        deps().graph,
        caller(),
        limit=query_args.limit,
        cursor=query_args.cursor,
        memory_type=query_args.memory_type,
        branch=query_args.branch,
    )
    return to_json(page)


@blueprint.post("/memories")
@validate_request(StoreMemory)
@limited("store")
async def store(data: StoreMemory) -> tuple[Any, int]:
    memory, created = await memories.store(
        deps().graph, deps().embedder, caller(), data, data.branch
    )
    return to_json(memory), 201 if created else 200


@blueprint.post("/memories/batch")
@validate_request(StoreBatch)
@limited("batch")
async def store_batch(data: StoreBatch) -> tuple[Any, int]:
    stored = await memories.store_batch(
        deps().graph, deps().embedder, caller(), data.memories, data.branch
    )
    return {"memories": to_json(stored)}, 201


@blueprint.post("/memories/retrieve")
@validate_request(RetrieveRequest)
@limited("retrieve")
async def retrieve(data: RetrieveRequest) -> Any:
    found = await retrieval.hybrid(deps().graph, deps().embedder, caller(), data, mode="retrieve")
    return to_json(found)


@blueprint.post("/memories/search")
@validate_request(RetrieveRequest)
@limited("retrieve")
async def search(data: RetrieveRequest) -> Any:
    found = await retrieval.hybrid(deps().graph, deps().embedder, caller(), data, mode="search")
    return to_json(found)


@blueprint.post("/memories/fulltext-search")
@validate_request(FulltextRequest)
@limited("retrieve")
async def fulltext_search(data: FulltextRequest) -> Any:
    return to_json(await retrieval.fulltext(deps().graph, caller(), data))


@blueprint.put("/memories/<memory_id>/correct")
@validate_request(CorrectById)
@limited("store")
async def correct(memory_id: str, data: CorrectById) -> Any:
    corrected = await memories.correct(
        deps().graph,
        deps().embedder,
        caller(),
        memory_id,
        data.new_content,
        data.reason,
        data.branch,
    )
    return to_json(corrected)


@blueprint.post("/memories/correct")
@validate_request(CorrectByQuery)
@limited("store")
async def correct_by_query(data: CorrectByQuery) -> Any:
    corrected = await memories.correct_by_query(
        deps().graph,
        deps().embedder,
        caller(),
        data.query,
        data.new_content,
        data.reason,
        data.branch,
    )
    return to_json(corrected)


@blueprint.delete("/memories/<memory_id>")
@validate_querystring(DeleteQuery)
@limited("store")
async def delete(memory_id: str, query_args: DeleteQuery) -> Any:
    deleted = await memories.delete(
        deps().graph,
        caller(),
        memory_id,
        query_args.reason,
        query_args.branch,
        deps().settings.safety_snapshots_kept,
    )
    return to_json(deleted)


@blueprint.post("/observe")
@validate_request(Observe)
@limited("store")
async def observe(data: Observe) -> tuple[Any, int]:
    observed = await memories.observe(
        deps().graph,
        deps().embedder,
        deps().llm,
        caller(),
        [(message.role, message.content) for message in data.messages],
        data.session_id,
        data.branch,
    )
    return to_json(observed), 201


@blueprint.get("/profiles/me")
async def my_profile() -> Any:
    return to_json(await memories.profile(deps().graph, caller()))


@blueprint.post("/memories/purge")
@validate_request(Purge)
@limited("purge")
async def purge(data: Purge) -> Any:
    purged = await memories.purge(
        deps().graph, caller(), data, deps().settings.safety_snapshots_kept
    )
    return to_json(purged)
