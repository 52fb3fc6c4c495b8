"""Scale: the cost curve of one database grown step by step to millions of memories.

Grows one database through the sizes asked (`--sizes`, default 10,000, 100,000, 1,000,000 and
2,000,000 memories), keeping it between sizes, and measures at each size:

- retrieve p50/p95 through the service as its own process (`memory-service serve`) for a small
  user (one LoCoMo conversation) and a large one (BEAM's development messages topped up with
  background texts to 100,000), each with a "rare words" and a "common words" query set, and
  beside it the floor as bench/retrieval_speed.py measures it (encode + raw vector query + raw
  full-text query, in blocks alternating with the service's), and the service's own stage
  timings (`explain`) with and without the graph stage; the first stage's statement run from
  here with and without counting its candidates' entities (the entity lookups);
- vector recall@10 against exact cosine, both users: of a search for 10, among the 40 the
  vector half keeps, and among the first stage's candidates (its deeper second search included);
- single store p50/p95 for both users (one-text encode beside it), and the statements of one
  store timed from here; batch ingestion (`POST /v1/memories/batch`, 100 a call) in memories/s;
  and the load rate reached while growing (the service's batch store use case, precomputed
  vectors);
- the scheduled jobs (auto-tuning, garbage collection, governance over every user with
  changes) run from a separate process as the scheduler runs them, with their wall times, while
  a client keeps asking retrieves: their p50/p95 during each job against those without, and
  governance's time by user and operation;
- the export of the large user (`GET /v1/export`);
- Neo4j's heap (JMX), page cache size against what it would hold, the store and its indexes on
  disk (per million memories), the processes' RSS.

Background users (Zipf-like sizes, see data/scale_plan.py) are written through the service's
own batch store use case with random unit vectors, in large batches, with the versioning
records, sessions and entity MENTIONS links the service writes; a share of their memories then
gets feedback, corrections and deletions through the service's use cases, so that tuning, the
versions garbage collection and governance have work. The measured users' texts are encoded once
with the configured model and cached under var/scale-vectors/.

    .venv/bin/python bench/scale.py --sizes 10000,100000       # own throwaway Neo4j
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/scale.py --sizes 10000,100000 \
        --neo4j-dir var/scale-neo4j
    NEO4J_URI=... .venv/bin/python bench/scale.py --resume --sizes 1000000,2000000 \
        --neo4j-dir var/scale-neo4j                             # continues from what is there

Figures per size go to stdout as tables, to `--json` (default var/scale.json; with --resume the
sizes measured before are kept) and to the plot `--plot` (default bench/scale.png).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import common
import httpx
import numpy as np
from data import scale_plan as plan
from retrieval_speed import (
    CANDIDATES,
    TOP_K,
    Corpus,
    floor_parts,
    recall,
    retrieve_run,
    stage_recall,
)
from store_speed import TimedGraph, instant_registry

from app import migrations, scheduler
from app.embedding import Embedder
from app.errors import DomainError
from app.graph import Graph, packed_vector
from app.models.feedback import NewFeedback
from app.models.memories import CorrectById, DeleteQuery, NewMemory, StoreMemory
from app.ratelimit import RateLimiter
from app.registry import Registry
from app.services import feedback, memories
from app.services.retrieval import graph_walk, pipeline
from app.services.scope import MAIN, Caller, MemoryFilter, Scope
from app.services.versioning.versions import Why

DEFAULT_SIZES = (10_000, 100_000, 1_000_000, 2_000_000)
HEAP, PAGECACHE = "4g", "4g"  # the own throwaway server's (NEO4J_HEAP / NEO4J_PAGECACHE)
LOAD_BATCH = 1_000  # memories per store_batch call (one transaction) while growing
LOAD_WORKERS = 2  # users loaded at once (each its own user: one user's writes are serialised)
LOAD_REASON = "scale benchmark load"  # the reason of the load's store changes: its progress
# What a background memory is, and what then happens to a share of them (the service's use
# cases): feedback, corrections, deletions.
MEMORY_TYPES = {
    "semantic": 55,
    "episodic": 25,
    "procedural": 5,
    "profile": 6,
    "working": 3,
    "tool_result": 3,
}
TRUST_TIERS = {"T1": 70, "T2": 20, "T3": 8, "T4": 2}
FEEDBACK_SHARE, CORRECT_SHARE, DELETE_SHARE = 0.01, 0.003, 0.003
SIGNALS = {"useful": 6, "irrelevant": 2, "outdated": 1, "wrong": 1}
# Measurements at each size.
WARMUP = 200
BLOCK = 20  # retrieves per block when the service and the floor alternate
EXPLAIN = 20  # explained retrieves per user and query set
STORES = 40  # single stores per measured user
STORE_BLOCK = 10
PROFILE_STORES = 20  # stores timed statement by statement, per measured user
BATCH_CALLS, BATCH = 5, 100
USERS = {"small": plan.SMALL_USER, "large": plan.LARGE_USER}
SETS = ("rare", "common")
COMBOS = [(user, words) for user in USERS for words in SETS]
VECTORS_DIR = common.ROOT / "var" / "scale-vectors"
RETRIEVE_RATIO_TARGET = 1.5  # retrieve p50 at 2,000,000 / at 100,000, common words
RECALL_TARGET = 0.98
JOBS_P95_TARGET = 2.0  # retrieve p95 while governance runs / without it


# ---------------------------------------------------------------------------------------------
# Vectors


def preset_embedder(dimensions: int, model_id: str, seed: int) -> Embedder:
    """The service's Embedder over vectors set before each call, random ones for anything else
    (no cache: a text may come back with another vector)."""
    return Embedder(common.PresetBackend(model_id, dimensions, seed=seed), cache_size=0)


class MeasuredVectors:
    """The measured users' embeddings by the configured model, encoded once and kept under
    var/scale-vectors/<model>/ (a list of texts may grow: only its new tail is encoded)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._dir = VECTORS_DIR / re.sub(r"[^A-Za-z0-9.+-]+", "_", embedder.model_id)

    def of(self, name: str, texts: Sequence[str]) -> np.ndarray:
        path, meta = self._dir / f"{name}.npy", self._dir / f"{name}.json"
        known = np.zeros((0, self._embedder.dimensions), dtype=np.float32)
        if path.exists() and meta.exists():
            kept = json.loads(meta.read_text())
            count = min(kept["count"], len(texts))
            if kept["digests"][:count] == digests(texts[:count]):
                known = np.load(path)[:count]
        if len(known) < len(texts):
            missing = list(texts[len(known) :])
            common.log(f"encoding {len(missing)} texts of {name} with {self._embedder.model_id}")
            started = time.perf_counter()
            parts = [known]
            for start in range(0, len(missing), 1_000):
                chunk = missing[start : start + 1_000]
                parts.append(np.asarray(common.encode_now(self._embedder, chunk), dtype=np.float32))
                done = start + len(chunk)
                rate = done / (time.perf_counter() - started)
                common.log(f"  {name}: {done} / {len(missing)} ({rate:.0f} texts/s)")
            known = np.concatenate(parts)
            self._dir.mkdir(parents=True, exist_ok=True)
            np.save(path, known)
            meta.write_text(json.dumps({"count": len(texts), "digests": digests(texts)}))
        return known


