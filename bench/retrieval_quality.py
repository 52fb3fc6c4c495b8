"""Retrieval quality: recall@5 and MRR@10 of vector-only, full-text-only and hybrid retrieval.

Stores the labelled set (bench/data/quality_set.py: four users' worlds, 1,018 memories,
160 queries) through the real service (create_app with the real embedder, POST
/v1/memories/batch as the master key with X-User-Id), then asks every query three ways:

- vector only: the memory_embedding vector index through raw Cypher, top 10 for the user;
- full-text only: db.index.fulltext.queryNodes('memory_content') with the lucene string the
  service builds (app.services.retrieval.pipeline.lucene_query), limit 50, filtered by user, top 10;
- hybrid: the service's POST /v1/memories/search with top_k 10 and min_score 0.

Target: hybrid beats both on both metrics. Figures are reported, not asserted.

It also replays the service's fusion offline (app.services.retrieval.ranking.relevances itself,
on the first stage's own candidate lists with every candidate's cosine) with other fusion
settings, stop words dropped from the full-text half's query, the fusion before issue 42 and
reciprocal rank fusion, so that a suggested change comes with numbers. The 'same' column says
how many queries each replay answers exactly as the service did: the replay of the service's
own settings should be at or near all of them.

    .venv/bin/python bench/retrieval_quality.py            # own throwaway Neo4j
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/retrieval_quality.py
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import common
from data.quality_set import STOPWORDS, STYLES, QualitySet, build

from app.services.retrieval import pipeline, ranking
from app.services.retrieval.config import DEFAULT, Fusion
from app.services.retrieval.query_text import LUCENE_STOP_WORDS, content_words, coverage, words

METHODS = ("vector", "fulltext", "hybrid")
BATCH = 100
TOP_K = 10
FULLTEXT_FETCH = 50
# What the service fetches per half for top_k 10 (config.Candidates).
CANDIDATES = DEFAULT.candidates.wanted(TOP_K)
TEXT_CANDIDATES = DEFAULT.candidates.text_wanted(TOP_K)  # the full-text half's
LUCENE_STOP = LUCENE_STOP_WORDS  # Lucene's default English stop set, as the service uses it
# A broader list of function words (question words, pronouns, auxiliaries).
BROAD_STOP = LUCENE_STOP | STOPWORDS


@dataclass(frozen=True)
class Variant:
    name: str
    # The service's fusion with these settings (ranking.relevances); None: reciprocal rank
    # fusion; "engine": the fusion before issue 42 (the engine's text score normalised by the
    # best, times the query's words covered, only for full-text hits; vector hits only have a
    # cosine).
    fusion: Fusion | str | None
    lexical: str = "all"  # the full-text half's words: see lexical_text()


def lexical_text(text: str, how: str) -> str:
    """The words the full-text half searches for: all of them (as the service does), or the
    query minus a stop list (a chunk goes when all its words are stop words)."""
    if how == "all":
        return text
    stop = LUCENE_STOP if how == "lucene_stop" else BROAD_STOP
    return " ".join(
        chunk
        for chunk in text.split()
        if not all(word in stop for word in re.findall(r"\w+", chunk.lower()))
    )


def variants() -> list[Variant]:
    service = DEFAULT.fusion
    return [
        Variant("the service (config.DEFAULT.fusion)", service),
        *(
            Variant(f"vector_weight {weight}", replace(service, vector_weight=weight))
            for weight in (0.4, 0.7, 0.85)
        ),
        *(
            Variant(f"text_rank_share {share}", replace(service, text_rank_share=share))
            for share in (0.0, 0.6)
        ),
        Variant("the service, minus broad stop list", service, "broad_stop"),
        Variant("before issue 42: 0.7/0.3 engine score x coverage", "engine"),
        Variant("RRF k=60, all query words", None),
        Variant("RRF k=60, minus broad stop list", None, "broad_stop"),
    ]


VARIANTS = variants()
RRF_K = 60


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(relevant.intersection(ranked[:k])) / min(len(relevant), k)


def reciprocal_rank(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    for position, memory_id in enumerate(ranked[:k], start=1):
        if memory_id in relevant:
            return 1.0 / position
    return 0.0


def fuse(
    vector: list[tuple[str, float]],
    text: list[tuple[str, float]],
    similarity: dict[str, float],
    variant: Variant,
    query: str,
    contents: dict[str, str],
) -> list[str]:
    """The second stage replayed offline on first-stage lists (`similarity`: every
    candidate's cosine score, 0..1, as the first stage gives it).

    With a Fusion, app.services.retrieval.ranking.relevances itself on these candidates (the
    other factors are equal here: every memory is fresh, T1, without feedback, and /search has
    no session boost); ties by memory_id.
    """
    if variant.fusion is None:
        fused: dict[str, float] = defaultdict(float)
        for hits in (vector, text):
            for position, (memory_id, _) in enumerate(hits, start=1):
                fused[memory_id] += 1.0 / (RRF_K + position)
        return sorted(fused, key=lambda memory_id: (-fused[memory_id], memory_id))[:TOP_K]
    vector_scores, text_scores = dict(vector), dict(text)
    scores: dict[str, float] = {}
    if isinstance(variant.fusion, Fusion):
        ranks = pipeline.text_ranks(
            [{"memory": {"memory_id": key}, "text_score": value} for key, value in text]
        )
        candidates = [
            ranking.Candidate(
                memory_id=memory_id,
                cosine=ranking.cosine(similarity[memory_id]),
                words=frozenset(words(contents[memory_id])),
                confidence=1.0,
                age_days=0.0,
                same_session=False,
                text_rank=ranks.get(memory_id),
            )
            for memory_id in dict.fromkeys([*vector_scores, *text_scores])
        ]
        scores = ranking.relevances(candidates, content_words(query), variant.fusion)
    else:
        best_text = max(text_scores.values(), default=0.0)
        for memory_id in dict.fromkeys([*vector_scores, *text_scores]):
            cosine = 2 * vector_scores[memory_id] - 1 if memory_id in vector_scores else 0.0
            text_part = text_scores.get(memory_id, 0.0) / best_text if best_text > 0 else 0.0
            if text_part:
                text_part *= coverage(content_words(query, LUCENE_STOP), contents[memory_id])
            scores[memory_id] = 0.7 * max(0.0, cosine) + 0.3 * text_part
    return sorted(scores, key=lambda memory_id: (-scores[memory_id], memory_id))[:TOP_K]


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


async def run(uri: str, embedder: Any, dataset: QualitySet) -> None:
    run_id = uuid.uuid4().hex[:8]
    users = {world: f"bench-quality-{world}-{run_id}" for world in dataset.worlds}
    db = common.driver(uri)
    scores: Scores = defaultdict(lambda: defaultdict(list))
    wins: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    same_as_service: dict[str, int] = defaultdict(int)
    async with common.in_process_client(uri, embedder) as client:
        started = time.perf_counter()
        ids = await store(client, dataset, users)
        contents = {ids[m.key]: m.content for m in dataset.memories}
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
            # The fusion replayed on the first stage's own lists, with variant settings.
            vector_hits = common.raw_vector(db, user_id, vector, CANDIDATES)
            text_hits: dict[str, list[tuple[str, float]]] = {}
            for variant in VARIANTS:
                if variant.lexical not in text_hits:
                    words = lexical_text(query.text, variant.lexical)
                    text_hits[variant.lexical] = common.raw_fulltext(
                        db, user_id, pipeline.lucene_query(words, user_id, "main"), TEXT_CANDIDATES
                    )
                hits = text_hits[variant.lexical]
                similarity = common.similarities(
                    db, user_id, vector, [memory_id for memory_id, _ in vector_hits + hits]
                )
                fused = fuse(vector_hits, hits, similarity, variant, query.text, contents)
                score(scores, variant.name, query.style, fused, relevant)
                same_as_service[variant.name] += fused == ranked["hybrid"]
    db.close()
    report(dataset, scores, wins, same_as_service)


def mean(pairs: list[tuple[float, float]], index: int) -> float:
    return sum(pair[index] for pair in pairs) / len(pairs) if pairs else float("nan")


def report(
    dataset: QualitySet,
    scores: Scores,
    wins: dict[str, dict[str, int]],
    same_as_service: dict[str, int],
) -> None:
    print(
        f"\nRetrieval quality: {len(dataset.memories)} memories in {len(dataset.worlds)} users' "
        f"worlds, {len(dataset.queries)} queries"
    )
    print(common.code_state())
    overall = {m: (mean(scores[m]["all"], 0), mean(scores[m]["all"], 1)) for m in METHODS}
    print(
        common.table(
            "Overall",
            ["method", "recall@5", "MRR@10"],
            [[method, *overall[method]] for method in METHODS],
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
            ratio = overall["hybrid"][index] / overall[other][index]
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
    rows = []
    for variant in VARIANTS:
        name = variant.name
        row = [name, mean(scores[name]["all"], 0), mean(scores[name]["all"], 1)]
        row += [mean(scores[name][style], 0) for style in styles]
        rows.append([*row, same_as_service[name]])
    print(
        common.table(
            f"Fusion replayed offline on the first stage's own lists ({CANDIDATES} vector + "
            f"{TEXT_CANDIDATES} text candidates); 'same' = queries whose top 10 equals the "
            "service's",
            [
                "variant",
                "R@5",
                "MRR@10",
                *(f"{style[:5]} R@5" for style in styles),
                f"same/{len(dataset.queries)}",
            ],
            rows,
        )
    )


def main() -> None:
    dataset = build()
    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database(heap="2g", pagecache="1g") as database:
        asyncio.run(run(database.uri, embedder, dataset))


if __name__ == "__main__":
    main()
