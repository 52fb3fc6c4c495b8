"""Versioning speed: snapshot, diff, rollback and branch creation at 1k, 10k and 100k memories.

One user grows to 1,000, then 10,000, then 100,000 memories, written directly with Cypher
(UNWIND batches, the node properties the service writes, random unit 384-d embeddings made in
Cypher, one change of the user's `seq` per batch). At each size the service's own code
(app.services.versioning.snapshots / branches / memories with the app's registry) is timed:

- snapshot creation (POST /v1/snapshots' service call);
- diff of a snapshot after 10 changes made since (5 corrections, 5 deletions);
- rollback to that snapshot after 10 changes (the changes are redone before each rollback);
- branch creation (copy-on-write: the branch reads main as of its fork, so it should not grow
  with N), and retrieve on a fresh branch of 10,000 against main (same results, p50 of each).

Targets (medians of REPS repetitions): snapshot creation at 100k within 1.5x of its time at 1k;
diff and rollback after 10 changes at 100k within 2x of their times at 1k; branch creation at
the largest size in 10 s or less. The plans of the
versioning statements are printed too (which index each one reads), as the first place to look
when a ratio is missed.

Starts its own Neo4j (var/bench-neo4j-32687, Bolt 32687, HTTP 32474, NEO4J_HEAP 4g,
NEO4J_PAGECACHE 2g), stopped and removed at the end, unless NEO4J_URI is given.

    .venv/bin/python bench/versioning_speed.py          # ~6 min
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import common
import neo4j
from quart.testing.app import TestApp

from app import create_app
from app.api.context import EXTENSION
from app.graph import load_queries
from app.models.memories import CorrectById, DeleteQuery, RetrieveRequest
from app.registry import Registry
from app.services import memories
from app.services.ids import fingerprint, time_ordered_id
from app.services.retrieval import pipeline
from app.services.scope import Caller
from app.services.versioning import branches, snapshots

ROOT = Path(__file__).resolve().parent.parent
BOLT, HTTP = 32687, 32474
# BENCH_SIZES="1000,5000" for a quick trial run.
SIZES = tuple(int(n) for n in os.environ.get("BENCH_SIZES", "1000,10000,100000").split(","))
INSERT_BATCH = 2_000
REPS = 15  # fast operations: median of this many
ROLLBACK_REPS = 9
CHANGES = 10
BRANCH_RETRIEVE_SIZE = 10_000  # retrieve on a fresh branch of this size is compared with main
BRANCH_QUERIES = 30
SAFETY_KEPT = 20
TARGETS = {"snapshot": 1.5, "diff": 2.0, "rollback": 2.0}
BRANCH_TARGET_MS = 10_000  # branch creation at the largest size
TYPES = ("semantic", "semantic", "semantic", "profile", "procedural", "working")
WORDS = [f"{word}{n}" for n in range(5) for word in ("alpha", "bravo", "delta", "echo", "kilo")]

INSERT = """
MERGE (u:User {id: $user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
SET u.seq = coalesce(u.seq, 0) + 1
WITH u.seq AS seq
UNWIND $rows AS row
WITH seq, row, [i IN range(1, $dimensions) | rand() - 0.5] AS raw
WITH seq, row, raw, sqrt(reduce(total = 0.0, x IN raw | total + x * x)) AS norm
CREATE (m:Memory)
// created_seq_text: created_seq as fixed-width text, as versions/create writes it.
SET m = row, m.embedding = [x IN raw | x / norm], m.created_seq = seq,
    m.created_seq_text = right('0000000000000000' + toString(seq), 16),
    m.observed_at = datetime(), m.created_at = datetime(), m.updated_at = datetime()
RETURN count(m) AS written
"""
# The statements whose plans decide whether a cost follows N or the number of changes.
PLANNED = (
    "snapshots/create",
    "snapshots/changes_since",
    "versions/end_since",
    "versions/restore_since",
    "snapshots/take_safety",
    "versions/revise",
    "memories/get_active",
)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@contextmanager
def database() -> Iterator[str]:
    """NEO4J_URI if given; else a throwaway server, stopped and removed afterwards."""
    given = os.environ.get("NEO4J_URI")
    if given:
        log(f"using the Neo4j at {given}; it is left as it is afterwards")
        yield given
        return
    directory = ROOT / "var" / f"bench-neo4j-{BOLT}"
    server = str(ROOT / "neo4j" / "server.sh")
    env = {
        **os.environ,
        "NEO4J_HEAP": os.environ.get("NEO4J_HEAP", "4g"),
        "NEO4J_PAGECACHE": os.environ.get("NEO4J_PAGECACHE", "2g"),
    }

    def remove() -> None:
        subprocess.run([server, "stop", str(directory)], check=False, cwd=ROOT)
        shutil.rmtree(directory, ignore_errors=True)

    remove()  # a leftover of an interrupted run
    try:
        log(f"starting Neo4j in {directory.relative_to(ROOT)} (bolt {BOLT}, http {HTTP})")
        subprocess.run(
            [server, "start", str(directory), str(BOLT), str(HTTP)], check=True, cwd=ROOT, env=env
        )
        yield f"bolt://127.0.0.1:{BOLT}"
    finally:
        log("stopping and removing the benchmark Neo4j")
        remove()


def content(rng: random.Random, n: int) -> str:
    return f"note {n}: " + " ".join(rng.choices(WORDS, k=8))


async def insert(
    driver: neo4j.AsyncDriver, user_id: str, start: int, count: int, dimensions: int
) -> list[str]:
    """Writes `count` memories of the user, one change of their seq per batch; their ids."""
    rng = random.Random(start)
    ids: list[str] = []
    for offset in range(0, count, INSERT_BATCH):
        rows = []
        for n in range(start + offset, start + min(count, offset + INSERT_BATCH)):
            memory_type = rng.choice(TYPES)
            text = content(rng, n)
            rows.append(
                {
                    "memory_id": time_ordered_id(),
                    "user_id": user_id,
                    "branch": "main",
                    "content": text,
                    "memory_type": memory_type,
                    "trust_tier": "T1",
                    "initial_confidence": 0.95,
                    "is_active": True,
                    "fingerprint": fingerprint(memory_type, None, text),
                    "useful": 0,
                    "irrelevant": 0,
                    "outdated": 0,
                    "wrong": 0,
                }
            )
        await driver.execute_query(
            INSERT, user_id=user_id, rows=rows, dimensions=dimensions, database_="neo4j"
        )
        ids += [row["memory_id"] for row in rows]
    await driver.execute_query("CALL db.awaitIndexes(1800)", database_="neo4j")
    return ids


async def timed(action: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await action()
    return (time.perf_counter() - started) * 1000


class Bench:
    def __init__(self, registry: Registry, user_id: str) -> None:
        self.registry = registry
        self.caller = Caller(user_id=user_id)
        self.rng = random.Random(7)
        self.serial = 0

    def name(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}-{self.serial}"

    async def ten_changes(self, active: list[str]) -> None:
        """5 corrections and 5 deletions of distinct active memories (5 + 10 diff entries)."""
        chosen = self.rng.sample(active, CHANGES)
        for memory_id in chosen[: CHANGES // 2]:
            text = f"corrected {self.name('c')} " + " ".join(self.rng.choices(WORDS, k=6))
            await memories.correct(
                self.registry,
                self.caller,
                memory_id,
                CorrectById(new_content=text, reason="bench"),
            )
        for memory_id in chosen[CHANGES // 2 :]:
            await memories.delete(
                self.registry, self.caller, memory_id, DeleteQuery(reason="bench")
            )

    async def snapshot_creation(self) -> list[float]:
        times = []
        for rep in range(REPS + 2):
            name = self.name("snap")
            elapsed = await timed(
                lambda name=name: snapshots.create(self.registry, self.caller, name, "", None)
            )
            await snapshots.delete(self.registry, self.caller, name)
            if rep >= 2:  # warm-up
                times.append(elapsed)
        return times

    async def diff_and_rollback(self, active: list[str]) -> tuple[list[float], list[float]]:
        base = self.name("base")
        await snapshots.create(self.registry, self.caller, base, "", None)
        diffs: list[float] = []
        rollbacks: list[float] = []
        for rep in range(ROLLBACK_REPS + 1):
            await self.ten_changes(active)
            for _ in range(2):
                started = time.perf_counter()
                diff = await snapshots.diff(self.registry, self.caller, base, 100)
                elapsed = (time.perf_counter() - started) * 1000
                if rep >= 1:
                    diffs.append(elapsed)
            assert diff.counts == {"added": 5, "removed": 10, "modified": 0}, diff.counts
            elapsed = await timed(lambda: snapshots.rollback(self.registry, self.caller, base))
            if rep >= 1:
                rollbacks.append(elapsed)
            after = await snapshots.diff(self.registry, self.caller, base, 100)
            assert after.counts == {"added": 0, "removed": 0, "modified": 0}, after.counts
        await snapshots.delete(self.registry, self.caller, base)
        return diffs, rollbacks

    async def branch_creation(self, reps: int) -> list[float]:
        times = []
        for _ in range(reps):
            name = self.name("branch")
            elapsed = await timed(
                lambda name=name: branches.create(self.registry, self.caller, name, None)
            )
            times.append(elapsed)
            await branches.delete(self.registry, self.caller, name)
        return times

    async def retrieve_on_fresh_branch(self) -> dict[str, float]:
        """Retrieve on a branch made just now against main: same results, and the p50 of each."""
        name = self.name("branch")
        await branches.create(self.registry, self.caller, name, None)
        times: dict[str, list[float]] = {"main": [], name: []}
        same = 0
        queries = [" ".join(self.rng.choices(WORDS, k=3)) for _ in range(BRANCH_QUERIES)]
        for query in queries:
            found: dict[str, list[str]] = {}
            for branch in ("main", name):
                request = RetrieveRequest(query=query, top_k=10, branch=branch, min_score=0)
                started = time.perf_counter()
                results = await pipeline.hybrid(self.registry, self.caller, request, mode="search")
                times[branch].append((time.perf_counter() - started) * 1000)
                assert isinstance(results, list)
                found[branch] = [memory.memory_id for memory in results]
            same += found["main"] == found[name]
        await branches.delete(self.registry, self.caller, name)
        return {
            "same_share": same / len(queries),
            "main_p50_ms": median(times["main"]),
            "branch_p50_ms": median(times[name]),
        }


async def plans(driver: neo4j.AsyncDriver, user_id: str) -> dict[str, list[str]]:
    """The index and scan operators of each versioning statement's plan (EXPLAIN, not run)."""
    queries = load_queries()
    params: dict[str, Any] = {
        "user_id": user_id,
        "branch": "main",
        "name": "x",
        "description": "",
        "max_user": 20,
        "seq": 1,
        "change_seq": 2,
        "reason": "",
        "keep": 20,
        "changes": [],
        "memory_id": "x",
    }
    found: dict[str, list[str]] = {}
    for name in PLANNED:
        _, summary, _ = await driver.execute_query(
            "EXPLAIN " + queries[name], {"p": params}, database_="neo4j"
        )
        operators: list[str] = []

        def walk(plan: dict[str, Any], operators: list[str] = operators) -> None:
            operator = str(plan.get("operatorType", "")).split("@")[0]
            if "Index" in operator or "Scan" in operator or "Seek" in operator:
                details = str((plan.get("args") or {}).get("Details", ""))
                operators.append(f"{operator} {details}"[:110])
            for child in plan.get("children", []):
                walk(child)

        if summary.plan is not None:
            walk(summary.plan)
        found[name] = operators
    return found


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(headers[i]), *(len(row[i]) for row in rows)) for i in range(len(headers))]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def code_state() -> str:
    def git(*args: str) -> str:
        result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return result.stdout.strip()

    changed = git("status", "--porcelain", "--", "app", "cypher", "migrations").splitlines()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return f"HEAD {head}, {len(changed)} uncommitted change(s) under app/ cypher/ migrations/"


