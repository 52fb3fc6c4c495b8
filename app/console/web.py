"""The console's blueprint and what every page shares: the viewer (who signed in, checked again
on every request), the token every form must carry, the security headers, error pages and
rendering."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast
from urllib.parse import urlsplit

from quart import Blueprint, Response, current_app, g, render_template, request, url_for
from quart.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from app import logs
from app.api.context import registry
from app.console.session import (
    COOKIE,
    COOKIE_PATH,
    SIGN_IN_COOKIE,
    SIGN_IN_MAX_AGE_S,
    Cookies,
    Session,
    new_token,
    same_token,
)
from app.errors import DomainError, Forbidden, Unauthenticated, status_of
from app.ratelimit import OperationClass
from app.services import keys
from app.services.governance import confidence
from app.services.scope import MAIN, Caller

log = logging.getLogger(__name__)
EXTENSION = "console"
MEMORY_ID = re.compile(r"^[0-9a-f]{32}$")
blueprint = Blueprint(
    "console",
    __name__,
    url_prefix="/console",
    template_folder="templates",
    static_folder="static",
)
# Pages need no session to be shown.
OPEN_ENDPOINTS = frozenset({"console.sign_in", "console.sign_in_form", "console.static"})
# Scripts and styles from the service itself only: no inline script or style, no other origin.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # Not no-referrer: under it the browser sends "Origin: null" with the forms' POSTs.
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


@dataclass(frozen=True)
class Viewer:
    """Who is looking: the user shown (None until an operator picks one), the API key signed in
    with (None for the master key), and the branch the user has checked out."""

    user_id: str | None
    key_id: str | None
    is_master: bool
    active_branch: str

    def caller(self) -> Caller:
        """The user the page's use cases act for (an operator with no user chosen is sent to
        the operators' page)."""
        if self.user_id is None:
            raise NoUserShown
        return Caller(user_id=self.user_id, active_branch=self.active_branch)


class NoUserShown(Exception):
    """An operator opened a user's page before choosing whose."""


class FormRefused(Forbidden):
    """A form posted without this session's token, or from another site: nothing is done."""


def cookies() -> Cookies:
    return cast(Cookies, current_app.extensions[EXTENSION])


def viewer() -> Viewer:
    found: Viewer = g.console_viewer
    return found


def caller() -> Caller:
    return viewer().caller()


def _session() -> Session:
    found: Session = g.console_session
    return found


def notify(notice: str) -> None:
    """Shows `notice` on the next page the viewer sees (after a form's redirect)."""
    g.console_session = _session().noting(notice)
    g.console_session_changed = True


def operator() -> Viewer:
    """The viewer, who must have signed in with the master key."""
    found = viewer()
    if not found.is_master:
        raise Forbidden("the operators' pages need the master key")
    return found


def view_as(user_id: str | None) -> None:
    """Shows the operator this user's console (None: none) from the next page on."""
    g.console_session = replace(_session(), user_id=user_id)
    g.console_session_changed = True


async def _viewer_of(session: Session) -> Viewer:
    """The viewer a session names, if its credential still holds: the API key is still live
    (not revoked or expired, its user active), or the master key is the one signed in with."""
    if session.key_id is not None:
        owner = await keys.verify_id(registry(), session.key_id)
        if owner.user_id != session.user_id:
            raise Unauthenticated("the session does not match its key")
        return Viewer(owner.user_id, owner.key_id, False, owner.active_branch)
    if session.master is None or not same_token(session.master, cookies().master_fingerprint()):
        raise Unauthenticated("the master key has changed")
    if session.user_id is None:
        return Viewer(None, None, True, MAIN)
    acted_for = await keys.acting_for(registry(), session.user_id)
    return Viewer(session.user_id, None, True, acted_for.active_branch)


def _same_site() -> bool:
    """Whether the request comes from a page of this service (when the browser says)."""
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    return origin is None or urlsplit(origin).netloc == request.host


async def check_form(expected: str) -> None:
    """Refuses a POST whose form lacks the expected token or that another site sent."""
    form = await request.form
    if not _same_site() or not same_token(form.get("csrf_token"), expected):
        raise FormRefused("the form's token is missing or stale: reload the page and try again")


@blueprint.before_request
async def signed_in() -> ResponseReturnValue | None:
    """Every page but sign-in needs a session whose credential still holds; every form its
    token."""
    if request.endpoint in OPEN_ENDPOINTS:
        return None
    session = cookies().session(request.cookies.get(COOKIE))
    if session is None:
        return await sign_in_page(status=401)
    g.console_session = session
    try:
        g.console_viewer = await _viewer_of(session)
    except Unauthenticated as error:
        return await sign_in_page(status=401, notice=f"You were signed out: {error.detail}.")
    except Forbidden as error:  # the user an operator views was deactivated meanwhile
        g.console_viewer = Viewer(None, None, True, MAIN)
        view_as(None)
        notify(f"{error.detail}.")
    logs.note_user(g.console_viewer.user_id)
    if request.method == "POST":
        await check_form(session.csrf)
    return None


