"""Neo4j's own record of the statements run in a stretch of a test (db.stats, section QUERIES):
for each of the service's named statements, its entries in the plan cache and the time each
invocation spent compiling."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from neo4j import AsyncDriver

from app.graph import load_queries
from tests.support.neo4j_direct import query

# A statement served by a cached plan compiles in about 1 ms (up to 8 ms in a pause of the
# server's); planning one of the service's statements takes 18 ms or more.
PLANNING_SHOWS_MS = 15.0

# Per statement, per plan-cache entry (one per shape of parameters that the cache tells
# apart), the compile time of each invocation in ms, in order.
Compiles = dict[str, list[list[float]]]


@asynccontextmanager
async def compiles(driver: AsyncDriver) -> AsyncIterator[Compiles]:
    """Yields a dict that the block's statements fill in once it is done. A statement planned
    anew for some shape of its parameters has a second entry; one planned again on the same
    entry (after its data changed enough, Neo4j replans at most every 10 s) does not."""
    found: Compiles = {}
    await query(driver, "CALL db.stats.stop('QUERIES')")
    await query(driver, "CALL db.stats.clear('QUERIES')")
    await query(driver, "CALL db.stats.collect('QUERIES')")
    yield found
    names = {text: name for name, text in load_queries().items()}
    rows = await query(driver, "CALL db.stats.retrieve('QUERIES') YIELD data RETURN data")
    for row in rows:
        name = names.get(row["data"]["query"])
        if name is not None:
            calls = sorted(
                row["data"]["invocations"], key=lambda call: call["startTimestampMillis"]
            )
            found.setdefault(name, []).append(
                [call["elapsedCompileTimeInUs"] / 1000 for call in calls]
            )


def planned_per_shape(found: Compiles) -> dict[str, int]:
    """The statements with more than one plan-cache entry, and how many."""
    return {name: len(entries) for name, entries in found.items() if len(entries) > 1}


def planned_at_first_call(found: Compiles) -> dict[str, float]:
    """The statements whose first invocation was planned (ms), not served by a cached plan."""
    return {
        name: entries[0][0] for name, entries in found.items() if entries[0][0] >= PLANNING_SHOWS_MS
    }
