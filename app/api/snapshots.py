"""/v1/snapshots: create, list, show, delete (one, or several in Memoria's bulk form), diff and
roll back."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import caller, require
from app.api.bodies import validate_body
from app.api.context import registry
from app.api.errors import JSON_BODY, QUERY_STRING, USER_AUTH, error_statuses
from app.models.snapshots import (
    CreateSnapshot,
    DeleteSnapshots,
    Diff,
    DiffQuery,
    RolledBack,
    Snapshot,
    SnapshotDetail,
    SnapshotList,
    SnapshotListQuery,
    SnapshotQuery,
    SnapshotsDeleted,
)
from app.services.versioning import snapshots

blueprint = Blueprint("snapshots", __name__, url_prefix="/v1/snapshots")
blueprint.before_request(require("user"))


@blueprint.post("")
@validate_body(CreateSnapshot)
@validate_response(Snapshot, 201)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 409)
async def create(data: CreateSnapshot) -> tuple[Any, int]:
    snapshot = await snapshots.create(
        registry(), caller(), data.name, data.description, data.branch
    )
    return snapshot, 201


@blueprint.get("")
@validate_querystring(SnapshotListQuery)
@validate_response(SnapshotList)
@error_statuses(*USER_AUTH, *QUERY_STRING)
async def list_all(query_args: SnapshotListQuery) -> Any:
    return await snapshots.list_slice(registry(), caller(), query_args)


@blueprint.post("/delete")
@validate_body(DeleteSnapshots)
@validate_response(SnapshotsDeleted)
@error_statuses(*USER_AUTH, *JSON_BODY)
async def delete_many(data: DeleteSnapshots) -> Any:
    """Memoria's bulk delete: by names, by name prefix or by age."""
    return await snapshots.delete_many(registry(), caller(), data)


@blueprint.get("/<name>")
@validate_querystring(SnapshotQuery)
@validate_response(SnapshotDetail)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404)
async def show(name: str, query_args: SnapshotQuery) -> Any:
    found = await snapshots.detail(
        registry(), caller(), name, query_args.detail, query_args.limit, query_args.offset
    )
    return found


@blueprint.delete("/<name>")
@validate_response(Snapshot)
@error_statuses(*USER_AUTH, 404)
async def delete(name: str) -> Any:
    return await snapshots.delete(registry(), caller(), name)


@blueprint.get("/<name>/diff")
@validate_querystring(DiffQuery)
@validate_response(Diff)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404)
async def diff(name: str, query_args: DiffQuery) -> Any:
    return await snapshots.diff(registry(), caller(), name, query_args.limit)


@blueprint.post("/<name>/rollback")
@validate_response(RolledBack)
@error_statuses(*USER_AUTH, 404)
async def rollback(name: str) -> Any:
    return await snapshots.rollback(registry(), caller(), name)
