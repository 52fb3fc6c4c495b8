"""/auth/keys: issue (master key), list, show, rotate and revoke (the owner's API key)."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, g, request
from quart_schema import validate_request

from app.api.encoding import to_json
from app.auth import authenticate, current_user
from app.deps import deps
from app.models.keys import CreateKey
from app.services import keys

blueprint = Blueprint("keys", __name__, url_prefix="/auth/keys")


@blueprint.before_request
async def authenticate_caller() -> None:
    # Issuing a key is the master's; everything else acts on the caller's own keys.
    g.principal = await authenticate("master" if request.method == "POST" else "user")


@blueprint.post("")
@validate_request(CreateKey)
async def create(data: CreateKey) -> tuple[Any, int]:
    return to_json(await keys.create(deps().graph, data)), 201


@blueprint.get("")
async def list_mine() -> Any:
    return to_json(await keys.list_for(deps().graph, current_user()))


@blueprint.get("/<key_id>")
async def show(key_id: str) -> Any:
    return to_json(await keys.get(deps().graph, current_user(), key_id))


@blueprint.put("/<key_id>/rotate")
async def rotate(key_id: str) -> tuple[Any, int]:
    return to_json(await keys.rotate(deps().graph, current_user(), key_id)), 201


@blueprint.delete("/<key_id>")
async def revoke(key_id: str) -> Any:
    return to_json(await keys.revoke(deps().graph, current_user(), key_id))
