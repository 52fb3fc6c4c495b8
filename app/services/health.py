"""Readiness: whether this instance can serve, that is reach its database now."""

from __future__ import annotations

from app.errors import Unavailable
from app.registry import Registry


async def unready_because(registry: Registry) -> str | None:
    """None when the database answers now, else why this instance cannot serve."""
    try:
        await registry.graph.probe("health/ping")
    except Unavailable as error:
        return error.detail
    return None