def digests(texts: Sequence[str]) -> list[str]:
    return [hashlib.sha1(text.encode()).hexdigest()[:12] for text in texts]


# ---------------------------------------------------------------------------------------------
# Growing the database


@dataclass
class Progress:
    written: dict[str, int]  # memories the load wrote per user (by position in its texts)
    base: datetime  # when the database was first loaded (the measured users' newest date)


PROGRESS = """MATCH (c:Change)
WHERE c.kind = 'store' AND c.reason STARTS WITH $prefix
RETURN c.user_id AS user_id, c.reason AS reason, c.at AS at"""


def read_progress(db: Any) -> Progress:
    """What earlier loads wrote, from their store changes (`<LOAD_REASON> <start>-<end>`),
    recorded in the same transactions as the memories."""
    records, _, _ = db.execute_query(PROGRESS, prefix=LOAD_REASON, routing_="r")
    written: dict[str, int] = {}
    first: datetime | None = None
    for record in records:
        end = int(record["reason"].rsplit("-", 1)[1])
        written[record["user_id"]] = max(written.get(record["user_id"], 0), end)
        at = record["at"].to_native()
        first = at if first is None or at < first else first
    return Progress(written, first or datetime.now(UTC))


def pick(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), list(weights.values()))[0]


def measured(text: plan.MeasuredText) -> NewMemory:
    """A measured user's memory: a dataset's message with its session and (shifted) date."""
    return NewMemory(content=text.content, session_id=text.session_id, observed_at=text.observed_at)


@dataclass(frozen=True)
class Chunk:
    user_id: str
    start: int
    end: int


class Loader:
    """Writes chunks of users' memories through the service's batch store use case."""

    def __init__(
        self,
        uri: str,
        graph: Graph,
        embedder: Embedder,
        progress: Progress,
        small: list[plan.MeasuredText],
        large: tuple[list[str], np.ndarray],
        small_vectors: np.ndarray,
    ) -> None:
        self._uri = uri
        self._graph = graph
        self._dimensions = embedder.dimensions
        self._model_id = embedder.model_id
        self._progress = progress
        self._small = small
        self._beam = plan.beam_texts(progress.base)
        self._large_texts, self._large_vectors = large
        self._small_vectors = small_vectors
        self.stored = 0
        self.store_seconds = 0.0
        self.activity: dict[str, int] = defaultdict(int)
        self.activity_seconds = 0.0

    def registry(self, seed: int) -> Registry:
        return Registry(
            settings=common.settings(self._uri),
            graph=self._graph,
            embedder=preset_embedder(self._dimensions, self._model_id, seed),
            limiter=RateLimiter(enabled=False),
            instance_id="bench-scale-load",
        )

    def items(
        self, chunk: Chunk, rng: random.Random
    ) -> tuple[list[NewMemory], list[list[float]] | None]:
        """The chunk's memories, and their vectors (None: random ones, a background user's)."""
        span = range(chunk.start, chunk.end)
        now = datetime.now(UTC)
        if chunk.user_id == plan.SMALL_USER:
            items = [measured(text) for text in self._small[chunk.start : chunk.end]]
            return items, self._small_vectors[chunk.start : chunk.end].tolist()
        if chunk.user_id == plan.LARGE_USER:
            items = [
                measured(self._beam[index])
                if index < len(self._beam)
                else NewMemory(
                    content=self._large_texts[index],
                    session_id=plan.session_of(index),
                    observed_at=plan.spread(now, rng.random()),
                )
                for index in span
            ]
            return items, self._large_vectors[chunk.start : chunk.end].tolist()
        texts = plan.pool_texts(chunk.user_id, chunk.start, chunk.end)
        items = [
            NewMemory(
                content=text,
                memory_type=pick(rng, MEMORY_TYPES),
                trust_tier=pick(rng, TRUST_TIERS),
                session_id=plan.session_of(index),
                observed_at=plan.spread(now, rng.random()),
            )
            for index, text in zip(span, texts, strict=True)
        ]
        return items, None

    async def load(self, chunk: Chunk) -> None:
        seed = int(hashlib.sha256(f"{chunk.user_id}:{chunk.start}".encode()).hexdigest()[:8], 16)
        rng = random.Random(seed)
        registry = self.registry(seed)
        items, vectors = self.items(chunk, rng)
        preset = registry.embedder.backend
        assert isinstance(preset, common.PresetBackend)
        texts = [item.content for item in items]
        preset.preset = dict(zip(texts, vectors or preset.random(len(texts)), strict=True))
        caller = Caller(chunk.user_id)
        why = Why("store", f"{LOAD_REASON} {chunk.start}-{chunk.end}")
        began = time.perf_counter()
        stored = await memories.store_batch(registry, caller, items, None, why)
        self.store_seconds += time.perf_counter() - began
        self.stored += len(items)
        self._progress.written[chunk.user_id] = chunk.end
        if chunk.user_id.startswith(plan.BACKGROUND_PREFIX):
            began = time.perf_counter()
            await self.act(registry, caller, [m.memory_id for m in stored], texts, rng)
            self.activity_seconds += time.perf_counter() - began

    async def act(
        self,
        registry: Registry,
        caller: Caller,
        memory_ids: list[str],
        texts: list[str],
        rng: random.Random,
    ) -> None:
        """Feedback, corrections and deletions on a share of a chunk's new memories."""
        for memory_id, text in zip(memory_ids, texts, strict=True):
            draw = rng.random()
            try:
                if draw < FEEDBACK_SHARE:
                    signal = NewFeedback(signal=pick(rng, SIGNALS))
                    await feedback.record(registry, caller, memory_id, signal)
                    self.activity["feedback"] += 1
                elif draw < FEEDBACK_SHARE + CORRECT_SHARE:
                    change = CorrectById(new_content=f"{text} (corrected)", reason="scale")
                    await memories.correct(registry, caller, memory_id, change)
                    self.activity["corrections"] += 1
                elif draw < FEEDBACK_SHARE + CORRECT_SHARE + DELETE_SHARE:
                    await memories.delete(registry, caller, memory_id, DeleteQuery(reason="scale"))
                    self.activity["deletions"] += 1
            except DomainError:
                self.activity["refused"] += 1


async def grow(
    uri: str,
    at: plan.Plan,
    progress: Progress,
    embedder: Embedder,
    vectors: MeasuredVectors,
    workers: int,
) -> dict[str, Any]:
    """Adds what the plan at this size holds beyond what is written; returns the load's figures."""
    targets = at.targets()
    wanted = {
        user: (progress.written.get(user, 0), target)
        for user, target in targets.items()
        if target > progress.written.get(user, 0)
    }
    total = sum(end - start for start, end in wanted.values())
    small = plan.small_texts(progress.base)
    large_texts = plan.large_texts(progress.base, at.large)
    large = (large_texts, vectors.of("large", large_texts))
    small_vectors = vectors.of("small", [t.content for t in small])
    common.log(f"growing to {at.size:,}: {total:,} memories for {len(wanted):,} users")
    graph = Graph.connect(uri, "", "", "neo4j")
    loader = Loader(uri, graph, embedder, progress, small, large, small_vectors)
    queue: asyncio.Queue[tuple[str, int, int]] = asyncio.Queue()
    for user, (start, end) in wanted.items():  # the large user first: the longest
        queue.put_nowait((user, start, end))
    started = time.perf_counter()
    last_note = started

    async def work() -> None:
        nonlocal last_note
        while not queue.empty():
            user, start, end = queue.get_nowait()
            for first in range(start, end, LOAD_BATCH):
                await loader.load(Chunk(user, first, min(end, first + LOAD_BATCH)))
                if time.perf_counter() - last_note > 60:
                    last_note = time.perf_counter()
                    rate = loader.stored / (last_note - started)
                    common.log(f"  {loader.stored:,} / {total:,} ({rate:.0f} memories/s)")

    try:
        await asyncio.gather(*(work() for _ in range(workers)))
    finally:
        await graph.close()
    seconds = time.perf_counter() - started
    if total:
        common.log(f"grew by {total:,} in {seconds:.0f}s ({total / seconds:.0f} memories/s)")
    return {
        "memories": loader.stored,
        "seconds": seconds,
        "memories_per_s": loader.stored / seconds if seconds and loader.stored else None,
        "store_seconds": loader.store_seconds,
        "activity": dict(loader.activity),
        "activity_seconds": loader.activity_seconds,
        "workers": workers,
        "batch": LOAD_BATCH,
    }


