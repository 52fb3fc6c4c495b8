"""/v1/branches: create, list, check out, diff against main (whole, or entry by entry), merge,
pick (or apply, Memoria's pick of diff entries) and delete."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import caller, require
from app.api.bodies import validate_body
from app.api.context import registry
from app.api.errors import JSON_BODY, QUERY_STRING, USER_AUTH, error_statuses
from app.models.branches import (
    Applied,
    ApplyChanges,
    Branch,
    BranchDiff,
    BranchList,
    CheckedOut,
    CreateBranch,
    DeletedBranch,
    DiffItems,
    DiffItemsQuery,
    MemoriaPick,
    Merge,
    Merged,
    Pick,
    Picked,
    PickRequest,
)
from app.services.versioning import branches, pick

blueprint = Blueprint("branches", __name__, url_prefix="/v1/branches")
blueprint.before_request(require("user"))


@blueprint.post("")
@validate_body(CreateBranch)
@validate_response(Branch, 201)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 409)
async def create(data: CreateBranch) -> tuple[Any, int]:
    branch = await branches.create(registry(), caller(), data)
    return branch, 201


@blueprint.get("")
@validate_response(BranchList)
@error_statuses(*USER_AUTH)
async def list_all() -> Any:
    return await branches.list_all(registry(), caller())


@blueprint.post("/<name>/checkout")
@validate_response(CheckedOut)
@error_statuses(*USER_AUTH, 404)
async def checkout(name: str) -> Any:
    return await branches.checkout(registry(), caller(), name)


@blueprint.get("/<name>/diff")
@validate_response(BranchDiff)
@error_statuses(*USER_AUTH, 404)
async def diff(name: str) -> Any:
    return await branches.diff(registry(), caller(), name)


@blueprint.get("/<name>/diff-items")
@validate_querystring(DiffItemsQuery)
@validate_response(DiffItems)
@error_statuses(*USER_AUTH, *QUERY_STRING, 404)
async def diff_items(name: str, query_args: DiffItemsQuery) -> Any:
    """Memoria's entry-by-entry diff against main."""
    return await branches.diff_items(registry(), caller(), name, query_args.limit)


@blueprint.post("/<name>/apply")
@validate_body(ApplyChanges)
@validate_response(Applied)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def apply(name: str, data: ApplyChanges) -> Any:
    """Memoria's selective apply into main: a pick of the memories its entries name."""
    return await pick.apply(registry(), caller(), name, data)


@blueprint.post("/<name>/merge")
@validate_body(Merge)
@validate_response(Merged)
@error_statuses(*USER_AUTH, *JSON_BODY, 404)
async def merge(name: str, data: Merge) -> Any:
    return await branches.merge(registry(), caller(), name, data.strategy)


@blueprint.post("/<name>/pick")
@validate_body(PickRequest)
@validate_response(Picked)
@error_statuses(*USER_AUTH, *JSON_BODY, 404, 409)
async def pick_changes(name: str, data: Pick | MemoriaPick) -> Any:
    """Our form, or Memoria's with a `selector` object."""
    return await pick.pick(registry(), caller(), name, data)


@blueprint.delete("/<name>")
@validate_response(DeletedBranch)
@error_statuses(*USER_AUTH, 404)
async def delete(name: str) -> Any:
    return await branches.delete(registry(), caller(), name)
