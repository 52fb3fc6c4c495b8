"""/auth/keys: issue (master key), list, show, rotate and revoke (the owner's API key)."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, g, request
from quart_schema import validate_response

from app.api.auth import authenticate, current_user
from app.api.bodies import validate_body
from app.api.context import registry
from app.api.errors import JSON_BODY, MASTER_AUTH, USER_AUTH, error_statuses
from app.models.keys import ApiKey, ApiKeyList, CreateKey, IssuedKey
from app.services import keys

blueprint = Blueprint("keys", __name__, url_prefix="/auth/keys")


@blueprint.before_request
async def authenticate_caller() -> None:
    # Issuing a key is the master's; everything else acts on the caller's own keys.
    g.principal = await authenticate("master" if request.method == "POST" else "user")


@blueprint.post("")
@validate_body(CreateKey)
@validate_response(IssuedKey, 201)
@error_statuses(*MASTER_AUTH, *JSON_BODY, 409)
async def create(data: CreateKey) -> tuple[Any, int]:
    return await keys.create(registry(), data), 201


@blueprint.get("")
@validate_response(ApiKeyList)
@error_statuses(*USER_AUTH)
async def list_mine() -> Any:
    return await keys.list_for(registry(), current_user())


@blueprint.get("/<key_id>")
@validate_response(ApiKey)
@error_statuses(*USER_AUTH, 404)
async def show(key_id: str) -> Any:
    return await keys.get(registry(), current_user(), key_id)


@blueprint.put("/<key_id>/rotate")
@validate_response(IssuedKey, 201)
@error_statuses(*USER_AUTH, 404, 409)
async def rotate(key_id: str) -> tuple[Any, int]:
    return await keys.rotate(registry(), current_user(), key_id), 201


@blueprint.delete("/<key_id>")
@validate_response(ApiKey)
@error_statuses(*USER_AUTH, 404)
async def revoke(key_id: str) -> Any:
    return await keys.revoke(registry(), current_user(), key_id)