# ---------------------------------------------------------------------------------------------
# The database's figures


COUNTS = """
CALL () { MATCH (m:Memory) RETURN count(m) AS memories,
          count(CASE WHEN m.is_active THEN 1 END) AS active,
          count(m.quarantined) AS quarantined }
CALL () { MATCH (v:MemoryVersion) RETURN count(v) AS versions }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH ()-[r:MENTIONS]->() RETURN count(r) AS mentions }
CALL () { MATCH ()-[r:CONTRADICTS]->() RETURN count(r) AS contradictions }
CALL () { MATCH (u:User) RETURN count(u) AS users }
CALL () { MATCH (s:Session) RETURN count(s) AS sessions }
CALL () { MATCH (c:Change) RETURN count(c) AS changes }
CALL () { MATCH (s:Snapshot) RETURN count(s) AS snapshots }
CALL () { MATCH (f:Feedback) RETURN count(f) AS feedback }
RETURN *"""
USER_MEMORIES = """MATCH (m:Memory {user_id: $user_id})
WHERE m.branch = 'main' AND m.is_active
RETURN m.memory_id AS memory_id, m.embedding AS embedding"""
USER_ENTITIES = """MATCH (e:Entity {user_id: $user_id})
RETURN count(e) AS entities, max(COUNT { (e)<-[:MENTIONS]-() }) AS busiest"""
JMX = """CALL dbms.queryJmx($name) YIELD attributes RETURN attributes"""


def counts(db: Any) -> dict[str, int]:
    records, _, _ = db.execute_query(COUNTS, routing_="r")
    return dict(records[0])


def user_corpus(db: Any, user_id: str) -> Corpus:
    """The user's active memories' embeddings, read as a stream (a large user's as Python
    lists at once would take gigabytes)."""
    ids: list[str] = []
    rows: list[np.ndarray] = []
    with db.session(default_access_mode="READ") as session:
        for record in session.run(USER_MEMORIES, user_id=user_id):
            ids.append(record["memory_id"])
            rows.append(np.asarray(record["embedding"], dtype=np.float32))
    return Corpus(user_id, ids, np.vstack(rows) if rows else np.zeros((0, 1), np.float32))


def jmx(db: Any, name: str, attribute: str) -> dict[str, Any]:
    records, _, _ = db.execute_query(JMX, name=name, routing_="r")
    if not records:
        return {}
    value = records[0]["attributes"].get(attribute, {}).get("value")
    return dict(value.get("properties", {})) if isinstance(value, dict) else {}


def du(path: Path) -> int:
    """Bytes on disk under `path` (allocated blocks: preallocated logs count as written)."""
    if not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_blocks * 512
    return sum(child.stat().st_blocks * 512 for child in path.rglob("*") if child.is_file())


