"""What a starting service does before its first request, so that no early request waits, and
again whenever the Neo4j server restarts under it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from app.errors import Unavailable
from app.registry import Registry
from app.services import keys, memories, scope
from app.services.entities.extractor import load_segmenter
from app.services.retrieval import pipeline, time_window

log = logging.getLogger(__name__)


async def warm(registry: Registry) -> None:
    """Loads the Chinese segmenter's dictionary and the time expressions' calendars off the
    event loop, then has Neo4j plan the
    statements of the hot paths (a key's lookup, a branch's, a store, a retrieve) by running
    them on nothing or rolled back. A database that has just started has no plans, and the
    first requests would otherwise wait for them (a retrieve's walk longer than its limit)."""
    # First: the store's rehearsal segments Chinese on the event loop, and a retrieve reads its
    # query's time expressions there (dateparser loads its languages' data on first use).
    await asyncio.to_thread(load_segmenter)
    await asyncio.to_thread(time_window.load)
    await keys.warm(registry)
    await scope.warm(registry)
    await pipeline.warm(registry)
    await memories.warm(registry)


async def warm_and_watch(registry: Registry) -> asyncio.Task[None] | None:
    """Warms, then watches the server for restarts: the watching task, or None when the server
    does not say when it started."""
    # Read before warming: a restart during the warm-up is then seen at the first check.
    started = await server_started(registry)
    await warm(registry)
    if started is None:
        log.warning(
            "Neo4j does not say when it started (dbms.queryJmx): after a restart of the "
            "database, the first requests wait for their statements to be planned"
        )
        return None
    return asyncio.create_task(warm_after_restarts(registry, started), name="warm-watch")


async def server_started(registry: Registry) -> int | None:
    """When the Neo4j server last started (ms since the epoch); None when it does not say."""
    rows = await registry.graph.probe("warm_up/server_started")
    return rows[0]["started"] if rows else None


async def warm_after_restarts(registry: Registry, started: int) -> None:
    """Runs until cancelled: every WARM_CHECK_S, warms again when a server start it has not seen
    appears (a restarted server has lost every plan it had made). Behind a cluster's routing
    the checks reach several servers, each with its own start: only a new one is a restart."""
    seen = {started}
    while True:
        await asyncio.sleep(registry.settings.warm_check_s)
        with contextlib.suppress(Unavailable):  # down or still starting: a later check sees it
            now = await server_started(registry)
            if now is not None and now not in seen:
                began = time.monotonic()
                await warm(registry)
                log.info(
                    "Neo4j restarted: its plans were made again in %.1f s",
                    time.monotonic() - began,
                )
                seen.add(now)
