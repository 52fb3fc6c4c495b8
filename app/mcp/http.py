"""MCP over streamable HTTP at /mcp inside the service: REST's credentials and rate limits, the
tools run as use cases through the registry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast
from urllib.parse import unquote

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from pydantic import BaseModel
from pydantic_core import to_jsonable_python
from quart import Quart
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from werkzeug.exceptions import HTTPException

from app import logs
from app.api.auth import Principal, rate_limit_of, resolve
from app.errors import DomainError, headers_of, status_of
from app.mcp.server import Context, build_server
from app.mcp.tools import RestCall, Tool
from app.ratelimit import OperationClass
from app.registry import Registry

PATH = "/mcp"
PRINCIPAL = "memory_service.principal"  # where the ASGI scope carries the authenticated caller


class McpEndpoint:
    """The service's ASGI entry: requests to /mcp go to MCP once authenticated, everything else
    to the Quart app."""

    def __init__(self, app: Quart, registry: Registry) -> None:
        self._app = cast(ASGIApp, app.asgi_app)
        self._registry = registry
        self._routes = app.url_map.bind("localhost")
        self._views = app.view_functions
        # Stateless: any instance behind a load balancer answers any call; JSON answers, as
        # no tool streams.
        self._sessions = StreamableHTTPSessionManager(
            app=build_server(self._execute),
            json_response=True,
            stateless=True,
            max_request_body_size=registry.settings.max_body_bytes,
        )

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        async with self._sessions.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != PATH:
            await self._app(scope, receive, send)
            return
        logs.note_route(PATH)
        headers = Headers(scope=scope)
        try:
            principal = await resolve(
                self._registry,
                "user",
                headers.get("authorization", ""),
                headers.get("x-user-id", ""),
            )
        except DomainError as error:
            body = {"detail": error.detail, **error.extra}
            await JSONResponse(body, status_of(error), headers_of(error))(scope, receive, send)
            return
        logs.note_user(principal.user_id)
        await self._sessions.handle_request({**scope, PRINCIPAL: principal}, receive, send)

    async def _execute(self, context: Context, tool: Tool, arguments: BaseModel) -> Any:
        assert context.request is not None, "streamable HTTP calls carry their request"
        principal: Principal = context.request.scope[PRINCIPAL]
        operation = self._rate_limit(tool.rest(arguments))
        if operation is not None:
            await self._registry.limiter.hit(operation, principal.key_id)
        value = await tool.run(self._registry, principal.as_caller(), arguments)
        return to_jsonable_python(value)

    def _rate_limit(self, call: RestCall) -> OperationClass | None:
        """The rate-limit class of the REST route doing what the tool call does: one
        declaration (@limited on the route) serves both."""
        try:
            endpoint, _values = self._routes.match(unquote(call.path), method=call.method)
        except HTTPException:
            return None  # no route matches such arguments: the use case finds nothing either
        return rate_limit_of(self._views[endpoint])
