"""Store throughput: POST /v1/memories and POST /v1/memories/batch against raw encode speed.

Runs the service as its own process (`memory-service serve`, as scripts/serve.sh does)
against a throwaway Neo4j and measures:

- single store: p50/p95 of POST /v1/memories one at a time (1 client) against encode_now of
  one text here, alternating in blocks, after warm-up commits; target p50 <= 2 x the encode's
  p50. A profile splits one store into auth, encode, the write transaction statement by
  statement and its commit (with and without the vector index update) and the rest (HTTP).
  BENCH_SINGLE_ONLY=1 stops after this part;
- store, in memories per second: one at a time (1 client, the single stores above), and with
  STORE_CLIENTS concurrent clients;
- batch store: POST /v1/memories/batch with 100 memories a call, with 1 and 2 clients;
- raw encode: the embedding backend's encode on batches of 100 of the same texts, one
  calling thread in this process (the model's threads as EMBEDDING_THREADS sets them, as in the
  service, which loads its own copy of the model and is idle meanwhile). Run it again with
  EMBEDDING_THREADS=1 to compare one thread.

Target: batch store >= 0.9 x raw encode. The reference raw encode alternates with the 1-client
batch calls in blocks (5 calls, then encode_now of the same 5 x 100 texts here, three times),
so that both see the same background load on a shared machine; runs before and after are
shown too. Then a profile
of one batch call splits the time into encode, the service's store_batch without encoding (and
within it the versions/create transaction with and without the embedding, and the driver's
packing of the embeddings) and the rest (HTTP, validation, JSON).
Every concurrent client is its own user (one user's writes are serialised by design).

    .venv/bin/python bench/store_speed.py
    BENCH_SINGLE_ONLY=1 .venv/bin/python bench/store_speed.py
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import common
import httpx
from data.corpus import memory_texts

from app.api.encoding import to_json
from app.embedding import Embedder
from app.graph import Graph, Row, Tx, packed_vector
from app.models.memories import NewMemory, StoreBatch, StoreMemory
from app.ratelimit import RateLimiter
from app.registry import Registry
from app.services import memories
from app.services.memories import STORED, memory_props
from app.services.retrieval.query_text import seq_text
from app.services.scope import MAIN, Scope
from app.services.versioning import versions

T = TypeVar("T")
BENCH_MODEL = "bench"  # the embedding_model the raw writes record

BATCH = 100
SINGLE_N = 200
SINGLE_BLOCK = 10  # single stores per block when they alternate with single-text encodes
COLD_STORES = 100  # the first single stores on the fresh database, reported as such
DATABASE_WARMUP = int(os.environ.get("BENCH_DATABASE_WARMUP", "3000"))
SINGLE_TARGET = 2.0
SINGLE_PROFILE_N = 90  # 30 each: the store's transaction, without the embedding, open_change alone
STORE_CLIENTS = 4
CONCURRENT_N = 300
BATCH_CALLS_1 = 15
BLOCK = 5  # batch calls per block when the service and raw encode alternate
BATCH_CALLS_2 = 8  # per client
RAW_BATCHES = 10
PROFILE_BATCHES = 5
TARGET = 0.9  # issue 61: batch ingestion >= 0.9 x the raw encode of the same model


class Texts:
    def __init__(self, texts: list[str]) -> None:
        self._texts = texts
        self._next = 0

    def take(self, n: int) -> list[str]:
        chunk = self._texts[self._next : self._next + n]
        assert len(chunk) == n, "not enough texts"
        self._next += n
        return chunk


async def clients(n: int, work: Callable[[int], Awaitable[list[float]]]) -> tuple[float, list]:
    started = time.perf_counter()
    latencies = await asyncio.gather(*(work(i) for i in range(n)))
    return time.perf_counter() - started, [x for client in latencies for x in client]


async def store_run(
    http: httpx.AsyncClient, texts: Texts, n_clients: int, per_client: int, run_id: str
) -> tuple[float, list[float]]:
    chunks = [texts.take(per_client) for _ in range(n_clients)]

    async def work(i: int) -> list[float]:
        headers = common.master_headers(f"bench-store-{run_id}-c{n_clients}-{i}")
        latencies = []
        for text in chunks[i]:
            started = time.perf_counter()
            response = await http.post("/v1/memories", json={"content": text}, headers=headers)
            latencies.append(time.perf_counter() - started)
            assert response.status_code == 201, response.text
        return latencies

    return await clients(n_clients, work)


async def single_store_run(
    http: httpx.AsyncClient, embedder: Any, texts: Texts, user_id: str
) -> tuple[list[float], list[float]]:
    """Seconds of each POST /v1/memories (1 client) and of encode_now of one text here.

    They alternate in blocks (SINGLE_BLOCK stores, then the same texts encoded one by one), so
    that both see the same background load.
    """
    headers = common.master_headers(user_id)
    stored, encoded = [], []
    for _ in range(SINGLE_N // SINGLE_BLOCK):
        chunk = texts.take(SINGLE_BLOCK)
        for text in chunk:
            began = time.perf_counter()
            response = await http.post("/v1/memories", json={"content": text}, headers=headers)
            stored.append(time.perf_counter() - began)
            assert response.status_code == 201, response.text
        for text in chunk:
            began = time.perf_counter()
            common.encode_now(embedder, [text])
            encoded.append(time.perf_counter() - began)
    return stored, encoded


async def batch_run(
    http: httpx.AsyncClient, texts: Texts, n_clients: int, calls: int, run_id: str
) -> tuple[float, list[float]]:
    chunks = [[texts.take(BATCH) for _ in range(calls)] for _ in range(n_clients)]

    async def work(i: int) -> list[float]:
        headers = common.master_headers(f"bench-batch-{run_id}-c{n_clients}-{i}")
        latencies = []
        for chunk in chunks[i]:
            body = {"memories": [{"content": text} for text in chunk]}
            started = time.perf_counter()
            response = await http.post("/v1/memories/batch", json=body, headers=headers)
            latencies.append(time.perf_counter() - started)
            assert response.status_code == 201, response.text
        return latencies

    return await clients(n_clients, work)


def raw_encode(embedder: Any, texts: list[str]) -> tuple[float, list]:
    """Texts per second of encode_now on batches of 100, and each batch's seconds."""
    times = []
    for start in range(0, len(texts), BATCH):
        began = time.perf_counter()
        common.encode_now(embedder, texts[start : start + BATCH])
        times.append(time.perf_counter() - began)
    return len(texts) / sum(times), times


