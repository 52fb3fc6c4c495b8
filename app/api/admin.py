"""/admin: operator endpoints behind the master key."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_querystring

from app.api.encoding import to_json
from app.auth import require
from app.deps import deps
from app.models.admin import UserPageQuery
from app.services import admin, keys

blueprint = Blueprint("admin", __name__, url_prefix="/admin")
blueprint.before_request(require("master"))


@blueprint.get("/stats")
async def stats() -> Any:
    return to_json(await admin.system_stats(deps().graph))


@blueprint.get("/users")
@validate_querystring(UserPageQuery)
async def users(query_args: UserPageQuery) -> Any:
    return to_json(await admin.users(deps().graph, query_args.cursor, query_args.limit))


@blueprint.get("/users/<user_id>/stats")
async def user_stats(user_id: str) -> Any:
    return to_json(await admin.user_stats(deps().graph, user_id))


@blueprint.get("/users/<user_id>/keys")
async def user_keys(user_id: str) -> Any:
    return to_json(await admin.user_keys(deps().graph, user_id))


@blueprint.delete("/users/<user_id>/keys")
async def revoke_user_keys(user_id: str) -> Any:
    return to_json(await keys.revoke_all(deps().graph, user_id))


@blueprint.delete("/users/<user_id>")
async def deactivate(user_id: str) -> Any:
    return to_json(await admin.deactivate(deps().graph, user_id))
