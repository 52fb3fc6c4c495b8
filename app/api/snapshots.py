"""/v1/snapshots: create, list, show, delete, diff and roll back."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_request

from app.api.encoding import to_json
from app.auth import caller, require
from app.deps import deps
from app.models.snapshots import CreateSnapshot, DiffQuery, SnapshotQuery
from app.services import snapshots

blueprint = Blueprint("snapshots", __name__, url_prefix="/v1/snapshots")
blueprint.before_request(require("user"))


@blueprint.post("")
@validate_request(CreateSnapshot)
async def create(data: CreateSnapshot) -> tuple[Any, int]:
    snapshot = await snapshots.create(
        deps().graph, caller(), data.name, data.description, data.branch
    )
    return to_json(snapshot), 201


@blueprint.get("")
async def list_all() -> Any:
    return to_json(await snapshots.list_all(deps().graph, caller()))


@blueprint.get("/<name>")
@validate_querystring(SnapshotQuery)
async def show(name: str, query_args: SnapshotQuery) -> Any:
    found = await snapshots.detail(
        deps().graph, caller(), name, query_args.detail, query_args.limit, query_args.offset
    )
    return to_json(found)


@blueprint.delete("/<name>")
async def delete(name: str) -> Any:
    return to_json(await snapshots.delete(deps().graph, caller(), name))


@blueprint.get("/<name>/diff")
@validate_querystring(DiffQuery)
async def diff(name: str, query_args: DiffQuery) -> Any:
    return to_json(await snapshots.diff(deps().graph, caller(), name, query_args.limit))


@blueprint.post("/<name>/rollback")
async def rollback(name: str) -> Any:
    rolled_back = await snapshots.rollback(
        deps().graph, caller(), name, deps().settings.safety_snapshots_kept
    )
    return to_json(rolled_back)