async def run(uri: str) -> None:
    log("loading the embedding model")
    embedder = common.embedder()
    app = create_app(
        common.settings(uri, instance_id="bench-versioning", safety_snapshots_kept=SAFETY_KEPT),
        embedder=embedder,
    )
    driver = neo4j.AsyncGraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF")
    user_id = f"bench-versioning-{uuid.uuid4().hex[:8]}"
    results: dict[int, dict[str, list[float]]] = {}
    try:
        # Startup applies the migrations and creates the indexes (slow on a fresh server).
        async with TestApp(app, startup_timeout=300, shutdown_timeout=60):
            registry: Registry = app.extensions[EXTENSION]
            bench = Bench(registry, user_id)
            active: list[str] = []
            for size in SIZES:
                started = time.perf_counter()
                active += await insert(
                    driver, user_id, len(active), size - len(active), embedder.dimensions
                )
                log(f"{size:,} memories in place ({time.perf_counter() - started:.0f}s to add)")
                if size == SIZES[0]:  # a cold JVM and cold caches would flatter the ratios
                    await bench.snapshot_creation()
                    await bench.diff_and_rollback(active)
                figures: dict[str, list[float]] = {}
                figures["snapshot"] = await bench.snapshot_creation()
                figures["diff"], figures["rollback"] = await bench.diff_and_rollback(active)
                figures["branch"] = await bench.branch_creation(3 if size <= 10_000 else 1)
                results[size] = figures
                if size == BRANCH_RETRIEVE_SIZE:
                    fresh = await bench.retrieve_on_fresh_branch()
                    log(
                        f"  retrieve on a fresh branch of {size:,}: same results for "
                        f"{fresh['same_share']:.0%} of {BRANCH_QUERIES} queries; p50 "
                        f"{fresh['branch_p50_ms']:.1f} ms on the branch, "
                        f"{fresh['main_p50_ms']:.1f} ms on main"
                    )
                log(
                    f"  {size:,}: "
                    + ", ".join(f"{key} {median(values):.1f} ms" for key, values in figures.items())
                )
            explained = await plans(driver, user_id)
    finally:
        await driver.close()
    report(results, explained)