@blueprint.after_request
async def secured(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    if request.endpoint != "console.static":
        response.headers["Cache-Control"] = "no-store"
    if g.get("console_session_changed"):
        keep(response, _session())
    return response


def _secure() -> bool:
    return cookies().always_secure or request.scheme == "https"


def keep(response: Response, session: Session) -> None:
    """Sets the session cookie: HttpOnly, SameSite=Strict, Secure over TLS, /console only."""
    response.set_cookie(
        COOKIE,
        cookies().session_cookie(session),
        max_age=cookies().max_age_s,
        path=COOKIE_PATH,
        secure=_secure(),
        httponly=True,
        samesite="Strict",
    )


def forget(response: Response) -> None:
    response.delete_cookie(
        COOKIE, path=COOKIE_PATH, secure=_secure(), httponly=True, samesite="Strict"
    )


def start(response: Response, session: Session) -> None:
    """Signs the viewer in: their session replaces any other, the sign-in token is spent."""
    keep(response, session)
    response.delete_cookie(
        SIGN_IN_COOKIE, path=COOKIE_PATH, secure=_secure(), httponly=True, samesite="Strict"
    )


def _next_page() -> str:
    """Where to go after signing in: the console page asked for, if it was one."""
    path = request.full_path.rstrip("?") if request.method == "GET" else ""
    return path if path.startswith("/console/") and not path.startswith("//") else ""


async def sign_in_page(
    status: int = 200, notice: str | None = None, problem: str | None = None
) -> Response:
    """The sign-in form, with a fresh token bound to a cookie of its own (so that no other site
    can sign a browser in), shown in place of any page that needs a session."""
    token = new_token()
    body = await render_template(
        "console/sign_in.html",
        token=token,
        notice=notice,
        problem=problem,
        next_page=_next_page(),
        viewer=None,
    )
    response = Response(body, status=status, content_type="text/html; charset=utf-8")
    response.set_cookie(
        SIGN_IN_COOKIE,
        cookies().sign_in_cookie(token),
        max_age=SIGN_IN_MAX_AGE_S,
        path=COOKIE_PATH,
        secure=_secure(),
        httponly=True,
        samesite="Strict",
    )
    if request.cookies.get(COOKIE):
        forget(response)
    return response


async def page(template: str, status: int = 200, **context: Any) -> Response:
    """A page for the signed-in viewer, with the notices waiting for them."""
    session = _session()
    if session.notices:
        g.console_session = replace(session, notices=())
        g.console_session_changed = True
    body = await render_template(
        f"console/{template}",
        viewer=viewer(),
        csrf_token=session.csrf,
        notices=session.notices,
        **context,
    )
    return Response(body, status=status, content_type="text/html; charset=utf-8")


def see_other(location: str) -> Response:
    """The redirect after a form (303: the browser then GETs the page)."""
    return Response("", status=303, headers={"Location": location})


def back_to(endpoint: str, **values: Any) -> Response:
    return see_other(url_for(endpoint, **values))


async def limited(operation: OperationClass) -> None:
    """Counts the request in the signed-in API key's rate-limit window of that class, as the API
    counts its own (the master key has none)."""
    await registry().limiter.hit(operation, viewer().key_id)


@blueprint.errorhandler(DomainError)
async def domain_error(error: DomainError) -> Response:
    if isinstance(error, Unauthenticated):
        return await sign_in_page(status=401, notice=f"You were signed out: {error.detail}.")
    if g.get("console_viewer") is None:  # failed before it knew who is looking
        return await sign_in_page(status=status_of(error), problem=error.detail)
    return await page("error.html", status=status_of(error), detail=error.detail)


@blueprint.errorhandler(NoUserShown)
async def no_user_shown(_: NoUserShown) -> Response:
    notify("Choose a user to view first.")
    return back_to("console.operators")


@blueprint.errorhandler(HTTPException)
async def http_error(error: HTTPException) -> Response:
    detail = error.description or error.name
    if g.get("console_viewer") is None:
        return Response(detail, status=error.code or 500, content_type="text/plain")
    return await page("error.html", status=error.code or 500, detail=detail)


@blueprint.errorhandler(Exception)
async def unexpected(error: Exception) -> Response:
    log.exception("unhandled error", exc_info=error)
    if g.get("console_viewer") is None:
        return Response("internal error", status=500, content_type="text/plain")
    return await page("error.html", status=500, detail="Something went wrong on our side.")


@blueprint.app_template_filter("when")
def when(value: datetime | str | None) -> str:
    """A stored time as people read it, in UTC."""
    if value is None:
        return "—"
    moment = confidence.timestamp(value) if isinstance(value, str) else value
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


@blueprint.app_template_filter("number")
def number(value: Any) -> str:
    """A figure of an explanation or a report: floats to four places, flags as yes or no,
    anything else as it is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, float):
        return str(value)
    return f"{value:.4f}"


@blueprint.app_template_filter("short_id")
def short_id(value: str | None) -> str:
    """An id cut short: its start and its end (time-ordered ids made close together share their
    start)."""
    if not value:
        return "—"
    return value if len(value) <= 12 else f"{value[:4]}…{value[-6:]}"


@blueprint.app_template_filter("kind")
def kind(value: Any) -> str:
    """What an explanation's value is, for the template that shows it."""
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list | tuple):
        return "list"
    return "scalar"


@blueprint.app_template_test("memory_id")
def is_memory_id(value: Any) -> bool:
    """Whether an explanation's text is a memory id (shown as a link to the memory)."""
    return isinstance(value, str) and MEMORY_ID.match(value) is not None
