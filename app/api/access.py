"""The outermost ASGI layer: an X-Request-Id on every response, and per request one access log
line and the request metrics, labelled by route (the URL rule routing matched, never the raw
path). A request whose client went away before it was answered is recorded as 499 (client
closed request, as web servers record it), not as an error of the service."""

from __future__ import annotations

import logging
import re
import time
import uuid

from quart import Quart, request
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import logs, metrics

REQUEST_ID = "x-request-id"
# A request id taken from the client is echoed into headers and logs: keep it a plain token.
CLIENT_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
log = logging.getLogger("app.access")  # the access log's public name
CLIENT_CLOSED = 499


def name_routes(app: Quart) -> None:
    """Labels each request with the URL rule Quart matched it to (before any other hook, so a
    request refused by authentication is labelled too)."""

    @app.before_request
    async def name_the_route() -> None:
        if request.url_rule is not None:
            logs.note_route(request.url_rule.rule)


def _has_body(scope: Scope) -> bool:
    headers = Headers(scope=scope)
    return headers.get("content-length", "0") != "0" or "transfer-encoding" in headers


class AccessLayer:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        given = Headers(scope=scope).get(REQUEST_ID, "")
        request_id = given if CLIENT_REQUEST_ID.match(given) else uuid.uuid4().hex
        method: str = scope["method"]
        context = logs.RequestContext(request_id)
        token = logs.CURRENT.set(context)
        status: int | None = None
        disconnected = False
        body_read = not _has_body(scope)
        started = time.perf_counter()

        async def receive_noting_disconnect() -> Message:
            nonlocal disconnected, body_read
            message = await receive()
            disconnected = disconnected or message["type"] == "http.disconnect"
            body_read = body_read or not message.get("more_body", False)
            return message

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", []), (REQUEST_ID.encode(), request_id.encode())]
                if not body_read:
                    # Answered before its body was read (refused by authentication, or the
                    # database is down): the server cannot reuse the connection while that body
                    # may still be arriving, and closes it; saying so keeps the client from
                    # sending its next request on it and seeing a disconnect instead of an answer.
                    headers.append((b"connection", b"close"))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self._app(scope, receive_noting_disconnect, send_with_id)
        finally:
            if status is None:  # not answered: the client left, or the app failed first
                status = CLIENT_CLOSED if disconnected else 500
            seconds = time.perf_counter() - started
            metrics.REQUESTS.labels(context.route, method, str(status)).inc()
            metrics.REQUEST_SECONDS.labels(context.route, method, str(status)).observe(seconds)
            log.info(
                "%s %s %d",
                method,
                context.route,
                status,
                extra={"method": method, "status": status, "duration_ms": round(seconds * 1000, 2)},
            )
            logs.CURRENT.reset(token)