def report(results: dict[int, dict[str, list[float]]], explained: dict[str, list[str]]) -> None:
    print(f"\nVersioning speed ({code_state()}; load {os.getloadavg()[0]:.2f})")
    print(
        f"medians in ms; snapshot of {REPS}, diff of {2 * ROLLBACK_REPS} and rollback of "
        f"{ROLLBACK_REPS} repetitions, each after {CHANGES} changes (5 corrections, 5 deletions)"
    )
    rows = []
    for size, figures in results.items():
        rows.append(
            [
                f"{size:,}",
                f"{median(figures['snapshot']):.2f}",
                f"{median(figures['diff']):.2f}",
                f"{median(figures['rollback']):.2f}",
                f"{median(figures['branch']):.0f}",
            ]
        )
    print(
        table(
            ["memories", "snapshot", "diff", "rollback", "branch create"],
            rows,
        )
    )
    small, large = results[SIZES[0]], results[SIZES[-1]]
    print(f"\nratios {SIZES[-1]:,} / {SIZES[0]:,} against targets")
    ratio_rows = []
    for key, target in TARGETS.items():
        ratio = median(large[key]) / median(small[key])
        ratio_rows.append(
            [key, f"{ratio:.2f}", f"<= {target:.1f}", "met" if ratio <= target else "MISSED"]
        )
    branch_ratio = median(large["branch"]) / median(small["branch"])
    branch_ms = median(large["branch"])
    ratio_rows.append(
        [
            "branch create",
            f"{branch_ratio:.2f} ({branch_ms:,.0f} ms)",
            f"<= {BRANCH_TARGET_MS:,} ms",
            "met" if branch_ms <= BRANCH_TARGET_MS else "MISSED",
        ]
    )
    print(table(["operation", "ratio", "target", "verdict"], ratio_rows))
    print("\nindexes and scans in the plans of the versioning statements (EXPLAIN)")
    for name, operators in explained.items():
        print(f"  {name}:")
        for operator in operators or ["(no index or scan operator)"]:
            print(f"    {operator}")


def main() -> None:
    with database() as uri:
        asyncio.run(run(uri))


if __name__ == "__main__":
    main()
