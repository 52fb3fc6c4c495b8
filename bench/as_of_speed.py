"""As-of speed: reads of the memory as it stood at a past moment against the same reads now.

One user gets 10,000 memories with five versions each, through the service's own code in this
process: stored 100 a call (`memories.store_batch`, real texts, random unit vectors handed over
by a backend that encodes nothing, as store_speed.py does), then four rounds in which every
memory gets a new version with one more feedback signal counted, through the versioned write
path (`versions.revise`, 500 memories a change: one signal a change, as `feedback.record` makes
them, would take half an hour). 50,000 memory nodes, 40,000 of them past versions. The time of
the last change of each round is a moment to read as of.

Then, alternating in blocks so that both see the same load, it times (p50 and p95 of REPS each):

- the list (`memories.list_page`, the first page of 50, and the page after it) now, and as of
  each of the four moments; target: as of / now <= 2;
- full-text search (`fulltext.search`) now and as of the moments (reported);
- retrieve (`pipeline.hybrid`, top_k 5, over distinct realistic queries) now and as of the
  moments; target: as of / now <= 2.

Starts its own Neo4j (see README.md: BENCH_NEO4J_BOLT_PORT / BENCH_NEO4J_HTTP_PORT), removed at
the end, unless NEO4J_URI is given.

    .venv/bin/python bench/as_of_speed.py     # ~15 min (the versions take most of it)
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Any

import common
import neo4j
from data.corpus import memory_texts, queries
from quart.testing.app import TestApp
from store_speed import BenchCaller, instant_registry

from app import create_app
from app.api.context import EXTENSION
from app.graph import Tx
from app.models.feedback import SIGNALS
from app.models.memories import FulltextRequest, ListQuery, NewMemory, RetrieveRequest
from app.registry import Registry
from app.services import memories
from app.services.retrieval import pipeline
from app.services.retrieval.fulltext import search as fulltext_search
from app.services.scope import MAIN
from app.services.versioning import versions
from app.services.versioning.versions import Why

MEMORIES = int(os.environ.get("BENCH_AS_OF_MEMORIES", "10000"))
ROUNDS = 4  # of feedback: with the store, five versions of every memory
BATCH = 100
REVISED = 500  # memories given a new version per change
REPS = 40  # timings per read and moment
BLOCK = 5  # timings per block when now and the moments alternate
PAGE = 50
WARM_RETRIEVES = 20
TARGET = 2.0
FULLTEXT_WORDS = ("deploy", "team", "review")

Read = Callable[[str | None, int], Awaitable[Any]]  # (as_of or None for now, rep) -> answer


async def build(registry: Registry, driver: neo4j.AsyncDriver, caller: BenchCaller) -> list[str]:
    """The user's memories and their versions; the moment after each of the first four rounds
    (the store, then three of feedback: the fifth versions are the current ones)."""
    texts = memory_texts(MEMORIES)
    ids: list[str] = []
    started = time.perf_counter()
    for start in range(0, MEMORIES, BATCH):
        chunk = texts[start : start + BATCH]
        stored = await memories.store_batch(
            registry, caller, [NewMemory(content=text) for text in chunk], None
        )
        ids += [memory.memory_id for memory in stored]
    common.log(f"{len(ids):,} memories stored ({time.perf_counter() - started:.0f}s)")
    moments: list[str] = []
    for round_number in range(1, ROUNDS + 1):
        moments.append(await last_change(driver, caller.user_id))
        started = time.perf_counter()
        signal = SIGNALS[round_number % len(SIGNALS)]
        for start in range(0, len(ids), REVISED):
            change = partial(
                counted,
                user_id=caller.user_id,
                memory_ids=ids[start : start + REVISED],
                signal=signal,
                count=round_number,
            )
            await registry.graph.transaction(change)
        common.log(
            f"round {round_number}: a new version of each memory "
            f"({time.perf_counter() - started:.0f}s)"
        )
    return moments  # the fifth versions are the current ones, read now


async def counted(tx: Tx, user_id: str, memory_ids: list[str], signal: str, count: int) -> None:
    """A new version of each memory with its count of `signal`, as one change."""
    why = Why("feedback", signal)
    seq = await versions.open_change(tx, user_id, MAIN, why, {"feedback_signals": len(memory_ids)})
    await versions.revise(tx, seq, user_id, MAIN, [(key, {signal: count}) for key in memory_ids])


async def last_change(driver: neo4j.AsyncDriver, user_id: str) -> str:
    """The time of the user's last change, as an as_of value."""
    records, _, _ = await driver.execute_query(
        "MATCH (c:Change {user_id: $user_id}) RETURN c.at AS at ORDER BY c.seq DESC LIMIT 1",
        user_id=user_id,
        database_="neo4j",
    )
    at: datetime = records[0]["at"].to_native()
    return at.isoformat()


