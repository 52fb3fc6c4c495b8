"""Retrieval speed: POST /v1/memories/retrieve latency against its floor, vector recall, RSS.

Builds 100,000 memories: one measured user with 10,000 real texts stored through the real
service (create_app in this process, POST /v1/memories/batch, 100 a call), and 99 other users
with 90,000 texts whose embeddings are random unit vectors made inside Cypher (UNWIND batches),
with the properties the service writes. Then runs the service as its own process
(`memory-service serve`) and measures, over distinct realistic queries (no query is
asked twice, so the service's query-embedding cache never helps):

- retrieve latency p50/p95 at concurrency 1 and 8, and throughput;
- the floor: encode one query (model in this process, median) + the raw vector query + the
  raw full-text query (medians, neo4j driver, the service's parameters for top_k 5);
  target: p50 at concurrency 1 / floor <= 1.3;
- the vector stage's recall@10 against exact cosine top-10 (numpy over the user's 10,000
  embeddings); target >= 0.98;
- the service process's VmRSS and VmHWM.

With its own Neo4j (no NEO4J_URI), when recall misses its target (or BENCH_INDEX_VARIANTS=1),
it then recreates the vector index with other options (binary quantization, Neo4j's default
and ours until 2026-11-29, at its own and at our search expansion; scalar quantization) and
measures recall and latency again. The service's cypher files are not touched.

    .venv/bin/python bench/retrieval_speed.py
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import common
import httpx
import neo4j
import numpy as np
from data.corpus import memory_texts, queries

from app.graph import Graph, packed_vector
from app.services.ids import fingerprint, time_ordered_id
from app.services.retrieval import pipeline
from app.services.retrieval.config import DEFAULT
from app.services.scope import MAIN, MemoryFilter, Scope

USER_MEMORIES = 10_000
OTHER_USERS = 99
OTHER_MEMORIES = 90_000
WRITE_BATCH = 100
OTHER_BATCH = 2_000
# Retrieves before measuring: a fresh Neo4j's JIT compiler is still compiling the first stage's
# paths after a few dozen (as store_speed's commits); the floor's queries, simpler, warm sooner.
WARMUP = 300
C1_QUERIES = 300
C8_QUERIES = 300
EXPLAIN_QUERIES = 100
ONE_THREAD_QUERIES = 150  # per run, concurrency 1 and 8, with EMBEDDING_THREADS=1
VARIANT_LATENCY_QUERIES = 50
CONCURRENCY = 8
BLOCK = 20  # queries per block when the floor and the service alternate
TOP_K = pipeline.DEFAULT_TOP_K["retrieve"]
CANDIDATES = DEFAULT.candidates.wanted(TOP_K)
TEXT_CANDIDATES = DEFAULT.candidates.text_wanted(TOP_K)  # the full-text half's
FLOOR_TARGET = 1.3
VARIANT_DEADLINE_S = 12.5 * 60  # an index variant starts only before this
RECALL_TARGET = 0.98
# Index variants tried after the main run (own database only): name, extra indexConfig.
INDEX_VARIANTS = (
    ("binary", "`vector.quantization.type`: 'BINARY'"),
    (
        "binary, expansion 10",
        "`vector.quantization.type`: 'BINARY', `vector.default_search_expansion_factor`: 10.0",
    ),
    (
        "scalar, expansion 10",
        "`vector.quantization.type`: 'SCALAR', `vector.default_search_expansion_factor`: 10.0",
    ),
)
CODE_ROOT_CYPHER = common.CODE_ROOT / "cypher"
CREATE_INDEX = """CYPHER 25
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON m.embedding
WITH [m.user_id, m.branch, m.is_active]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  %s
}}"""

OTHERS_CYPHER = """
UNWIND $rows AS row
WITH row, [i IN range(1, $dimensions) | rand() - 0.5] AS raw
WITH row, raw, sqrt(reduce(total = 0.0, x IN raw | total + x * x)) AS norm
CREATE (m:Memory)
SET m.memory_id = row.memory_id, m.user_id = row.user_id, m.branch = 'main',
    m.content = row.content, m.memory_type = 'semantic', m.trust_tier = 'T1',
    m.initial_confidence = 0.95, m.is_active = true, m.observed_at = datetime(),
    m.embedding = [x IN raw | x / norm], m.fingerprint = row.fingerprint,
    m.useful = 0, m.irrelevant = 0, m.outdated = 0, m.wrong = 0,
    m.created_seq = row.seq, m.created_at = datetime(), m.updated_at = datetime()
