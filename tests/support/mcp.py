"""The MCP SDK's own client over both transports, for one user's API key, and tool-call helpers."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import PATIENT_S
from tests.support.machine import REPO

Transport = Literal["http", "stdio"]
TRANSPORTS: tuple[Transport, ...] = ("http", "stdio")


@asynccontextmanager
async def connect(
    transport: Transport, base_url: str, headers: dict[str, str]
) -> AsyncIterator[Client]:
    """A connected client: streamable HTTP at the service's /mcp with these headers, or the
    `memory-service mcp` stdio command calling the service with the bearer key of them."""
    if transport == "http":
        async with (
            httpx2.AsyncClient(headers=headers, timeout=PATIENT_S) as http,
            Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client,
        ):
            yield client
        return
    api_key = headers["Authorization"].removeprefix("Bearer ")
    command = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app.cli", "mcp", "--url", base_url],
        env={**os.environ, "MEMORY_API_KEY": api_key},
        cwd=REPO,
    )
    async with Client(command) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """Calls a tool that must succeed; its answer as JSON."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, f"{tool}: {text}"
    return json.loads(text)


async def tool_error(client: Client, tool: str, **arguments: Any) -> str:
    """Calls a tool that must fail; the error's text (REST's detail)."""
    result = await client.call_tool(tool, arguments)
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error, f"{tool} succeeded: {text}"
    return text
