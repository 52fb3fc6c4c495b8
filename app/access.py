"""The outermost ASGI layer: an X-Request-Id on every response, and per request one access log
line and the request metrics, labelled by route (the URL rule, never the raw path)."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Collection

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter

from app import logs, metrics

REQUEST_ID = "x-request-id"
# A request id taken from the client is echoed into headers and logs: keep it a plain token.
CLIENT_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
UNMATCHED = "unmatched"

log = logging.getLogger("app.access")


class AccessLayer:
    def __init__(self, app: ASGIApp, routes: MapAdapter, mounted: Collection[str]) -> None:
        """`routes` label the app's own routes; `mounted` paths (MCP) are labelled as they are."""
        self._app = app
        self._routes = routes
        self._mounted = mounted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        given = Headers(scope=scope).get(REQUEST_ID, "")
        request_id = given if CLIENT_REQUEST_ID.match(given) else uuid.uuid4().hex
        method: str = scope["method"]
        context = logs.RequestContext(request_id, self._route(scope["path"], method))
        token = logs.CURRENT.set(context)
        status = 500  # what the client sees when the app fails before answering
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", []), (REQUEST_ID.encode(), request_id.encode())]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self._app(scope, receive, send_with_id)
        finally:
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

    def _route(self, path: str, method: str) -> str:
        if path.rstrip("/") in self._mounted:
            return path.rstrip("/")
        try:
            rule, _arguments = self._routes.match(path, method=method, return_rule=True)
        except HTTPException:
            return UNMATCHED
        return str(rule.rule)