@dataclass(frozen=True)
class BenchCaller:
    """What the service's memory functions read of a caller (duck-typed, import-stable)."""

    user_id: str
    active_branch: str = "main"


def pack_seconds(vectors: list[list[float]]) -> list[float]:
    """Seconds to turn 100 embeddings into the statement's parameter (app.graph.packed_vector)
    and pack them as the Bolt driver does (its own Packer; the pure-Python one unless
    neo4j-rust-ext is installed). Empty if the driver's internals moved.
    """
    try:
        from neo4j._codec.hydration.bolt.v3.hydration_handler import HydrationHandler
        from neo4j._codec.packstream.v2 import Packer
    except ImportError:
        return []
    hooks = HydrationHandler().new_hydration_scope().dehydration_hooks

    class Sink:
        def write(self, data: bytes) -> None:
            pass

    times = []
    for _ in range(PROFILE_BATCHES):
        packer = Packer(Sink())
        began = time.perf_counter()
        packer._pack([packed_vector(vector) for vector in vectors], hooks)
        times.append(time.perf_counter() - began)
    return times


async def neo4j_write(uri: str, embedder: Any, texts: Texts, run_id: str) -> dict[str, list[float]]:
    """Seconds of the service's code for a batch of 100, minus encoding and HTTP.

    `store_batch`: app.services.memories.store_batch with precomputed vectors (scope, props,
    the write transaction, the response models). `create`/`create_no_embedding`: only the
    transaction of open_change + the versions/create statement, with and without the embedding
    (the difference is what sending, storing and indexing the embeddings costs).
    """
    graph = Graph.connect(uri, "", "", "neo4j")
    preset = common.PresetBackend(BENCH_MODEL, embedder.dimensions)
    registry = instant_registry(uri, graph, preset)
    timings: dict[str, list[float]] = defaultdict(list)
    try:
        # Vectors need not belong to their texts for timing: encode one batch, reuse it.
        vectors = common.encode_now(embedder, texts.take(BATCH))
        for n in range(PROFILE_BATCHES):
            chunk = texts.take(BATCH)
            preset.preset = dict(zip(chunk, vectors, strict=True))
            caller = BenchCaller(f"bench-profile-{run_id}-batch-{n}")
            items = [NewMemory(content=text) for text in chunk]
            began = time.perf_counter()
            stored = await memories.store_batch(registry, caller, items, None)
            timings["store_batch"].append(time.perf_counter() - began)
            body = {"memories": [{"content": text} for text in chunk]}
            began = time.perf_counter()
            StoreBatch.model_validate(json.loads(json.dumps(body)))
            timings["request"].append(time.perf_counter() - began)
            began = time.perf_counter()
            json.dumps({"memories": to_json(stored)})
            timings["response"].append(time.perf_counter() - began)
        timings["pack"] = pack_seconds(vectors)
        for variant in ("create", "create_no_embedding"):
            for n in range(PROFILE_BATCHES):
                chunk = texts.take(BATCH)
                user_id = f"bench-profile-{run_id}-{variant}-{n}"
                scope = Scope(user_id=user_id, branch=MAIN)
                props = [
                    memory_props(scope, NewMemory(content=text), vector, BENCH_MODEL)
                    for text, vector in zip(chunk, vectors, strict=True)
                ]
                embedded = variant == "create"

                async def work(
                    tx: Tx,
                    props: list[dict[str, Any]] = props,
                    user_id: str = user_id,
                    embedded: bool = embedded,
                ) -> None:
                    seq = await versions.open_change(tx, user_id, "main", versions.Why("store"))
                    if embedded:
                        await versions.create(tx, seq, props)
                        return
                    # The same statement with a null embedding: no property, nothing indexed.
                    rows = [
                        {
                            "props": {k: v for k, v in row.items() if k != "embedding"},
                            "embedding": None,
                        }
                        for row in props
                    ]
                    await tx.run("versions/create", seq=seq, seq_text=seq_text(seq), memories=rows)

                began = time.perf_counter()
                await graph.transaction(work)
                timings[variant].append(time.perf_counter() - began)
    finally:
        await graph.close()
    return timings


