"""One MCP server for both transports: lists the tools and answers a call through the transport's
way of running a tool (the use case in the service, or its REST request over stdio)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from pydantic import BaseModel, ValidationError

from app import metrics
from app.errors import DomainError, invalid_fields
from app.mcp.tools import BY_NAME, TOOLS, Tool
from app.services.plugins.packages import SERVICE_VERSION

log = logging.getLogger(__name__)

Context = ServerRequestContext[Any, Any]
# Runs a tool call whose arguments passed validation; returns the JSON value REST would answer,
# or raises a DomainError whose detail the agent reads.
Execute = Callable[[Context, Tool, BaseModel], Awaitable[Any]]

INSTRUCTIONS = (
    "Long-term memory for this user. Call memory_retrieve before answering from memory and "
    "memory_store for what is worth keeping. Fix wrong content with memory_correct and remove "
    "memories with memory_purge rather than only giving feedback. Snapshots, branches and "
    "rollbacks make every change undoable; memory_capabilities says what this server can do."
)


def listed(tool: Tool) -> types.Tool:
    """The tool as tools/list shows it: its arguments' JSON schema and its annotations."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.arguments.model_json_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.hints.read_only,
            destructive_hint=tool.hints.destructive,
            idempotent_hint=tool.hints.idempotent,
            open_world_hint=False,
        ),
    )


def _answer(value: Any) -> types.CallToolResult:
    # Structured content is an object; REST's list answers arrive as {"items": [...]}.
    structured = value if isinstance(value, dict) else {"items": value}
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(value, ensure_ascii=False))],
        structured_content=structured,
    )


def _failure(detail: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=detail)], is_error=True)


def build_server(execute: Execute) -> Server[Any]:
    tools = [listed(tool) for tool in TOOLS]

    async def list_tools(
        _context: Context, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        context: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            return _failure(f"unknown tool {params.name}")
        answer = await _call(context, tool, params.arguments or {})
        metrics.TOOL_CALLS.labels(tool.name, "error" if answer.is_error else "ok").inc()
        return answer

    async def _call(context: Context, tool: Tool, given: dict[str, Any]) -> types.CallToolResult:
        try:
            # Strict, as REST validates JSON bodies: "5" is no integer.
            arguments = tool.arguments.model_validate(given, strict=True)
            return _answer(await execute(context, tool, arguments))
        except ValidationError as error:
            detail, _fields = invalid_fields(error)
            return _failure(detail)
        except DomainError as error:
            return _failure(error.detail)
        except Exception:
            log.exception("tool %s failed", tool.name)
            return _failure("internal error")

    return Server(
        "memory-service",
        version=SERVICE_VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