"""
OTHER_USERS_CYPHER = """
UNWIND $users AS user
MERGE (u:User {id: user.id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main'
SET u.seq = user.seq
"""


@dataclass
class Corpus:
    user_id: str
    memory_ids: list[str]
    matrix: np.ndarray  # the user's embeddings, one normalised row per memory


async def build(uri: str, embedder: Any, run_id: str) -> Corpus:
    """Writes the 100,000 memories; the measured user's through POST /v1/memories/batch."""
    db = common.driver(uri)
    try:
        # The in-process app applies the migrations and creates the vector index on startup.
        async with common.in_process_client(uri, embedder) as client:
            started = time.perf_counter()
            pool = memory_texts(20_000, seed=5)
            rng = random.Random(3)
            per_user = OTHER_MEMORIES // OTHER_USERS
            rows = []
            users = []
            for n in range(OTHER_USERS):
                user_id = f"bench-speed-other-{n:02d}-{run_id}"
                count = per_user + (1 if n < OTHER_MEMORIES - per_user * OTHER_USERS else 0)
                users.append({"id": user_id, "seq": 1})
                rows += [
                    {
                        "memory_id": time_ordered_id(),
                        "user_id": user_id,
                        "content": content,
                        "fingerprint": fingerprint("semantic", None, content),
                        "seq": 1,
                    }
                    for content in rng.sample(pool, count)
                ]
            rng.shuffle(rows)
            db.execute_query(OTHER_USERS_CYPHER, users=users)
            for start in range(0, len(rows), OTHER_BATCH):
                db.execute_query(
                    OTHERS_CYPHER,
                    rows=rows[start : start + OTHER_BATCH],
                    dimensions=embedder.dimensions,
                )
                if start % 20_000 == 0:
                    common.log(f"  other users: {start + OTHER_BATCH} / {len(rows)}")
            elapsed = time.perf_counter() - started
            common.log(f"{len(rows)} other memories written in {elapsed:.0f}s")

            started = time.perf_counter()
            user_id = f"bench-speed-user-{run_id}"
            texts = memory_texts(USER_MEMORIES, seed=11)
            for start in range(0, len(texts), WRITE_BATCH):
                body = {"memories": [{"content": t} for t in texts[start : start + WRITE_BATCH]]}
                response = await client.post(
                    "/v1/memories/batch", json=body, headers=common.master_headers(user_id)
                )
                assert response.status_code == 201, await response.get_data(as_text=True)
                if start % 2_000 == 0:
                    common.log(f"  measured user: {start + WRITE_BATCH} / {len(texts)}")
            elapsed = time.perf_counter() - started
            common.log(f"{len(texts)} memories of the measured user stored in {elapsed:.0f}s")
        db.execute_query("CALL db.awaitIndexes(1800)")
        records, _, _ = db.execute_query(
            "MATCH (m:Memory {user_id: $user_id}) WHERE m.branch = 'main' AND m.is_active "
            "RETURN m.memory_id AS memory_id, m.embedding AS embedding",
            user_id=user_id,
        )
        ids = [record["memory_id"] for record in records]
        matrix = np.asarray([record["embedding"] for record in records], dtype=np.float32)
        return Corpus(user_id, ids, matrix)
    finally:
        db.close()


def exact_top(corpus: Corpus, vector: Sequence[float], k: int) -> list[str]:
    similarities = corpus.matrix @ np.asarray(vector, dtype=np.float32)
    best = np.argpartition(-similarities, k)[:k]
    return [corpus.memory_ids[i] for i in best]


def recall(db: Any, corpus: Corpus, vectors: list[list[float]], k: int) -> float:
    found = 0
    for vector in vectors:
        hits = {memory_id for memory_id, _ in common.raw_vector(db, corpus.user_id, vector, k)}
        found += len(hits.intersection(exact_top(corpus, vector, k)))
    return found / (k * len(vectors))


async def stage_recall(
    uri: str, corpus: Corpus, texts: Sequence[str], vectors: Sequence[Sequence[float]], k: int
) -> float:
    """The share of the exact top k among the service's first-stage candidates (its vector half,
    searched again deeper when its full-text half shows the first search missed, and its
    full-text hits), from this process."""
    found = 0
    rows = await first_stages(uri, corpus.user_id, texts, vectors)
    for (row, _), vector in zip(rows, vectors, strict=True):
        held = {candidate["memory"]["memory_id"] for candidate in row["candidates"]}
        found += len(held.intersection(exact_top(corpus, vector, k)))
    return found / (k * len(texts))


def floor_parts(db: Any, embedder: Any, user_id: str, text: str) -> tuple:
    """Seconds of each floor component for one query: encode, raw vector, raw full-text."""
    began = time.perf_counter()
    [vector] = common.encode_now(embedder, [text], "query")
    encoded = time.perf_counter()
    common.raw_vector(db, user_id, vector, CANDIDATES)
    searched = time.perf_counter()
    common.raw_fulltext(db, user_id, pipeline.lucene_query(text, user_id, "main"), TEXT_CANDIDATES)
    return encoded - began, searched - encoded, time.perf_counter() - searched


async def interleaved(
    base_url: str, db: Any, embedder: Any, user_id: str, texts: list[str]
) -> tuple[list[float], dict[str, list[float]]]:
    """Concurrency 1 and the floor in alternating blocks (BLOCK service requests, then the
    floor parts of the same queries), so that both see the same background load while neither
    runs right after the other's burst of CPU (the model in this process heats the same cores).
    """
    latencies: list[float] = []
    parts: dict[str, list[float]] = {"encode": [], "vector": [], "fulltext": []}
    headers = common.master_headers(user_id)
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        for start in range(0, len(texts), BLOCK):
            block = texts[start : start + BLOCK]
            for text in block:
                began = time.perf_counter()
                response = await http.post(
                    "/v1/memories/retrieve", json={"query": text}, headers=headers
                )
                latencies.append(time.perf_counter() - began)
                assert response.status_code == 200, response.text
            for text in block:
                seconds = floor_parts(db, embedder, user_id, text)
                for name, value in zip(parts, seconds, strict=True):
                    parts[name].append(value)
    return latencies, parts


async def retrieve_run(
    base_url: str, user_id: str, texts: list[str], concurrency: int, explain: bool = False
) -> tuple[float, list[float], list[dict[str, Any]]]:
    """Wall seconds, per-request seconds, and the explain timings when asked."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for text in texts:
        queue.put_nowait(text)
    latencies: list[float] = []
    explains: list[dict[str, Any]] = []
    headers = common.master_headers(user_id)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as http:

        async def worker() -> None:
            while not queue.empty():
                text = queue.get_nowait()
                body: dict[str, Any] = {"query": text}
                if explain:
                    body["explain"] = True
                began = time.perf_counter()
                response = await http.post("/v1/memories/retrieve", json=body, headers=headers)
                latencies.append(time.perf_counter() - began)
                assert response.status_code == 200, response.text
                if explain:
                    explains.append(response.json()["explain"]["timings_ms"])

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started, latencies, explains


def first_stage(user_id: str, vector: Sequence[float], text: str) -> dict[str, Any]:
    """The service's retrieval/candidates parameters for `text` on the user's main branch."""
    scope = Scope(user_id=user_id, branch=MAIN)
    return pipeline.first_stage_params(scope, MemoryFilter(), packed_vector(vector), text, TOP_K)


async def candidates_ms(uri: str, embedder: Any, user_id: str, texts: list[str]) -> list[float]:
    """Seconds of the service's own first stage (its two halves at once through the app's Graph,
    rows converted and merged as the service does), from this process."""
    vectors = common.encode_now(embedder, texts, "query")
    return [seconds for _, seconds in await first_stages(uri, user_id, texts, vectors)]


async def first_stages(
    uri: str, user_id: str, texts: Sequence[str], vectors: Sequence[Sequence[float]]
) -> list[tuple[dict[str, Any], float]]:
    """The service's first stage for each query (through the app's Graph, as the service runs
    it) from this process: its row and its seconds."""
    graph = Graph.connect(uri, "", "", "neo4j")
    done = []
    try:
        for text, vector in zip(texts, vectors, strict=True):
            began = time.perf_counter()
            row, _, _ = await pipeline.first_stage(
                graph, first_stage(user_id, vector, text), analyze=False
            )
            done.append((row, time.perf_counter() - began))
    finally:
        await graph.close()
    return done


SLIM = (
    "m {.memory_id, .trust_tier, .initial_confidence, .observed_at, .created_at, .session_id, "
    ".useful, .irrelevant, .outdated, .wrong}"
)


async def alternatives(
    uri: str, embedder: Any, user_id: str, texts: list[str]
) -> dict[str, list[float]]:
    """Seconds of two cheaper first stages, prototyped from this process (not the service):

    - `slim`: the service's retrieval/candidates with only what ranking needs returned
      (no `.*` maps for every candidate; the top k's full maps would be a second small read);
    - `overlap`: the full-text query sent while the query is encoded (it needs no vector),
      then the vector query: encode + both halves, as one request would see it.
    """
    query = (CODE_ROOT_CYPHER / "retrieval" / "candidates.cypher").read_text()
    slim_query = query.replace(
        "m {.*, branch: $p.branch, embedding: null, created_at: toString(m.created_at),\n"
        "             updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)}",
        SLIM,
    )
    out: dict[str, list[float]] = {"full": [], "slim": [], "overlap": []}
    driver = neo4j.AsyncGraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF")
    loop = asyncio.get_running_loop()
    try:
        for text in texts:
            lucene = pipeline.lucene_query(text, user_id, "main")
            [vector] = common.encode_now(embedder, [text + " (slim)"], "query")
            for name, statement in (("full", query), ("slim", slim_query)):
                if name == "slim" and slim_query == query:
                    continue  # the service's query changed shape: no slim variant to try
                began = time.perf_counter()
                await driver.execute_query(
                    statement, p=first_stage(user_id, vector, text), routing_="r"
                )
                out[name].append(time.perf_counter() - began)
            began = time.perf_counter()
            encoding = loop.run_in_executor(None, common.encode_now, embedder, [text], "query")
            lexical = driver.execute_query(
                common.FULLTEXT_QUERY,
                user_id=user_id,
                lucene=lucene,
                k=TEXT_CANDIDATES,
                routing_="r",
            )
            [vector], _ = await asyncio.gather(encoding, lexical)
            await driver.execute_query(
                common.VECTOR_QUERY, user_id=user_id, vector=vector, k=CANDIDATES, routing_="r"
            )
            out["overlap"].append(time.perf_counter() - began)
    finally:
        await driver.close()
    return out


def recreate_index(db: Any, options: str, dimensions: int) -> float:
    began = time.perf_counter()
    db.execute_query("DROP INDEX memory_embedding IF EXISTS")
    db.execute_query(CREATE_INDEX % options, dimensions=dimensions)
    db.execute_query("CALL db.awaitIndexes(1800)")
    return time.perf_counter() - began


def raw_vector_ms(db: Any, user_id: str, vectors: list[list[float]]) -> float:
    times = []
    for vector in vectors:
        began = time.perf_counter()
        common.raw_vector(db, user_id, vector, CANDIDATES)
        times.append(time.perf_counter() - began)
    return common.median(times) * 1000


def ms(values: Sequence[float], q: float) -> float:
    return common.percentile(values, q) * 1000


@dataclass
class Figures:
    index_options: dict[str, Any]
    loads: list[str]
    runs: list[list[Any]]  # table rows: run, queries, p50, p95, max, req/s
    explains: list[dict[str, Any]]
    floor: dict[str, list[float]]
    p50_c1: float
    recall_10: float
    recall_20: float
    memory: list[dict[str, Any]]
    variants: list[list[Any]]
    candidates: list[float] = field(default_factory=list)
    alternatives: dict[str, list[float]] = field(default_factory=dict)


def run_row(name: str, latencies: list[float], wall: float | None) -> list[Any]:
    rate = len(latencies) / wall if wall else ""
    return [name, len(latencies), ms(latencies, 50), ms(latencies, 95), ms(latencies, 100), rate]


def main() -> None:
    # Imported here, after app.embedding: torch's OpenMP reads OMP_WAIT_POLICY (set by
    # app.embedding as in the service) when torch loads; loaded first, its threads spin between
    # operations, and on a busy machine the floor's encodes here would be slower than the
    # service's.
    import torch

    run_id = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    common.log("loading the embedding model")
    embedder = common.embedder()
    sizes = [WARMUP, C1_QUERIES, C8_QUERIES, EXPLAIN_QUERIES, WARMUP, ONE_THREAD_QUERIES]
    pool = iter(queries(sum(sizes) + ONE_THREAD_QUERIES))
    warm, c1, c8, explain_set, warm_one, one_c1, one_c8 = (
        [next(pool) for _ in range(n)] for n in [*sizes, ONE_THREAD_QUERIES]
    )
    with common.neo4j_database() as database:
        # Building is not measured: on a busy machine one torch thread encodes faster than two
        # (spinning OpenMP threads lose their core); the default is restored for the floor.
        threads = torch.get_num_threads()
        if common.load_average()[0] > 2.5:
            torch.set_num_threads(1)
        try:
            corpus = asyncio.run(build(database.uri, embedder, run_id))
        finally:
            torch.set_num_threads(threads)
        db = common.driver(database.uri)
        user = corpus.user_id
        figures = Figures(
            index_options=common.vector_index_options(db),
            loads=[common.load_line("after the build")],
            runs=[],
            explains=[],
            floor={},
            p50_c1=0.0,
            recall_10=0.0,
            recall_20=0.0,
            memory=[],
            variants=[],
        )
        common.log(f"vector index: {figures.index_options}")
        vectors = common.encode_now(embedder, c1, "query")
        figures.recall_10 = recall(db, corpus, vectors, 10)
        figures.recall_20 = recall(db, corpus, vectors, CANDIDATES)
        with common.service_process(database.uri) as service:
            url = service.base_url
            asyncio.run(retrieve_run(url, user, warm, 1))
            common.wait_for_quiet()
            figures.loads.append(common.load_line("before the latency runs"))
            common.log(f"concurrency 1 and the floor in blocks of {BLOCK}: {len(c1)} queries")
            lat_1, figures.floor = asyncio.run(interleaved(url, db, embedder, user, c1))
            figures.p50_c1 = ms(lat_1, 50)
            figures.runs.append(run_row("concurrency 1 (blocks alternate with floor)", lat_1, None))
            common.log(f"concurrency {CONCURRENCY}: {len(c8)} queries")
            wall, lat, _ = asyncio.run(retrieve_run(url, user, c8, CONCURRENCY))
            figures.runs.append(run_row(f"concurrency {CONCURRENCY}", lat, wall))
            common.log(f"explain=true: {len(explain_set)} queries")
            wall, lat, figures.explains = asyncio.run(
                retrieve_run(url, user, explain_set, 1, explain=True)
            )
            figures.runs.append(run_row("concurrency 1, explain=true", lat, wall))
            figures.loads.append(common.load_line("after the latency runs"))
            figures.candidates = asyncio.run(candidates_ms(database.uri, embedder, user, c1[:100]))
            figures.alternatives = asyncio.run(
                alternatives(database.uri, embedder, user, c1[100:200])
            )
            figures.memory = service.memory()
        common.log("the service again with EMBEDDING_THREADS=1 (one model thread)")
        with common.service_process(database.uri, env={"EMBEDDING_THREADS": "1"}) as service:
            url = service.base_url
            asyncio.run(retrieve_run(url, user, warm_one, 1))
            wall, lat, _ = asyncio.run(retrieve_run(url, user, one_c1, 1))
            figures.runs.append(run_row("EMBEDDING_THREADS=1: concurrency 1", lat, wall))
            wall, lat, _ = asyncio.run(retrieve_run(url, user, one_c8, CONCURRENCY))
            figures.runs.append(
                run_row(f"EMBEDDING_THREADS=1: concurrency {CONCURRENCY}", lat, wall)
            )
            figures.loads.append(common.load_line("after the one-thread runs"))
        wanted = figures.recall_10 < RECALL_TARGET or os.environ.get("BENCH_INDEX_VARIANTS") == "1"
        if database.owned and wanted:
            sample = vectors[:VARIANT_LATENCY_QUERIES]
            figures.variants.append(
                [
                    "as created by the service",
                    figures.index_options.get("vector.quantization.type"),
                    figures.index_options.get("vector.default_search_expansion_factor"),
                    "",
                    figures.recall_10,
                    figures.recall_20,
                    raw_vector_ms(db, user, sample),
                ]
            )
            for name, options in INDEX_VARIANTS:
                if time.perf_counter() - started > VARIANT_DEADLINE_S:
                    common.log(f"skipping the index variant '{name}': out of time")
                    continue
                common.log(f"recreating the vector index: {name}")
                rebuild = recreate_index(db, options, embedder.dimensions)
                new_options = common.vector_index_options(db)
                figures.variants.append(
                    [
                        name,
                        new_options.get("vector.quantization.type"),
                        new_options.get("vector.default_search_expansion_factor"),
                        rebuild,
                        recall(db, corpus, vectors, 10),
                        recall(db, corpus, vectors, CANDIDATES),
                        raw_vector_ms(db, user, sample),
                    ]
                )
        db.close()
    report(figures, time.perf_counter() - started)


def report(figures: Figures, total_s: float) -> None:
    print(
        f"\nRetrieval speed: measured user {USER_MEMORIES} memories (real embeddings) among "
        f"{USER_MEMORIES + OTHER_MEMORIES} ({OTHER_USERS} other users, random unit vectors); "
        f"POST /v1/memories/retrieve with top_k {TOP_K} ({CANDIDATES} vector and "
        f"{TEXT_CANDIDATES} full-text candidates)"
    )
    print(common.code_state())
    print(f"vector index options: {figures.index_options}")
    for line in figures.loads:
        print(line)
    print(
        common.table(
            "Latency (every query distinct; the service as its own process)",
            ["run", "queries", "p50 ms", "p95 ms", "max ms", "req/s"],
            figures.runs,
        )
    )
    stages = ["embed_ms", "candidates_ms", "rank_ms", "total_ms"]
    print(
        common.table(
            "Inside the service (explain=true timings_ms)",
            ["stage", "median ms", "p95 ms"],
            [
                [
                    stage,
                    common.median([e[stage] for e in figures.explains]),
                    common.percentile([e[stage] for e in figures.explains], 95),
                ]
                for stage in stages
            ],
        )
    )
    parts = {name: common.median(values) * 1000 for name, values in figures.floor.items()}
    total_floor = sum(parts.values())
    print(
        common.table(
            f"Floor (medians over the same queries, in blocks of {BLOCK} alternating with the "
            "service's)",
            ["component", "median ms", "p95 ms"],
            [
                [
                    "encode one query (encode_now, this process)",
                    parts["encode"],
                    ms(figures.floor["encode"], 95),
                ],
                [
                    f"raw vector query (LIMIT {CANDIDATES})",
                    parts["vector"],
                    ms(figures.floor["vector"], 95),
                ],
                [
                    f"raw full-text query (limit {TEXT_CANDIDATES})",
                    parts["fulltext"],
                    ms(figures.floor["fulltext"], 95),
                ],
                ["floor (sum of the medians)", total_floor, ""],
            ],
        )
    )
    alt = figures.alternatives
    rows = [
        ["the service's first stage via app Graph (halves at once, merged)", figures.candidates],
        ["both halves in one statement, raw async driver", alt.get("full", [])],
        ["  returning only what ranking needs (no .* maps), raw driver", alt.get("slim", [])],
        ["encode || full-text, then vector (one request's first stage)", alt.get("overlap", [])],
    ]
    print(
        common.table(
            "Cheaper first stages, prototyped from this process (not the service)",
            ["first stage", "queries", "median ms", "p95 ms"],
            [[name, len(v), ms(v, 50), ms(v, 95)] for name, v in rows if v],
        )
    )
    ratio = figures.p50_c1 / total_floor
    print(
        common.table(
            "Targets",
            ["figure", "value", "target", "status"],
            [
                [
                    "p50 at concurrency 1 / floor",
                    ratio,
                    f"<= {FLOOR_TARGET}",
                    common.verdict(ratio, FLOOR_TARGET, higher_is_better=False),
                ],
                [
                    "vector recall@10 vs exact cosine",
                    figures.recall_10,
                    f">= {RECALL_TARGET}",
                    common.verdict(figures.recall_10, RECALL_TARGET),
                ],
                [
                    f"vector recall@{CANDIDATES} (LIMIT {CANDIDATES}, what retrieve fetches)",
                    figures.recall_20,
                    "",
                    "",
                ],
            ],
        )
    )
    print(
        common.table(
            "Service process memory after the runs (MiB)",
            ["pid", "process", "VmRSS", "VmHWM"],
            [
                [r["pid"], r.get("cmd", "?"), r.get("VmRSS", 0.0), r.get("VmHWM", 0.0)]
                for r in figures.memory
            ],
        )
    )
    if figures.variants:
        print(
            common.table(
                "Vector index variants (recreated in the benchmark database only; recall over "
                f"the {C1_QUERIES} concurrency-1 queries)",
                [
                    "variant",
                    "quantization",
                    "expansion",
                    "rebuild s",
                    "recall@10",
                    f"recall@{CANDIDATES}",
                    "raw vector ms",
                ],
                figures.variants,
            )
        )
    print(f"\ntotal run time {total_s / 60:.1f} min")


if __name__ == "__main__":
    main()