class TimedTx(Tx):
    """A write transaction that adds each statement's seconds to `seconds` under its name."""

    def __init__(self, inner: Tx, seconds: dict[str, float]) -> None:
        self._inner = inner
        self._seconds = seconds

    async def run(self, query_name: str, /, **params: Any) -> list[Row]:
        began = time.perf_counter()
        rows = await self._inner.run(query_name, **params)
        self._seconds[query_name] += time.perf_counter() - began
        return rows


class TimedGraph(Graph):
    """The service's Graph, timing its write transactions: `last` holds the seconds of the last
    one's statements by name and of its "commit" (from its last statement to its return)."""

    last: dict[str, float]

    async def transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        seconds: dict[str, float] = defaultdict(float)
        ended: list[float] = []

        async def timed(tx: Tx) -> T:
            done = await work(TimedTx(tx, seconds))
            ended.append(time.perf_counter())
            return done

        done = await super().transaction(timed)
        seconds["commit"] = time.perf_counter() - ended[-1]
        self.last = dict(seconds)
        return done


def instant_registry(uri: str, graph: Graph, preset: common.PresetBackend) -> Registry:
    """The service's use cases over `graph`, with embeddings computed beforehand (no cache: the
    same texts may come with other vectors)."""
    return Registry(
        settings=common.settings(uri),
        graph=graph,
        embedder=Embedder(preset, cache_size=0),
        limiter=RateLimiter(enabled=False),
        instance_id="bench-store",
    )


async def warm_database(uri: str, texts: list[str], dimensions: int, run_id: str) -> None:
    """Runs DATABASE_WARMUP single stores (the service's use case, without HTTP) from this
    process, as a server that has been up for a while has run them: a fresh Neo4j's JIT
    compiler keeps compiling the commit path (Lucene's per-commit index work) for its first few
    thousand commits, on the cores that the service and its encodes need (see bench/README.md).
    Random vectors: nothing to encode.
    """
    graph = Graph.connect(uri, "", "", "neo4j")
    registry = instant_registry(uri, graph, common.PresetBackend(BENCH_MODEL, dimensions, seed=7))
    caller = BenchCaller(f"bench-warm-{run_id}")
    try:
        for n in range(DATABASE_WARMUP):
            item = StoreMemory(content=f"{texts[n % len(texts)]} (#{n})")
            await memories.store(registry, caller, item)
    finally:
        await graph.close()


