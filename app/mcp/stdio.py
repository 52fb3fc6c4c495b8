"""MCP over stdio for desktop agents: each tool call becomes its REST request to a running
service, sent with the user's API key."""

from __future__ import annotations

from typing import Any

import httpx
from mcp.server.stdio import stdio_server
from pydantic import BaseModel

from app.errors import DomainError, Unavailable
from app.mcp.server import Context, build_server
from app.mcp.tools import Tool

TIMEOUT_S = 120.0  # summaries and reflect with an LLM take a while


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, str):
        return detail
    return f"the service answered {response.status_code}"


async def serve(url: str, api_key: str) -> None:
    """Serves MCP on stdin/stdout until the client closes them."""
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=TIMEOUT_S) as http:

        async def execute(_context: Context, tool: Tool, arguments: BaseModel) -> Any:
            call = tool.rest(arguments)
            try:
                response = await http.request(
                    call.method, call.path, params=call.query, json=call.body
                )
            except httpx.HTTPError as error:
                raise Unavailable(f"the memory service at {url} did not answer: {error}") from error
            if not response.is_success:
                raise DomainError(_detail(response))
            return response.json()

        server = build_server(execute)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