async def timed(reads: dict[str, Read], reps: int) -> dict[str, list[float]]:
    """Milliseconds of each read, `reps` times, in alternating blocks of BLOCK."""
    times: dict[str, list[float]] = {name: [] for name in reads}
    for block in range(0, reps, BLOCK):
        for name, read in reads.items():
            for rep in range(block, min(reps, block + BLOCK)):
                began = time.perf_counter()
                await read(name if name != "now" else None, rep)
                times[name].append((time.perf_counter() - began) * 1000)
    return times


def by_moment(moments: list[str], read: Read) -> dict[str, Read]:
    """The read now and as of each moment (named by the moment)."""
    return {"now": read, **dict.fromkeys(moments, read)}


def report(
    title: str, moments: list[str], times: dict[str, list[float]], target: float | None
) -> None:
    now = common.median(times["now"])
    rows: list[list[Any]] = [["now", now, common.percentile(times["now"], 95), 1.0, ""]]
    for number, name in enumerate(moments, start=1):
        p50 = common.median(times[name])
        verdict = (
            "" if target is None else common.verdict(p50 / now, target, higher_is_better=False)
        )
        rows.append(
            [
                f"as of round {number} ({name[11:23]})",
                p50,
                common.percentile(times[name], 95),
                p50 / now,
                verdict,
            ]
        )
    headers = ["read", "p50 ms", "p95 ms", "p50 / now", f"<= {target}" if target else ""]
    print(common.table(title, headers, rows))


async def run(uri: str) -> None:
    common.log("loading the embedding model")
    embedder = common.embedder()
    app = create_app(common.settings(uri, instance_id="bench-as-of"), embedder=embedder)
    async with TestApp(app, startup_timeout=600, shutdown_timeout=60):
        registry: Registry = app.extensions[EXTENSION]
        # Random vectors under the model's id, as if it had encoded them (a database kept after).
        random_vectors = common.PresetBackend(embedder.model_id, embedder.dimensions, seed=5)
        writer = instant_registry(uri, registry.graph, random_vectors)
        caller = BenchCaller(f"bench-as-of-{uuid.uuid4().hex[:8]}")
        driver = neo4j.AsyncGraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF")
        try:
            moments = await build(writer, driver, caller)
        finally:
            await driver.close()
        common.wait_for_quiet()
        print(
            f"\nAs-of speed ({common.code_state()}; {MEMORIES:,} memories, {ROUNDS + 1} "
            f"versions each; p50 / p95 of {REPS} reads each, in alternating blocks of {BLOCK})"
        )
        print(common.load_line("before"))

        cursor = (await memories.list_page(registry, caller, ListQuery(limit=PAGE))).next_cursor

        async def listed(as_of: str | None, rep: int) -> Any:
            query = ListQuery(limit=PAGE, as_of=as_of, cursor=cursor if rep % 2 else None)
            return await memories.list_page(registry, caller, query)

        times = await timed(by_moment(moments, listed), REPS)
        report("list (GET /v1/memories: first page of 50, and the next)", moments, times, TARGET)

        async def searched(as_of: str | None, rep: int) -> Any:
            word = FULLTEXT_WORDS[rep % len(FULLTEXT_WORDS)]
            request = FulltextRequest(query=word, limit=20, as_of=as_of)
            return await fulltext_search(registry, caller, request)

        times = await timed(by_moment(moments, searched), REPS)
        report("full-text search (limit 20)", moments, times, None)

        asked = queries(REPS * (len(moments) + 1) + WARM_RETRIEVES)

        async def retrieved(as_of: str | None, rep: int) -> Any:
            position = (moments.index(as_of) + 1 if as_of else 0) * REPS + rep
            request = RetrieveRequest(query=asked[position], top_k=5, as_of=as_of)
            return await pipeline.hybrid(registry, caller, request, mode="retrieve")

        # The first stage's paths, now and as of each moment, planned and compiled.
        for warm in range(WARM_RETRIEVES):
            as_of = [None, *moments][warm % (len(moments) + 1)]
            request = RetrieveRequest(query=asked[-1 - warm], top_k=5, as_of=as_of)
            await pipeline.hybrid(registry, caller, request, mode="retrieve")
        times = await timed(by_moment(moments, retrieved), REPS)
        report("retrieve (top_k 5, distinct queries)", moments, times, TARGET)
        print(common.load_line("after"))


def main() -> None:
    with common.neo4j_database() as database:
        asyncio.run(run(database.uri))


if __name__ == "__main__":
    main()