async def single_write(
    uri: str, embedder: Any, texts: Texts, run_id: str
) -> dict[str, list[float]]:
    """Seconds of the database work of one store, part by part, from this process.

    `auth`: the users/state read that authenticates the master key acting for a user (an API
    key's lookup is one read too). Then the service's store use case with the text encoded
    beforehand, each statement of its write transaction by name (`tx:<name>`) and its commit,
    where Neo4j updates its indexes. For comparison, the commit of the same store without the
    embedding (no vector index update) and of a transaction that only opens the change (the
    transaction log write and its fsync alone).
    """
    graph = TimedGraph.connect(uri, "", "", "neo4j")
    preset = common.PresetBackend(BENCH_MODEL, embedder.dimensions)
    registry = instant_registry(uri, graph, preset)
    timings: dict[str, list[float]] = defaultdict(list)
    user_id = f"bench-single-profile-{run_id}"
    caller = BenchCaller(user_id)
    try:
        for n in range(SINGLE_PROFILE_N):
            [text] = texts.take(1)
            began = time.perf_counter()
            await graph.read("users/state", user_id=user_id)
            timings["auth"].append(time.perf_counter() - began)
            preset.preset = {text: common.encode_now(embedder, [text])[0]}
            variant = ("full", "no_embedding", "open_only")[n % 3]
            if variant == "full":
                await memories.store(registry, caller, StoreMemory(content=text))
                for name, seconds in graph.last.items():
                    if name != "commit":
                        timings[f"tx:{name}"].append(seconds)
            elif variant == "no_embedding":
                scope = Scope(user_id=user_id, branch=MAIN)
                item = NewMemory(content=text)
                await memories.store_derived(
                    registry, scope, item, [], item.trust_tier, STORED, embed=False
                )
            else:
                await graph.transaction(lambda tx: versions.open_change(tx, user_id, MAIN, STORED))
            timings[f"commit_{variant}"].append(graph.last["commit"])
    finally:
        await graph.close()
    return timings


