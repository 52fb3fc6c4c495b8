"""/admin: operator endpoints behind the master key."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring, validate_response

from app.api.auth import require
from app.api.context import registry
from app.api.errors import MASTER_AUTH, QUERY_STRING, error_statuses
from app.models.admin import SystemStats, User, UserPage, UserPageQuery, UserStats
from app.models.governance import TriggerAnswer, TriggerQuery
from app.models.keys import ApiKeyList, RevokedKeys
from app.services import admin, keys
from app.services.governance import sweep

blueprint = Blueprint("admin", __name__, url_prefix="/admin")
blueprint.before_request(require("master"))


@blueprint.get("/stats")
@validate_response(SystemStats)
@error_statuses(*MASTER_AUTH)
async def stats() -> Any:
    return await admin.system_stats(registry())


@blueprint.get("/users")
@validate_querystring(UserPageQuery)
@validate_response(UserPage)
@error_statuses(*MASTER_AUTH, *QUERY_STRING)
async def users(query_args: UserPageQuery) -> Any:
    return await admin.users(registry(), query_args.cursor, query_args.limit)


@blueprint.get("/users/<user_id>/stats")
@validate_response(UserStats)
@error_statuses(*MASTER_AUTH, 404)
async def user_stats(user_id: str) -> Any:
    return await admin.user_stats(registry(), user_id)


@blueprint.get("/users/<user_id>/keys")
@validate_response(ApiKeyList)
@error_statuses(*MASTER_AUTH, 404)
async def user_keys(user_id: str) -> Any:
    return await admin.user_keys(registry(), user_id)


@blueprint.delete("/users/<user_id>/keys")
@validate_response(RevokedKeys)
@error_statuses(*MASTER_AUTH, 404)
async def revoke_user_keys(user_id: str) -> Any:
    return await keys.revoke_all(registry(), user_id)


@blueprint.delete("/users/<user_id>")
@validate_response(User)
@error_statuses(*MASTER_AUTH, 404)
async def deactivate(user_id: str) -> Any:
    return await admin.deactivate(registry(), user_id)


@blueprint.post("/governance/<user_id>/trigger")
@validate_querystring(TriggerQuery)
@validate_response(TriggerAnswer)
@error_statuses(*MASTER_AUTH, *QUERY_STRING, 404)
async def trigger_governance(user_id: str, query_args: TriggerQuery) -> Any:
    """Runs an operation as the user, whatever its cooldown."""
    return await sweep.trigger(registry(), user_id, query_args.op)
