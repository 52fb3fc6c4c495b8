"""What a starting service does before its first request, so that no early request waits."""

from __future__ import annotations

import asyncio

from app.registry import Registry
from app.services import keys, memories, retrieval, scope
from app.services.entity_extractor import load_segmenter


async def warm(registry: Registry) -> None:
    """Loads the Chinese segmenter's dictionary off the event loop, then has Neo4j plan the
    statements of the hot paths (a key's lookup, a branch's, a store, a retrieve) by running
    them on nothing or rolled back. A database that has just started has no plans, and the
    first requests would otherwise wait for them (a retrieve's walk longer than its limit)."""
    # First: the store's rehearsal segments Chinese on the event loop.
    await asyncio.to_thread(load_segmenter)
    await keys.warm(registry)
    await scope.warm(registry)
    await retrieval.warm(registry)
    await memories.warm(registry)