async def measure(uri: str, embedder: Any, service: common.Service, single_only: bool) -> None:
    run_id = uuid.uuid4().hex[:8]
    needed = (
        20
        + COLD_STORES
        + SINGLE_N
        + SINGLE_PROFILE_N
        + CONCURRENT_N
        + BATCH * (2 + BATCH_CALLS_1 + 2 * BATCH_CALLS_2 + 3 * PROFILE_BATCHES)
    )
    texts = Texts(memory_texts(needed, seed=7))
    encode_texts = texts._texts[-RAW_BATCHES * BATCH :]  # same distribution; not stored

    common.wait_for_quiet()
    loads = [common.load_line("at the start")]
    if not single_only:
        common.log("raw encode (before the service runs)")
        raw_before, raw_times = raw_encode(embedder, encode_texts)
    rows: list[list[Any]] = []
    async with httpx.AsyncClient(base_url=service.base_url, timeout=120) as http:
        common.log(f"warm-up: {COLD_STORES} x POST /v1/memories on the fresh database, 1 batch")
        _, cold = await store_run(http, texts, 1, COLD_STORES, run_id + "w")
        await batch_run(http, texts, 1, 1, run_id + "w")
        common.log(f"warm-up: {DATABASE_WARMUP} store transactions from here")
        await warm_database(uri, texts._texts[:COLD_STORES], embedder.dimensions, run_id)
        common.log(
            f"store: {SINGLE_N} x POST /v1/memories, 1 client, in blocks of {SINGLE_BLOCK} "
            "alternating with encode_now of each text alone here"
        )
        single, single_encode = await single_store_run(
            http, embedder, texts, f"bench-single-{run_id}"
        )
        loads.append(common.load_line("after the single stores"))
        common.log("profile: the database work of one store from this process")
        single_parts = await single_write(uri, embedder, texts, run_id)
        report_single(single, single_encode, single_parts, cold)
        if single_only:
            print(common.code_state())
            for line in loads:
                print(line)
            return
        rows.append(["store, 1 client", SINGLE_N, sum(single), SINGLE_N / sum(single), single])
        per = CONCURRENT_N // STORE_CLIENTS
        common.log(f"store: {CONCURRENT_N} x POST /v1/memories, {STORE_CLIENTS} clients")
        elapsed, lat = await store_run(http, texts, STORE_CLIENTS, per, run_id)
        n = per * STORE_CLIENTS
        rows.append([f"store, {STORE_CLIENTS} clients", n, elapsed, n / elapsed, lat])
        common.log(
            f"batch, 1 client: {BATCH_CALLS_1} x POST /v1/memories/batch of 100, in blocks of "
            f"{BLOCK} alternating with encode_now of the same texts here"
        )
        lat, paired = [], []
        headers = common.master_headers(f"bench-batch-{run_id}-interleaved")
        for _ in range(BATCH_CALLS_1 // BLOCK):
            chunks = [texts.take(BATCH) for _ in range(BLOCK)]
            for chunk in chunks:
                body = {"memories": [{"content": text} for text in chunk]}
                began = time.perf_counter()
                response = await http.post("/v1/memories/batch", json=body, headers=headers)
                lat.append(time.perf_counter() - began)
                assert response.status_code == 201, response.text
            for chunk in chunks:
                began = time.perf_counter()
                common.encode_now(embedder, chunk)
                paired.append(time.perf_counter() - began)
        n = BATCH * BATCH_CALLS_1
        rows.append(["batch of 100, 1 client", n, sum(lat), n / sum(lat), lat])
        batch_1 = n / sum(lat)
        batch_latencies = lat
        raw_paired = n / sum(paired)
        common.log(f"batch: 2 x {BATCH_CALLS_2} x POST /v1/memories/batch, 2 clients")
        elapsed, lat = await batch_run(http, texts, 2, BATCH_CALLS_2, run_id)
        n = BATCH * BATCH_CALLS_2 * 2
        rows.append(["batch of 100, 2 clients", n, elapsed, n / elapsed, lat])
        batch_2 = n / elapsed
        sample = {"memories": [{"content": text} for text in texts._texts[:BATCH]]}
        request_bytes = len(httpx.Request("POST", "/", json=sample).content)
        probe = await http.post(
            "/v1/memories/batch", json=sample, headers=common.master_headers(f"probe-{run_id}")
        )
        response_bytes = len(probe.content)
    common.log("raw encode (after)")
    raw_after, raw_times_after = raw_encode(embedder, encode_texts)
    raw = (raw_before + raw_after) / 2
    loads.append(common.load_line("at the end"))
    rss = service.memory()
    common.log("profile: the Neo4j write of a batch from this process")
    writes = await neo4j_write(uri, embedder, texts, run_id)

    encode_rows: list[list[Any]] = [
        [f"raw encode_now, {label}", len(times) * BATCH, sum(times), rate, times]
        for label, rate, times in (
            ("100/batch (before)", raw_before, raw_times),
            ("100/batch, interleaved with batch calls", raw_paired, paired),
            ("100/batch (after)", raw_after, raw_times_after),
        )
    ]
    print("\nStore throughput (memories/second); the service runs as its own process")
    print(common.code_state())
    for line in loads:
        print(line)
    print(
        common.table(
            "Throughput",
            ["scenario", "memories", "seconds", "memories/s", "p50 ms/call", "p95 ms/call"],
            [
                [name, n, e, r, common.median(lat) * 1000, common.percentile(lat, 95) * 1000]
                for name, n, e, r, lat in rows + encode_rows
            ],
        )
    )
    print(
        common.table(
            f"Ratios against raw encode: {raw_paired:.1f} texts/s interleaved with the 1-client "
            f"batch calls (the target's reference); {raw:.1f} texts/s as the mean of the runs "
            "before and after",
            [
                "scenario",
                "memories/s",
                "ratio (interleaved)",
                "ratio (before/after)",
                "target",
                "status",
            ],
            [[name, r, r / raw_paired, r / raw, "", ""] for name, _, _, r, _ in rows[:2]]
            + [
                [
                    "batch of 100, 1 client",
                    batch_1,
                    batch_1 / raw_paired,
                    batch_1 / raw,
                    f">= {TARGET}",
                    common.verdict(batch_1 / raw_paired, TARGET),
                ],
                [
                    "batch of 100, 2 clients",
                    batch_2,
                    batch_2 / raw_paired,
                    batch_2 / raw,
                    f">= {TARGET}",
                    common.verdict(batch_2 / raw_paired, TARGET),
                ],
            ],
        )
    )
    call_ms = common.median(batch_latencies) * 1000
    encode_ms = common.median(paired) * 1000
    code_ms = common.median(writes["store_batch"]) * 1000
    create_ms = common.median(writes["create"]) * 1000
    bare_ms = common.median(writes["create_no_embedding"]) * 1000
    rest_ms = call_ms - encode_ms - code_ms
    pack_ms = common.median(writes["pack"]) * 1000
    request_ms = common.median(writes["request"]) * 1000
    response_ms = common.median(writes["response"]) * 1000
    print(
        common.table(
            "Where one POST /v1/memories/batch of 100 goes (medians; the encode is the one "
            "interleaved with the calls, the service's code timed from this process)",
            ["stage", "ms", "share of the call"],
            [
                ["encode 100 texts (encode_now)", encode_ms, encode_ms / call_ms],
                ["memories.store_batch without encoding", code_ms, code_ms / call_ms],
                ["  of it: open_change + versions/create tx", create_ms, create_ms / call_ms],
                [
                    "  of that: the embedding (tx minus tx without it)",
                    create_ms - bare_ms,
                    (create_ms - bare_ms) / call_ms,
                ],
                [
                    "    of that: 100 embeddings to vectors, packed by the driver",
                    pack_ms,
                    pack_ms / call_ms,
                ],
                ["rest: HTTP, validation, JSON, event loop", rest_ms, rest_ms / call_ms],
                ["  of it: request JSON + StoreBatch validation", request_ms, request_ms / call_ms],
                [
                    "  of it: response to_json + JSON (100 memories)",
                    response_ms,
                    response_ms / call_ms,
                ],
                ["whole call (1 client)", call_ms, 1.0],
            ],
        )
    )
    print(
        f"\nrequest body of a batch of 100: {request_bytes / 1024:.1f} KiB; "
        f"response: {response_bytes / 1024:.1f} KiB"
    )
    print(
        common.table(
            "Service process memory at the end (MiB)",
            ["pid", "process", "VmRSS", "VmHWM"],
            [[r["pid"], r.get("cmd", "?"), r.get("VmRSS", 0.0), r.get("VmHWM", 0.0)] for r in rss],
        )
    )


def report_single(
    stored: list[float], encoded: list[float], parts: dict[str, list[float]], cold: list[float]
) -> None:
    store_ms = common.median(stored) * 1000
    encode_ms = common.median(encoded) * 1000
    ratio = store_ms / encode_ms
    print(
        common.table(
            f"Single store at concurrency 1 against encoding one text ({len(stored)} of each, "
            f"alternating in blocks of {SINGLE_BLOCK}, after {DATABASE_WARMUP} warm-up commits)",
            ["", "p50 ms", "p95 ms", "ratio of p50s", "target", "status"],
            [
                [
                    "POST /v1/memories",
                    store_ms,
                    common.percentile(stored, 95) * 1000,
                    ratio,
                    f"<= {SINGLE_TARGET}",
                    common.verdict(ratio, SINGLE_TARGET, higher_is_better=False),
                ],
                [
                    "encode_now of one text",
                    encode_ms,
                    common.percentile(encoded, 95) * 1000,
                    "",
                    "",
                    "",
                ],
            ],
        )
    )
    print(
        f"store p50 of the first {len(cold)} stores on the fresh database (JIT cold, not "
        f"interleaved): {common.median(cold) * 1000:.1f} ms"
    )
    ms = {part: common.median(seconds) * 1000 for part, seconds in parts.items()}
    statements = [part for part in parts if part.startswith("tx:")]
    transaction_ms = sum(ms[part] for part in statements) + ms["commit_full"]
    rest_ms = store_ms - ms["auth"] - encode_ms - transaction_ms
    print(
        common.table(
            "Where one POST /v1/memories goes (medians; the store and the encode are those above, "
            "the database parts timed from this process)",
            ["part", "ms", "share of the store"],
            [
                ["auth: users/state read", ms["auth"], ms["auth"] / store_ms],
                ["encode one text (encode_now)", encode_ms, encode_ms / store_ms],
                [
                    "write transaction (every statement, in order, and the commit)",
                    transaction_ms,
                    transaction_ms / store_ms,
                ],
                *[[f"  {part[3:]}", ms[part], ""] for part in statements],
                ["  commit", ms["commit_full"], ""],
                [
                    "    commit without the embedding (no vector index)",
                    ms["commit_no_embedding"],
                    "",
                ],
                ["    commit of open_change alone (log write + fsync)", ms["commit_open_only"], ""],
                [
                    "rest: HTTP, validation, JSON, entity extraction, event loop",
                    rest_ms,
                    rest_ms / store_ms,
                ],
                ["whole store (1 client)", store_ms, 1.0],
            ],
        )
    )


def main() -> None:
    single_only = os.environ.get("BENCH_SINGLE_ONLY") == "1"
    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database() as database, common.service_process(database.uri) as service:
        asyncio.run(measure(database.uri, embedder, service, single_only))


if __name__ == "__main__":
    main()
