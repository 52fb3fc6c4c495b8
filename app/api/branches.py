"""/v1/branches: create, list, check out, diff against main, merge and delete."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_request

from app.api.encoding import to_json
from app.auth import caller, require
from app.deps import deps
from app.models.branches import CreateBranch, Merge
from app.services import branches

blueprint = Blueprint("branches", __name__, url_prefix="/v1/branches")
blueprint.before_request(require("user"))


@blueprint.post("")
@validate_request(CreateBranch)
async def create(data: CreateBranch) -> tuple[Any, int]:
    branch = await branches.create(deps().graph, caller(), data.name, data.from_snapshot)
    return to_json(branch), 201


@blueprint.get("")
async def list_all() -> Any:
    return to_json(await branches.list_all(deps().graph, caller()))


@blueprint.post("/<name>/checkout")
async def checkout(name: str) -> Any:
    return to_json(await branches.checkout(deps().graph, caller(), name))


@blueprint.get("/<name>/diff")
async def diff(name: str) -> Any:
    return to_json(await branches.diff(deps().graph, caller(), name))


@blueprint.post("/<name>/merge")
@validate_request(Merge)
async def merge(name: str, data: Merge) -> Any:
    return to_json(await branches.merge(deps().graph, caller(), name, data.strategy))


@blueprint.delete("/<name>")
async def delete(name: str) -> Any:
    return to_json(await branches.delete(deps().graph, caller(), name))