def process_memory(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon and RssFile of a process, MiB."""
    found: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                found[key] = int(value.split()[0]) / 1024
    return found


def last_checkpoint(directory: Path) -> str | None:
    """When the database last completed a checkpoint (its debug log), or None."""
    found = None
    log = directory / "logs" / "debug.log"
    with contextlib.suppress(OSError), log.open(errors="replace") as lines:
        for line in lines:
            if "checkpoint completed" in line and '"databaseName":"neo4j"' in line:
                found = json.loads(line)["time"]
    return found


def neo4j_figures(db: Any, directory: Path | None) -> dict[str, Any]:
    """Heap (JMX), the page cache's size, the store on disk by part, the server's RSS."""
    mib = 1024 * 1024
    heap = jmx(db, "java.lang:type=Memory", "HeapMemoryUsage")
    old = jmx(db, "java.lang:name=G1 Old Gen,type=MemoryPool", "CollectionUsage")
    records, _, _ = db.execute_query(
        "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value",
        routing_="r",
    )
    figures: dict[str, Any] = {
        "heap_used_mib": heap.get("used", 0) / mib,
        "heap_max_mib": heap.get("max", 0) / mib,
        "old_gen_after_gc_mib": old.get("used", 0) / mib,
        "pagecache_setting": records[0]["value"] if records else None,
    }
    if directory is None:
        return figures
    # Community has no checkpoint procedure: the stores on disk are as of the last checkpoint
    # (every 15 minutes, 100,000 transactions or 250 MiB of log by default).
    figures["last_checkpoint"] = last_checkpoint(directory)
    store = directory / "data" / "databases" / "neo4j"
    index = store / "schema" / "index"
    parts = {
        provider.name.split("-")[0]: du(provider) for provider in sorted(index.glob("*"))
    }  # vector, fulltext, range, token
    total = du(store)
    figures["disk_mib"] = {
        "records": (total - sum(parts.values())) / mib,
        **{f"index_{name}": size / mib for name, size in parts.items()},
        "store_total": total / mib,
        "transaction_logs": du(directory / "data" / "transactions" / "neo4j") / mib,
    }
    pid_file = directory / "run" / "neo4j.pid"
    if pid_file.exists():
        figures["rss_mib"] = process_memory(int(pid_file.read_text().strip()))
    return figures


# ---------------------------------------------------------------------------------------------
# Measurements through the service


async def interleaved(
    url: str, db: Any, embedder: Embedder, sets: dict[str, list[str]]
) -> dict[str, dict[str, list[float]]]:
    """Per user and query set: the service's retrieve latencies and the floor's parts, in
    blocks of BLOCK alternating between the service and the floor, every combination in turn
    (so that all see the same background load)."""
    found: dict[str, dict[str, list[float]]] = {
        f"{user}/{words}": defaultdict(list) for user, words in COMBOS
    }
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        for start in range(0, len(sets["rare"]), BLOCK):
            for user, words in COMBOS:
                block = sets[words][start : start + BLOCK]
                figures = found[f"{user}/{words}"]
                headers = common.master_headers(USERS[user])
                for text in block:
                    began = time.perf_counter()
                    response = await http.post(
                        "/v1/memories/retrieve", json={"query": text}, headers=headers
                    )
                    figures["service"].append(time.perf_counter() - began)
                    assert response.status_code == 200, response.text
                for text in block:
                    parts = floor_parts(db, embedder, USERS[user], text)
                    for name, seconds in zip(("encode", "vector", "fulltext"), parts, strict=True):
                        figures[name].append(seconds)
    return found


async def explained(url: str, user_id: str, texts: list[str], graph: bool) -> dict[str, float]:
    """Medians (ms) of retrieves with `explain: true` (with or without the graph stage): the
    whole request as the client sees it, and the service's own stage timings."""
    latencies: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        for text in texts:
            body = {"query": text, "explain": True, "graph": graph}
            began = time.perf_counter()
            response = await http.post(
                "/v1/memories/retrieve", json=body, headers=common.master_headers(user_id)
            )
            latencies.append(time.perf_counter() - began)
            assert response.status_code == 200, response.text
            for stage, value in response.json()["explain"]["timings_ms"].items():
                stages[stage].append(value)
    return {"request_ms": ms(latencies, 50)} | {
        stage: common.median(values) for stage, values in stages.items()
    }


async def single_stores(
    url: str, embedder: Embedder, texts: dict[str, list[str]]
) -> dict[str, list[float]]:
    """POST /v1/memories one at a time for each measured user, in blocks alternating with
    encode_now of the same texts here; a text the user already holds (200) is not counted."""
    found: dict[str, list[float]] = defaultdict(list)
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        for start in range(0, STORES, STORE_BLOCK):
            for user in USERS:
                block = texts[user][start : start + STORE_BLOCK]
                headers = common.master_headers(USERS[user])
                for text in block:
                    began = time.perf_counter()
                    response = await http.post(
                        "/v1/memories", json={"content": text}, headers=headers
                    )
                    seconds = time.perf_counter() - began
                    assert response.status_code in (200, 201), response.text
                    if response.status_code == 201:
                        found[user].append(seconds)
                for text in block:
                    began = time.perf_counter()
                    common.encode_now(embedder, [text])
                    found["encode"].append(time.perf_counter() - began)
    return found


async def store_profile(
    uri: str, embedder: Embedder, texts: dict[str, list[str]]
) -> dict[str, dict[str, float]]:
    """The medians (ms) of each statement of one store's transaction and of its commit, per
    measured user, timed from here through the service's store use case (text encoded first)."""
    graph = TimedGraph.connect(uri, "", "", "neo4j")
    preset = common.PresetBackend(embedder.model_id, embedder.dimensions, seed=5)
    registry = instant_registry(uri, graph, preset)
    found: dict[str, dict[str, float]] = {}
    try:
        for user, user_id in USERS.items():
            seconds: dict[str, list[float]] = defaultdict(list)
            for text in texts[user][:PROFILE_STORES]:
                preset.preset = {text: common.encode_now(embedder, [text])[0]}
                await memories.store(registry, Caller(user_id), StoreMemory(content=text))
                for name, value in graph.last.items():
                    seconds[name].append(value)
            found[user] = {name: common.median(values) * 1000 for name, values in seconds.items()}
    finally:
        await graph.close()
    return found


async def batch_ingestion(url: str, texts: list[str]) -> dict[str, float]:
    """BATCH_CALLS x POST /v1/memories/batch of BATCH texts into a new user: memories/s."""
    headers = common.master_headers(f"scale-probe-batch-{uuid.uuid4().hex[:8]}")
    latencies = []
    async with httpx.AsyncClient(base_url=url, timeout=300) as http:
        for call in range(BATCH_CALLS):
            body = {"memories": [{"content": t} for t in texts[call * BATCH : (call + 1) * BATCH]]}
            began = time.perf_counter()
            response = await http.post("/v1/memories/batch", json=body, headers=headers)
            latencies.append(time.perf_counter() - began)
            assert response.status_code == 201, response.text
    return {
        "memories_per_s": BATCH * len(latencies) / sum(latencies),
        "call_p50_ms": common.median(latencies) * 1000,
    }


async def export(url: str, user_id: str) -> dict[str, float]:
    """GET /v1/export of one user, streamed: seconds, MiB and lines."""
    began = time.perf_counter()
    size = lines = 0
    async with (
        httpx.AsyncClient(base_url=url, timeout=None) as http,
        http.stream("GET", "/v1/export", headers=common.master_headers(user_id)) as response,
    ):
        assert response.status_code == 200, await response.aread()
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            lines += chunk.count(b"\n")
    return {
        "seconds": time.perf_counter() - began,
        "mib": size / 1024 / 1024,
        "lines": lines,
    }


async def retrieves_during(
    url: str, sets: dict[str, list[str]], process: subprocess.Popen[bytes]
) -> list[tuple[str, float, float, int]]:
    """Retrieves one at a time, every user and query set in turn, until `process` ends:
    (combination, monotonic start, seconds, HTTP status)."""
    found: list[tuple[str, float, float, int]] = []
    position = 0
    async with httpx.AsyncClient(base_url=url, timeout=300) as http:
        while process.poll() is None:
            user, words = COMBOS[position % len(COMBOS)]
            text = sets[words][(position // len(COMBOS)) % len(sets[words])]
            position += 1
            began = time.monotonic()
            response = await http.post(
                "/v1/memories/retrieve",
                json={"query": text},
                headers=common.master_headers(USERS[user]),
            )
            found.append((f"{user}/{words}", began, time.monotonic() - began, response.status_code))
    return found


def jobs_with_retrieves(
    uri: str, url: str, sets: dict[str, list[str]], idle_p95: dict[str, float]
) -> dict[str, Any]:
    """The scheduler's jobs from their own process (tuning, garbage collection, governance, in
    the order of their default times), each timed, while retrieves go on; per job its wall time,
    result and the retrieves that started while it ran against their p95 without the jobs."""
    events = common.ROOT / "var" / f"scale-jobs-{uuid.uuid4().hex[:8]}.jsonl"
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--run-jobs", str(events)],
        env={**os.environ, "NEO4J_URI": uri},
    )
    try:
        during = asyncio.run(retrieves_during(url, sets, process))
        process.wait()
        lines = events.read_text().splitlines() if events.exists() else []
        runs = [json.loads(line) for line in lines]
    finally:
        if process.poll() is None:  # the client failed: the jobs' figures would say nothing
            process.terminate()
            process.wait()
        events.unlink(missing_ok=True)
    if process.returncode:
        common.log(f"the jobs' process failed (exit {process.returncode})")
    found: dict[str, Any] = {}
    for run in runs:
        inside = [item for item in during if run["start"] <= item[1] < run["end"]]
        failed = [status for _, _, _, status in inside if status != 200]
        per_combo = {}
        for combo, p95 in idle_p95.items():
            latencies = [s for c, _, s, status in inside if c == combo and status == 200]
            if latencies:
                per_combo[combo] = {
                    "n": len(latencies),
                    "p50_ms": common.percentile(latencies, 50) * 1000,
                    "p95_ms": common.percentile(latencies, 95) * 1000,
                    "p95_ratio": common.percentile(latencies, 95) / p95,
                    "above_idle_p95": sum(s > p95 for s in latencies) / len(latencies),
                }
        found[run["job"]] = {
            "seconds": run["end"] - run["start"],
            "result": run.get("result"),
            "error": run.get("error"),
            "retrieves": per_combo,
            "retrieves_failed": {str(status): failed.count(status) for status in set(failed)},
        }
        if run["job"] == "governance":
            found[run["job"]]["by_user"] = governance_by_user(
                uri, run["started_at"], run["ended_at"]
            )
    return found


GOVERNANCE_RUNS = """MATCH (r:GovernanceRun)
WHERE r.trigger = 'scheduled' AND r.at >= datetime($since)
RETURN r.user_id AS user_id, r.op AS op, r.at AS at, properties(r) AS counts
ORDER BY r.at"""


def governance_by_user(uri: str, since: str, until: str) -> dict[str, Any]:
    """Where a scheduled governance run's time went: each operation's recorded end against the
    one before it (the run's start for the first), summed by operation, its slowest users, the
    measured users' own, and the time after the last record (an operation that failed, or the
    last users' marks)."""
    db = common.driver(uri)
    try:
        records, _, _ = db.execute_query(GOVERNANCE_RUNS, since=since, routing_="r")
    finally:
        db.close()
    previous = datetime.fromisoformat(since)
    runs = []
    for record in records:
        at = record["at"].to_native()
        counts = {
            key: value
            for key, value in record["counts"].items()
            if key not in ("user_id", "op", "trigger", "at") and value
        }
        runs.append(
            {
                "user_id": record["user_id"],
                "op": record["op"],
                "seconds": (at - previous).total_seconds(),
                "counts": counts,
            }
        )
        previous = at
    by_op: dict[str, float] = defaultdict(float)
    for run in runs:
        by_op[run["op"]] += run["seconds"]
    return {
        "seconds_by_op": dict(by_op),
        "after_last_record": (datetime.fromisoformat(until) - previous).total_seconds(),
        "last_record": runs[-1] if runs else None,
        "slowest": sorted(runs, key=lambda run: -run["seconds"])[:5],
        "measured": [run for run in runs if run["user_id"] in USERS.values()],
    }


async def run_jobs(events: Path) -> None:
    """The `--run-jobs` process: the job table's functions over every user, one after the
    other, each one's start and end (monotonic) and result written to `events`."""
    settings = common.settings(os.environ["NEO4J_URI"])
    # The jobs encode nothing: an embedder with the configured model's id and dimension.
    registry = Registry.build(
        settings,
        embedder=preset_embedder(
            int(os.environ["SCALE_DIMENSIONS"]), os.environ["SCALE_MODEL_ID"], 0
        ),
    )
    try:
        with events.open("a") as out:
            for job in scheduler.job_table(settings):
                record: dict[str, Any] = {
                    "job": job.name,
                    "start": time.monotonic(),
                    "started_at": datetime.now(UTC).isoformat(),
                }
                try:
                    record["result"] = dict(await job.run(registry))
                except Exception as error:  # reported with the figures, the next job still runs
                    record["error"] = f"{type(error).__name__}: {error}"
                record["end"] = time.monotonic()
                record["ended_at"] = datetime.now(UTC).isoformat()
                out.write(json.dumps(record) + "\n")
                out.flush()
    finally:
        await registry.close()


CANDIDATES_CYPHER = common.CODE_ROOT / "cypher" / "retrieval" / "candidates.cypher"
# What each candidate could seed a graph walk from: a count over its entities and their degrees.
SEEDS = re.compile(r"seeds: CASE WHEN rank .*?\bEND\n", re.S)


def first_stage_params(
    user_id: str, texts: list[str], vectors: list[list[float]]
) -> list[dict[str, Any]]:
    """The service's retrieval/candidates parameters for each query, the query's entity names
    and keys included as the graph walk picks them."""
    found = []
    for text, vector in zip(texts, vectors, strict=True):
        walk = graph_walk.start(text)
        found.append(
            pipeline.first_stage_params(
                Scope(user_id=user_id, branch=MAIN),
                MemoryFilter(),
                packed_vector(vector),
                text,
                TOP_K,
                names=walk.names,
                keys=walk.keys,
            )
        )
    return found


def first_stage_variants(
    db: Any, sets: dict[str, list[str]], vectors: dict[str, list[list[float]]]
) -> dict[str, dict[str, float]]:
    """Medians (ms) of the service's first-stage statement (both halves in one, from here) and
    of the same without counting what each candidate could seed (its entities' degrees), per
    user and query set, the two alternating: how much the entity lookups of retrieve cost."""
    statement = CANDIDATES_CYPHER.read_text()
    variants = {"candidates": statement, "without seeds": SEEDS.sub("seeds: null\n", statement)}
    if variants["without seeds"] == statement:
        del variants["without seeds"]  # the statement changed shape: nothing to compare
    found: dict[str, dict[str, float]] = {}
    for user, words in COMBOS:
        texts = sets[words][:EXPLAIN]
        params = first_stage_params(USERS[user], texts, vectors[words][:EXPLAIN])
        seconds: dict[str, list[float]] = defaultdict(list)
        for p in params:
            for name, query in variants.items():
                began = time.perf_counter()
                db.execute_query(query, p=p, routing_="r")
                seconds[name].append(time.perf_counter() - began)
        found[f"{user}/{words}"] = {name: ms(values, 50) for name, values in seconds.items()}
    return found


def ms(values: Sequence[float], q: float) -> float:
    return common.percentile(values, q) * 1000


def probe_texts(count: int) -> list[str]:
    """Pool texts the large user does not hold (its top-up takes a window of the pool), from
    a random place: realistic texts new to both measured users."""
    held = plan.USER_CAP
    start = random.randrange(held, plan.POOL_SIZE - count)
    return plan.pool_texts(plan.LARGE_USER, start, start + count)


def measure(
    size: int,
    uri: str,
    directory: Path | None,
    embedder: Embedder,
    sets: plan.QuerySets,
    query_vectors: dict[str, list[list[float]]],
    jobs: bool = True,
) -> dict[str, Any]:
    """Every figure at one size (see the module docstring); the scheduled jobs only when
    `jobs`."""
    db = common.driver(uri)
    figures: dict[str, Any] = {"size": size, "code": common.code_state(), "loads": []}
    try:
        figures["counts"] = counts(db)
        common.log(f"counts: {figures['counts']}")
        figures["neo4j"] = neo4j_figures(db, directory)
        figures["users"] = {}
        figures["recall"] = {}
        for user, user_id in USERS.items():
            corpus = user_corpus(db, user_id)
            records, _, _ = db.execute_query(USER_ENTITIES, user_id=user_id, routing_="r")
            figures["users"][user] = {"memories": len(corpus.memory_ids), **dict(records[0])}
            vectors = query_vectors["rare"] + query_vectors["common"]
            figures["recall"][user] = {
                "at_10": recall(db, corpus, vectors, 10),
                f"at_{CANDIDATES}": recall(db, corpus, vectors, CANDIDATES),
                **{
                    f"{words}_at_10": recall(db, corpus, query_vectors[words], 10) for words in SETS
                },
                "first_stage_at_10": asyncio.run(
                    stage_recall(uri, corpus, sets.rare + sets.common, vectors, 10)
                ),
            }
            common.log(f"{user}: {figures['users'][user]}, recall {figures['recall'][user]}")
        chosen = {"rare": sets.rare, "common": sets.common}
        figures["first_stage"] = first_stage_variants(db, chosen, query_vectors)
        probes = probe_texts(
            len(USERS) * STORES + len(USERS) * PROFILE_STORES + BATCH_CALLS * BATCH
        )
        store_texts = {user: probes[n * STORES : (n + 1) * STORES] for n, user in enumerate(USERS)}
        rest = probes[len(USERS) * STORES :]
        profile_texts = {
            user: rest[n * PROFILE_STORES : (n + 1) * PROFILE_STORES]
            for n, user in enumerate(USERS)
        }
        batch_texts = rest[len(USERS) * PROFILE_STORES :]
        with common.service_process(uri, env={"EMBEDDING_CACHE_SIZE": "0"}) as service:
            url = service.base_url
            common.log(f"warm-up: {WARMUP} retrieves")
            for user_id in USERS.values():
                asyncio.run(retrieve_run(url, user_id, sets.rest[: WARMUP // len(USERS)], 1))
            common.wait_for_quiet()
            figures["loads"].append(common.load_line("before the latency runs"))
            common.log("retrieve latency and the floor")
            runs = asyncio.run(interleaved(url, db, embedder, chosen))
            figures["retrieve"] = {}
            for combo, parts in runs.items():
                user, words = combo.split("/")
                texts = chosen[words][:EXPLAIN]
                walked = asyncio.run(explained(url, USERS[user], texts, graph=True))
                unwalked = asyncio.run(explained(url, USERS[user], texts, graph=False))
                figures["retrieve"][combo] = {
                    "n": len(parts["service"]),
                    "p50_ms": ms(parts["service"], 50),
                    "p95_ms": ms(parts["service"], 95),
                    "floor_ms": {
                        name: ms(parts[name], 50) for name in ("encode", "vector", "fulltext")
                    },
                    "explain_ms": walked,
                    "without_graph_ms": unwalked,
                }
            common.log("single stores")
            stores = asyncio.run(single_stores(url, embedder, store_texts))
            figures["store"] = {
                user: {
                    "n": len(stores[user]),
                    "p50_ms": ms(stores[user], 50),
                    "p95_ms": ms(stores[user], 95),
                }
                for user in (*USERS, "encode")
            }
            figures["store_profile"] = asyncio.run(store_profile(uri, embedder, profile_texts))
            common.log("batch ingestion")
            figures["batch"] = asyncio.run(batch_ingestion(url, batch_texts))
            figures["loads"].append(common.load_line("after the latency runs"))
            common.log("export of the large user")
            figures["export"] = asyncio.run(export(url, plan.LARGE_USER))
            figures["service_rss_mib"] = sum(row.get("VmRSS", 0.0) for row in service.memory())
            figures["jobs"] = {}
            if jobs:
                common.log("the scheduled jobs, retrieves meanwhile")
                idle = {combo: run["p95_ms"] / 1000 for combo, run in figures["retrieve"].items()}
                figures["jobs"] = jobs_with_retrieves(uri, url, chosen, idle)
                figures["loads"].append(common.load_line("after the jobs"))
        figures["counts_after_jobs"] = counts(db)
        figures["neo4j_after_jobs"] = neo4j_figures(db, directory)
    finally:
        db.close()
    return figures


# ---------------------------------------------------------------------------------------------
# Report


def per_million(mib: float, memories: int) -> float:
    return mib / (memories / 1_000_000) if memories else math.nan


def report_size(figures: dict[str, Any]) -> None:
    size = figures["size"]
    c = figures["counts"]
    print(f"\n=== {size:,} memories ===")
    print(figures["code"])
    for line in figures["loads"]:
        print(line)
    print(
        common.table(
            "Database (current memory nodes, active or not; past versions apart)",
            [
                "memories",
                "active",
                "versions",
                "entities",
                "MENTIONS",
                "users",
                "sessions",
                "changes",
                "snapshots",
                "feedback",
            ],
            [
                [
                    c["memories"],
                    c["active"],
                    c["versions"],
                    c["entities"],
                    c["mentions"],
                    c["users"],
                    c["sessions"],
                    c["changes"],
                    c["snapshots"],
                    c["feedback"],
                ]
            ],
        )
    )
    load = figures.get("load", {})
    if load.get("memories"):
        activity = ", ".join(f"{k} {v}" for k, v in sorted(load["activity"].items())) or "none"
        print(
            f"\nload to this size: {load['memories']:,} memories in {load['seconds']:.0f}s "
            f"({load['memories_per_s']:.0f} memories/s wall, {load['workers']} users at once, "
            f"{load['batch']} a transaction; store_batch {load['store_seconds']:.0f}s summed over "
            f"the users loaded at once); activity: {activity} "
            f"({load['activity_seconds']:.0f}s)"
        )
    users = figures["users"]
    print(
        common.table(
            "Measured users",
            [
                "user",
                "active memories",
                "entities",
                "busiest entity (mentions)",
                "recall@10",
                "rare words",
                "common words",
                f"recall@{CANDIDATES}",
                "first stage",
            ],
            [
                [
                    user,
                    u["memories"],
                    u["entities"],
                    u["busiest"],
                    figures["recall"][user]["at_10"],
                    figures["recall"][user].get("rare_at_10", ""),
                    figures["recall"][user].get("common_at_10", ""),
                    figures["recall"][user][f"at_{CANDIDATES}"],
                    figures["recall"][user].get("first_stage_at_10", ""),
                ]
                for user, u in users.items()
            ],
        )
    )
    rows = []
    for combo, r in figures["retrieve"].items():
        floor = sum(r["floor_ms"].values())
        e = r["explain_ms"]
        rows.append(
            [
                combo,
                r["n"],
                r["p50_ms"],
                r["p95_ms"],
                r["floor_ms"]["encode"],
                r["floor_ms"]["vector"],
                r["floor_ms"]["fulltext"],
                floor,
                r["p50_ms"] / floor,
                e.get("candidates_ms", math.nan),
                e.get("graph_ms", math.nan),
                e.get("total_ms", math.nan),
                r.get("without_graph_ms", {}).get("request_ms", math.nan),
                r.get("without_graph_ms", {}).get("candidates_ms", math.nan),
            ]
        )
    print(
        common.table(
            "POST /v1/memories/retrieve, one at a time (ms); the floor's parts are medians; "
            f"explain: the service's own stage medians over {EXPLAIN} queries (candidates "
            "includes the walk from the query's own entities), and the same with graph: false",
            [
                "user/query words",
                "n",
                "p50",
                "p95",
                "encode",
                "raw vector",
                "raw full-text",
                "floor",
                "p50/floor",
                "candidates",
                "graph",
                "total",
                "p50, no graph",
                "candidates, no graph",
            ],
            rows,
        )
    )
    stage = figures.get("first_stage", {})
    if stage:
        print(
            common.table(
                "The first stage's statement run from here (medians ms): as the service runs it, "
                "and without counting what each candidate could seed (its entities' degrees)",
                ["user/query words", *next(iter(stage.values()))],
                [[combo, *timings.values()] for combo, timings in stage.items()],
            )
        )
    s = figures["store"]
    print(
        common.table(
            "POST /v1/memories one at a time (ms), alternating with encoding one text here",
            ["", "n", "p50", "p95"],
            [[name, s[name]["n"], s[name]["p50_ms"], s[name]["p95_ms"]] for name in s],
        )
    )
    profile = figures["store_profile"]
    names = sorted({name for timings in profile.values() for name in timings})
    print(
        common.table(
            f"One store's transaction timed from here, statement by statement (medians of "
            f"{PROFILE_STORES}, ms)",
            ["statement", *profile],
            [[name, *(profile[user].get(name, math.nan) for user in profile)] for name in names],
        )
    )
    b, x = figures["batch"], figures["export"]
    print(
        f"\nbatch ingestion (POST /v1/memories/batch of {BATCH}, {BATCH_CALLS} calls): "
        f"{b['memories_per_s']:.0f} memories/s, call p50 {b['call_p50_ms']:.0f} ms"
    )
    print(
        f"export of {plan.LARGE_USER}: {x['seconds']:.1f}s, {x['mib']:.1f} MiB, "
        f"{x['lines']:,} lines"
    )
    job_rows = []
    for name, job in figures["jobs"].items():
        worst = max((r["p95_ratio"] for r in job["retrieves"].values()), default=math.nan)
        above = [r["above_idle_p95"] for r in job["retrieves"].values()]
        n = sum(r["n"] for r in job["retrieves"].values())
        result = job["error"] or ", ".join(f"{k} {v}" for k, v in (job["result"] or {}).items())
        failed = sum(job.get("retrieves_failed", {}).values())
        job_rows.append(
            [name, job["seconds"], result[:60], n, failed, worst, max(above) if above else math.nan]
        )
    print(
        common.table(
            "Scheduled jobs over every user (their own process), retrieves meanwhile "
            "(p95 ratio: during / without, the worst user and query set)",
            ["job", "seconds", "result", "retrieves", "failed", "p95 ratio", "share above p95"],
            job_rows,
        )
    )
    governance = figures["jobs"].get("governance", {}).get("by_user")
    if governance:
        by_op = ", ".join(f"{op} {s:.0f}s" for op, s in governance["seconds_by_op"].items())
        print(
            f"\ngovernance run by operation (summed over users): {by_op}; after the last "
            f"recorded operation: {governance['after_last_record']:.0f}s"
        )
        print(
            common.table(
                "its slowest operations, and the measured users' (seconds since the previous "
                "operation's end)",
                ["user", "operation", "seconds", "counts"],
                [
                    [run["user_id"], run["op"], run["seconds"], json.dumps(run["counts"])[:90]]
                    for run in governance["slowest"]
                    + [run for run in governance["measured"] if run not in governance["slowest"]]
                ],
            )
        )
    print(report_neo4j(figures))


def report_neo4j(figures: dict[str, Any]) -> str:
    n4 = figures["neo4j_after_jobs"]
    memories = figures["counts_after_jobs"]["memories"]
    rows = [
        ["heap used / max (MiB)", f"{n4['heap_used_mib']:.0f} / {n4['heap_max_mib']:.0f}", ""],
        ["old generation after the last GC (MiB)", n4["old_gen_after_gc_mib"], ""],
        ["page cache (setting)", n4["pagecache_setting"], ""],
        ["disk as of the checkpoint at", n4.get("last_checkpoint"), ""],
    ]
    for name, mib in n4.get("disk_mib", {}).items():
        rows.append([f"disk: {name} (MiB)", mib, per_million(mib, memories)])
    for name, mib in n4.get("rss_mib", {}).items():
        rows.append([f"Neo4j {name} (MiB)", mib, ""])
    rows.append(["service VmRSS (MiB)", figures["service_rss_mib"], ""])
    return common.table(
        "Neo4j and the service after the jobs (page cache: record stores and range indexes; "
        "full-text and vector indexes are Lucene files in the OS cache)",
        ["", "value", "per million memories"],
        rows,
    )


def summary(results: dict[str, dict[str, Any]]) -> None:
    sizes = sorted(results, key=int)
    rows = []
    for key in sizes:
        f = results[key]
        r = f["retrieve"]
        gov = f["jobs"].get("governance", {})
        worst = max((x["p95_ratio"] for x in gov.get("retrieves", {}).values()), default=math.nan)
        disk = f["neo4j_after_jobs"].get("disk_mib", {})
        rows.append(
            [f"{int(key):,}"]
            + [f"{r[c]['p50_ms']:.0f}/{r[c]['p95_ms']:.0f}" for c in r]
            + [
                f"{f['recall']['small']['at_10']:.3f}/{f['recall']['large']['at_10']:.3f}",
                f"{f['store']['small']['p50_ms']:.0f}/{f['store']['large']['p50_ms']:.0f}",
                f["batch"]["memories_per_s"],
                f.get("load", {}).get("memories_per_s") or "",
                f"{f['jobs'].get('autotune', {}).get('seconds', math.nan):.0f}/"
                f"{f['jobs'].get('collect_garbage', {}).get('seconds', math.nan):.0f}/"
                f"{gov.get('seconds', math.nan):.0f}",
                worst,
                f["export"]["seconds"],
                f["neo4j_after_jobs"]["old_gen_after_gc_mib"],
                disk.get("store_total", math.nan) / 1024,
                f["service_rss_mib"],
            ]
        )
    print(
        common.table(
            "Summary (retrieve p50/p95 ms per user/query words; recall@10 small/large; store "
            "p50 ms small/large; jobs s: tuning/GC/governance)",
            [
                "size",
                *(c for c in results[sizes[0]]["retrieve"]),
                "recall@10",
                "store p50",
                "batch/s",
                "load/s",
                "jobs s",
                "gov p95 ratio",
                "export s",
                "old gen MiB",
                "store GiB",
                "service RSS",
            ],
            rows,
        )
    )
    targets = []
    if "100000" in results and "2000000" in results:
        for user in USERS:
            ratio = (
                results["2000000"]["retrieve"][f"{user}/common"]["p50_ms"]
                / results["100000"]["retrieve"][f"{user}/common"]["p50_ms"]
            )
            targets.append(
                [
                    f"{user}: retrieve p50 at 2,000,000 / at 100,000 (common words)",
                    ratio,
                    f"<= {RETRIEVE_RATIO_TARGET}",
                    common.verdict(ratio, RETRIEVE_RATIO_TARGET, higher_is_better=False),
                ]
            )
    # What ranking sees: the exact top 10 among the first stage's candidates (the vector half,
    # searched again deeper when it missed, and the full-text half); sizes measured before it
    # was recorded count by the vector search's 40 kept.
    lowest = min(
        f["recall"][user].get("first_stage_at_10", f["recall"][user][f"at_{CANDIDATES}"])
        for f in results.values()
        for user in USERS
    )
    targets.append(
        [
            "first-stage recall@10, lowest of both users at every size",
            lowest,
            f">= {RECALL_TARGET}",
            common.verdict(lowest, RECALL_TARGET),
        ]
    )
    for key in sizes:
        gov = results[key]["jobs"].get("governance", {})
        worst = max((x["p95_ratio"] for x in gov.get("retrieves", {}).values()), default=math.nan)
        state = (
            "did not finish"
            if gov.get("error") or not gov
            else common.verdict(worst, JOBS_P95_TARGET, higher_is_better=False)
        )
        targets.append(
            [
                f"{int(key):,}: retrieve p95 during governance / without (worst)",
                worst,
                f"<= {JOBS_P95_TARGET}",
                state,
            ]
        )
    print(common.table("Targets", ["figure", "value", "target", "status"], targets))


def plot(results: dict[str, dict[str, Any]], path: Path) -> None:
    """The curves against size (log x): latency, recall, memory, disk, jobs, ingestion."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(results, key=int)
    x = [int(key) for key in sizes]
    fig, axes = plt.subplots(2, 3, figsize=(16, 9))
    ax = axes[0][0]
    for n, combo in enumerate(results[sizes[0]]["retrieve"]):
        runs = [results[k]["retrieve"][combo] for k in sizes]
        ax.plot(x, [r["p50_ms"] for r in runs], "o-", color=f"C{n}", label=f"{combo} p50")
        floors = [sum(r["floor_ms"].values()) for r in runs]
        ax.plot(x, floors, "x:", color=f"C{n}", label=f"{combo} floor")
    ax.set_title("retrieve p50 and its floor (ms)")
    ax = axes[0][1]
    for user in USERS:
        ax.plot(x, [results[k]["recall"][user]["at_10"] for k in sizes], "o-", label=user)
    ax.axhline(RECALL_TARGET, color="grey", linestyle="--", label="target")
    ax.set_title("vector recall@10 against exact cosine")
    ax = axes[0][2]
    for name in ("autotune", "collect_garbage", "governance"):
        ax.plot(
            x,
            [results[k]["jobs"].get(name, {}).get("seconds", math.nan) for k in sizes],
            "o-",
            label=name,
        )
    ax.set_yscale("log")
    ax.set_title("scheduled jobs over every user (s)")
    ax = axes[1][0]
    ax.plot(
        x,
        [results[k]["neo4j_after_jobs"]["old_gen_after_gc_mib"] for k in sizes],
        "o-",
        label="Neo4j old gen after GC",
    )
    ax.plot(
        x,
        [results[k]["neo4j_after_jobs"].get("rss_mib", {}).get("VmRSS", math.nan) for k in sizes],
        "o-",
        label="Neo4j RSS",
    )
    ax.plot(x, [results[k]["service_rss_mib"] for k in sizes], "o-", label="service RSS")
    ax.set_title("memory (MiB)")
    ax = axes[1][1]
    for name in ("records", "index_vector", "index_fulltext", "index_range", "transaction_logs"):
        values = [
            results[k]["neo4j_after_jobs"].get("disk_mib", {}).get(name, math.nan) / 1024
            for k in sizes
        ]
        ax.plot(x, values, "o-", label=name)
    ax.set_title("disk (GiB)")
    ax = axes[1][2]
    batch = [results[k]["batch"]["memories_per_s"] for k in sizes]
    ax.plot(x, batch, "o-", label="POST batch, memories/s (encode included)")
    load = [results[k].get("load", {}).get("memories_per_s") or math.nan for k in sizes]
    ax.plot(x, load, "o-", label="load, memories/s (vectors given)")
    ax.set_title("ingestion (memories/s) and store p50 (ms, right)")
    right = ax.twinx()
    for n, user in enumerate(USERS, start=2):
        stores = [results[k]["store"][user]["p50_ms"] for k in sizes]
        right.plot(x, stores, "x:", color=f"C{n}", label=f"store p50 ms, {user}")
    right.legend(fontsize=7, loc="lower right")
    for ax in axes.flat:
        ax.set_xscale("log")
        ax.set_xlabel("memories in the database")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("bench/scale.py: cost against the number of memories")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes",
        default=",".join(str(size) for size in DEFAULT_SIZES),
        help="the database sizes to grow through and measure, comma-separated",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue from the memories this benchmark wrote before (NEO4J_URI's database)",
    )
    parser.add_argument("--json", default=str(common.ROOT / "var" / "scale.json"))
    parser.add_argument("--plot", default=str(common.ROOT / "bench" / "scale.png"))
    parser.add_argument(
        "--neo4j-dir",
        default=os.environ.get("BENCH_NEO4J_DIR"),
        help="the server directory of NEO4J_URI's database (neo4j/server.sh's DIR), for its "
        "disk use and RSS",
    )
    parser.add_argument("--load-workers", type=int, default=LOAD_WORKERS)
    parser.add_argument(
        "--no-jobs",
        action="store_true",
        help="leave out the scheduled jobs (their first pass over a database loaded at once "
        "compares every memory: hours at a million)",
    )
    parser.add_argument("--run-jobs", help=argparse.SUPPRESS)
    return parser.parse_args()


async def prepare(uri: str, dimensions: int) -> None:
    """The schema as the service's startup makes it (migrations, the vector index)."""
    graph = Graph.connect(uri, "", "", "neo4j")
    try:
        await migrations.apply(graph)
        await migrations.ensure_vector_index(graph, dimensions)
    finally:
        await graph.close()


def main() -> None:
    args = arguments()
    if args.run_jobs:
        asyncio.run(run_jobs(Path(args.run_jobs)))
        return
    sizes = sorted(int(size) for size in args.sizes.split(","))
    if args.resume and not os.environ.get("NEO4J_URI"):
        sys.exit("--resume continues in NEO4J_URI's database: set it")
    started = time.perf_counter()
    common.log("loading the embedding model")
    embedder = common.embedder()
    os.environ["SCALE_DIMENSIONS"] = str(embedder.dimensions)
    os.environ["SCALE_MODEL_ID"] = embedder.model_id
    common.log("choosing the query sets by word frequency")
    sets = plan.query_sets()
    common.log(f"median postings of the query sets: {plan.describe(sets)}")
    query_vectors = {
        "rare": common.encode_now(embedder, sets.rare, "query"),
        "common": common.encode_now(embedder, sets.common, "query"),
    }
    json_path = Path(args.json)
    results: dict[str, dict[str, Any]] = {}
    if args.resume and json_path.exists():
        results = json.loads(json_path.read_text())
    vectors = MeasuredVectors(embedder)
    with common.neo4j_database(heap=HEAP, pagecache=PAGECACHE) as database:
        directory = Path(args.neo4j_dir) if args.neo4j_dir else None
        if database.owned:
            bolt = int(os.environ.get("BENCH_NEO4J_BOLT_PORT", common.DEFAULT_BOLT))
            directory = common.ROOT / "var" / f"bench-neo4j-{bolt}"
        asyncio.run(prepare(database.uri, embedder.dimensions))
        db = common.driver(database.uri)
        progress = read_progress(db)
        db.close()
        held = sum(progress.written.values())
        if held and not args.resume:
            sys.exit(
                f"the database holds {held:,} memories of an earlier run of this benchmark: "
                "pass --resume to continue from them"
            )
        for size in sizes:
            small = len(plan.small_texts(progress.base))
            at = plan.plan(size, small)
            held = sum(progress.written.values())
            if held > size * 1.01:
                common.log(f"the database already holds {held:,} memories: {size:,} skipped")
                continue
            load = asyncio.run(
                grow(database.uri, at, progress, embedder, vectors, args.load_workers)
            )
            db = common.driver(database.uri)
            db.execute_query("CALL db.awaitIndexes(3600)")
            db.close()
            figures = measure(
                size, database.uri, directory, embedder, sets, query_vectors, not args.no_jobs
            )
            figures["load"] = load
            figures["plan"] = {
                "background_users": len(at.background),
                "largest_background": at.background[:5],
                "large": at.large,
                "small": at.small,
            }
            results[str(size)] = figures
            report_size(figures)
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(results, indent=1, default=str))
            plot(results, Path(args.plot))
    if results:
        summary(results)
    print(f"\ntotal run time {(time.perf_counter() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
