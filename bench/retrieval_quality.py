"""Retrieval quality: recall@5 and MRR@10 of vector-only, full-text-only and hybrid retrieval.

Stores the labelled set (bench/data/quality_set.py: four users' worlds, 1,018 memories,
160 queries) through the real service (create_app with the real embedder, POST
/v1/memories/batch as the master key with X-User-Id), then asks every query three ways:

- vector only: the memory_embedding vector index through raw Cypher, top 10 for the user;
- full-text only: db.index.fulltext.queryNodes('memory_content') with the lucene string the
  service builds (app.services.retrieval.pipeline.lucene_query), limit 50, filtered by user, top 10;
- hybrid: the service's POST /v1/memories/search with top_k 10 and min_score 0.

Target: hybrid beats both on both metrics. Figures are reported, not asserted. (Replays of
the ranking with other settings on captured candidates: bench/quality.py --capture.)

    .venv/bin/python bench/retrieval_quality.py            # own throwaway Neo4j
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/retrieval_quality.py
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import common
from data.quality_set import STYLES, QualitySet, build

from app.services.retrieval import pipeline

METHODS = ("vector", "fulltext", "hybrid")
BATCH = 100
TOP_K = 10
FULLTEXT_FETCH = 50


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(relevant.intersection(ranked[:k])) / min(len(relevant), k)


def reciprocal_rank(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    for position, memory_id in enumerate(ranked[:k], start=1):
        if memory_id in relevant:
            return 1.0 / position
    return 0.0


async def store(client: Any, dataset: QualitySet, users: dict[str, str]) -> dict[str, str]:
    """Stores every memory through POST /v1/memories/batch; set key -> service memory_id."""
    ids: dict[str, str] = {}
    for world, user_id in users.items():
        memories = [m for m in dataset.memories if m.world == world]
        for start in range(0, len(memories), BATCH):
            chunk = memories[start : start + BATCH]
            body = {
                "memories": [{"content": m.content, "memory_type": m.memory_type} for m in chunk]
            }
            response = await client.post(
                "/v1/memories/batch", json=body, headers=common.master_headers(user_id)
            )
            assert response.status_code == 201, await response.get_data(as_text=True)
            stored = await response.get_json()
            ids.update({m.key: row["memory_id"] for m, row in zip(chunk, stored, strict=True)})
    return ids


Scores = dict[str, dict[str, list[tuple[float, float]]]]


def score(scores: Scores, name: str, style: str, ranked: list[str], relevant: set[str]) -> float:
    pair = (recall_at(ranked, relevant, 5), reciprocal_rank(ranked, relevant, 10))
    scores[name][style].append(pair)
    scores[name]["all"].append(pair)
    return pair[1]


async def run(
    uri: str, embedder: Any, dataset: QualitySet
) -> tuple[Scores, dict[str, dict[str, int]]]:
    run_id = uuid.uuid4().hex[:8]
    users = {world: f"bench-quality-{world}-{run_id}" for world in dataset.worlds}
    db = common.driver(uri)
    scores: Scores = defaultdict(lambda: defaultdict(list))
    wins: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    async with common.in_process_client(uri, embedder) as client:
        started = time.perf_counter()
        ids = await store(client, dataset, users)
        common.log(f"stored {len(ids)} memories in {time.perf_counter() - started:.1f}s")
        common.log(f"vector index options: {common.vector_index_options(db)}")
        for query in dataset.queries:
            user_id = users[query.world]
            relevant = {ids[key] for key in query.relevant}
            [vector] = common.encode_now(embedder, [query.text], "query")
            lucene = pipeline.lucene_query(query.text, user_id, "main")
            ranked = {
                "vector": [i for i, _ in common.raw_vector(db, user_id, vector, TOP_K)],
                "fulltext": [
                    i for i, _ in common.raw_fulltext(db, user_id, lucene, FULLTEXT_FETCH)
                ][:TOP_K],
            }
            response = await client.post(
                "/v1/memories/search",
                json={"query": query.text, "top_k": TOP_K, "min_score": 0},
                headers=common.master_headers(user_id),
            )
            assert response.status_code == 200, await response.get_data(as_text=True)
            ranked["hybrid"] = [row["memory_id"] for row in await response.get_json()]
            rr = {m: score(scores, m, query.style, ranked[m], relevant) for m in METHODS}
            best = max(rr.values())
            for method in METHODS:
                wins[query.style][method] += best > 0 and rr[method] == best
            wins[query.style]["nobody"] += best == 0
    db.close()
    return scores, wins


def mean(pairs: list[tuple[float, float]], index: int) -> float:
    return sum(pair[index] for pair in pairs) / len(pairs) if pairs else float("nan")


def overall(scores: Scores) -> dict[str, tuple[float, float]]:
    """recall@5 and MRR@10 of each method over every query."""
    return {m: (mean(scores[m]["all"], 0), mean(scores[m]["all"], 1)) for m in METHODS}


def report(dataset: QualitySet, scores: Scores, wins: dict[str, dict[str, int]]) -> None:
    print(
        f"\nRetrieval quality: {len(dataset.memories)} memories in {len(dataset.worlds)} users' "
        f"worlds, {len(dataset.queries)} queries"
    )
    print(common.code_state())
    figures = overall(scores)
    print(
        common.table(
            "Overall",
            ["method", "recall@5", "MRR@10"],
            [[method, *figures[method]] for method in METHODS],
        )
    )
    styles = [style for style in STYLES if scores["hybrid"][style]]
    rows = []
    for style in styles:
        row: list[object] = [style, len(scores["hybrid"][style])]
        for method in METHODS:
            row += [mean(scores[method][style], 0), mean(scores[method][style], 1)]
        rows.append(row)
    print(
        common.table(
            "By query style (recall@5 / MRR@10)",
            ["style", "n", "vec R@5", "vec MRR", "ft R@5", "ft MRR", "hyb R@5", "hyb MRR"],
            rows,
        )
    )
    print(
        common.table(
            "Best MRR@10 per query (a tie counts for each; 'nobody': no method found one)",
            ["style", "vector", "fulltext", "hybrid", "nobody"],
            [[style, *(wins[style][m] for m in (*METHODS, "nobody"))] for style in styles],
        )
    )
    targets = []
    for metric, index in (("recall@5", 0), ("MRR@10", 1)):
        for other in ("vector", "fulltext"):
            ratio = figures["hybrid"][index] / figures[other][index]
            targets.append(
                [f"hybrid / {other} {metric}", ratio, "> 1", common.verdict(ratio, 1.0 + 1e-9)]
            )
    print(
        common.table(
            "Target: hybrid beats both on both metrics",
            ["ratio", "value", "target", "status"],
            targets,
        )
    )


def main() -> None:
    dataset = build()
    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database(heap="2g", pagecache="1g") as database:
        scores, wins = asyncio.run(run(database.uri, embedder, dataset))
    report(dataset, scores, wins)


if __name__ == "__main__":
    main()
