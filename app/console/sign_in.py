"""Signing in (an API key: the user's own view; the master key and a user id: an operator's
view of that user) and out."""

from __future__ import annotations

from quart import Response, request, url_for

from app.api.auth import resolve
from app.api.context import registry
from app.console.session import SIGN_IN_COOKIE, Session, new_token
from app.console.web import (
    FormRefused,
    back_to,
    blueprint,
    check_form,
    cookies,
    see_other,
    sign_in_page,
    start,
    viewer,
)
from app.errors import Forbidden, Invalid, Unauthenticated


@blueprint.get("/")
async def home() -> Response:
    if viewer().user_id is None:
        return back_to("console.operators")
    return back_to("console.memories_list")


@blueprint.get("/sign-in")
async def sign_in_form() -> Response:
    return await sign_in_page()


@blueprint.post("/sign-in")
async def sign_in() -> Response:
    """Checks the credential exactly as the API does (app.api.auth.resolve), then starts a
    session that keeps the key's id, never the key."""
    expected = cookies().sign_in_token(request.cookies.get(SIGN_IN_COOKIE))
    try:
        await check_form(expected or "")
    except FormRefused:
        return await sign_in_page(status=403, problem="The sign-in form expired: try again.")
    form = await request.form
    credential = form.get("credential", "").strip()
    user_id = form.get("user_id", "").strip()
    try:
        try:
            principal = await resolve(
                registry(), "user" if user_id else "master", f"Bearer {credential}", user_id
            )
        except Forbidden:  # an API key names its user: the user id is not needed
            principal = await resolve(registry(), "user", f"Bearer {credential}", "")
    except (Unauthenticated, Forbidden, Invalid) as error:
        return await sign_in_page(status=401, problem=f"Not signed in: {error.detail}.")
    session = Session(
        user_id=principal.user_id,
        key_id=principal.key_id,
        master=cookies().master_fingerprint() if principal.is_master else None,
        csrf=new_token(),
    )
    next_page = form.get("next", "")
    if not (next_page.startswith("/console/") and "//" not in next_page):
        next_page = url_for("console.home")
    response = see_other(next_page)
    start(response, session)
    return response


@blueprint.post("/sign-out")
async def sign_out() -> Response:
    return await sign_in_page(notice="You are signed out.")
