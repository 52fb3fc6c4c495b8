"""The operators' pages (master key only): every user with their counts, one user's keys with
revocation, and switching to a user's view."""

from __future__ import annotations

from pydantic import BaseModel
from quart import Response, request

from app.api.context import registry
from app.console import pages
from app.console.forms import PAGE_SIZE, decoded, filled
from app.console.web import back_to, blueprint, notify, operator, page, view_as
from app.models.common import Name
from app.services import admin, keys


class ViewAs(BaseModel):
    user_id: Name


@blueprint.get("/operators")
async def operators() -> Response:
    operator()
    users = await admin.users(registry(), request.args.get("cursor") or None, PAGE_SIZE)
    return await page("operators.html", users=users)


@blueprint.get("/operators/user")
async def find_user() -> Response:
    operator()
    asked = decoded(ViewAs, filled(request.args, "user_id"))
    return back_to("console.user", user_id=asked.user_id)


@blueprint.get("/operators/users/<user_id>")
async def user(user_id: str) -> Response:
    operator()
    shown = await pages.user_page(registry(), user_id)
    return await page("user.html", shown=shown)


@blueprint.post("/operators/users/<user_id>/keys/<key_id>/revoke")
async def revoke_key(user_id: str, key_id: str) -> Response:
    operator()
    revoked = await keys.revoke(registry(), user_id, key_id)
    notify(f"Key {revoked.prefix}… of {user_id} revoked: its sessions end at their next page.")
    return back_to("console.user", user_id=user_id)


@blueprint.post("/operators/view")
async def view() -> Response:
    operator()
    asked = decoded(ViewAs, filled(await request.form, "user_id"))
    caller = await admin.caller_of(registry(), asked.user_id)
    view_as(caller.user_id)
    notify(f"Viewing user {caller.user_id}.")
    return back_to("console.memories_list")
