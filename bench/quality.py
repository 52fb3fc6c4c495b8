"""The quality command: every quality dataset in one run with the configured embedder, one
summary table, and JSON to compare commits and models.

Datasets (`--datasets`, all by default):
- `locomo`, `beam`: LoCoMo's development half and BEAM's development set (bench/datasets.py),
  data no one here wrote. One user per conversation, one memory per turn or message, stored
  through the service's batch-store use case with the embedder's own document vectors (kept
  by bench/embedding_cache.py, so that a rerun does not encode hours of text again); every
  question asked with POST /v1/memories/retrieve {query, top_k 10, and reference_time where
  the dataset dates its questions}. In the same run on the same texts: Okapi BM25, dense
  cosine with the same model, their reciprocal-rank fusion (k 60) and a convex combination of
  min-max normalised scores (0.3 BM25, 0.7 dense) (bench/baselines.py). Recall@5, recall@10
  (the share of a question's evidence in the top k), all@10 and MRR@10, overall and per
  category.
- `memoria`: the reference system's seven scenario sets, scored as its runner scores them
  (bench/memoria_sets.py).
- `graph`: bench/graph_retrieval.py, fully right with the graph stage.
- `scenarios`: bench/scenarios.py, the share of assertions that hold.
- `labelled`: bench/retrieval_quality.py, hybrid recall@5 and MRR@10 against each half.

`--capture DIR` also keeps, for every LoCoMo and BEAM question, what the ranking saw (the
candidates and their signals, bench/replay.py), so that ranking settings can be tried offline
in seconds and chosen by bench/fit_ranking.py with one dataset held out at a time.

    .venv/bin/python bench/quality.py                                # own throwaway Neo4j
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/quality.py --reuse
    .venv/bin/python bench/quality.py --model multilingual-e5-small --json var/q-e5.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import baselines
import common
import datasets
import embedding_cache
import numpy as np

ALL = ("locomo", "beam", "memoria", "graph", "scenarios", "labelled")
CONVERSATIONS = ("locomo", "beam")
TOP_K = 10
BATCH = 100
METHODS = ("service", "bm25", "dense", "rrf", "convex")
BASELINES = METHODS[1:]
METRICS = ("recall@5", "recall@10", "all@10", "MRR@10")


# ---------------------------------------------------------------------------------------------
# Figures (pure)


def metrics(ranked: Sequence[str], evidence: frozenset[str]) -> dict[str, float]:
    top = ranked[:TOP_K]
    first = next((rank for rank, key in enumerate(top, start=1) if key in evidence), None)
    return {
        "recall@5": len(evidence & set(ranked[:5])) / len(evidence),
        "recall@10": len(evidence & set(top)) / len(evidence),
        "all@10": float(evidence <= set(top)),
        "MRR@10": 1.0 / first if first else 0.0,
    }


def averaged(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    return {name: sum(row[name] for row in rows) / len(rows) for name in METRICS} if rows else {}


@dataclass(frozen=True)
class Asked:
    category: str
    figures: dict[str, dict[str, float]]  # per method


def summarise(asked: Sequence[Asked], categories: Sequence[str]) -> dict[str, Any]:
    """Per method: its figures overall and per category."""
    result: dict[str, Any] = {"questions": len(asked), "methods": {}}
    for method in METHODS:
        by_category = {
            category: averaged([a.figures[method] for a in asked if a.category == category])
            for category in categories
        }
        result["methods"][method] = {
            "overall": averaged([a.figures[method] for a in asked]),
            "by_category": {name: figures for name, figures in by_category.items() if figures},
        }
    result["counts"] = {c: sum(a.category == c for a in asked) for c in categories}
    return result


# ---------------------------------------------------------------------------------------------
# LoCoMo and BEAM


def user_of(dataset: str, owner: str, tag: str) -> str:
    return f"bench-{dataset}-{owner}-{tag}"


async def ingest(
    uri: str, embedder: Any, data: datasets.Dataset, vectors: np.ndarray, tag: str, reuse: bool
) -> None:
    """Stores each conversation as its user through the batch-store use case (the memories the
    API would store: same texts, same model's vectors), unless `reuse` finds it stored."""
    from app.embedding import Embedder
    from app.graph import Graph
    from app.models.memories import NewMemory
    from app.ratelimit import RateLimiter
    from app.registry import Registry
    from app.services import memories
    from app.services.scope import Caller

    by_text = {m.content: v.tolist() for m, v in zip(data.memories, vectors, strict=True)}
    backend = common.PresetBackend(embedder.model_id, embedder.dimensions, by_text)
    graph = Graph.connect(uri, "", "", "neo4j")
    registry = Registry(
        settings=common.settings(uri),
        graph=graph,
        embedder=Embedder(backend, cache_size=0),
        limiter=RateLimiter(enabled=False),
        instance_id="bench-quality",
    )
    db = common.driver(uri)
    try:
        for owner in data.owners():
            user_id = user_of(data.name, owner, tag)
            items = [m for m in data.memories if m.owner == owner]
            [row] = db.execute_query(
                "MATCH (m:Memory {user_id: $user_id, branch: 'main'}) RETURN count(m) AS n",
                user_id=user_id,
            )[0]
            # A conversation may say the same thing twice: the service keeps one memory of it.
            distinct = len({item.content for item in items})
            if reuse and row["n"] == distinct:
                continue
            if row["n"]:
                raise SystemExit(f"{user_id} holds {row['n']} memories, not {distinct}")
            started = time.perf_counter()
            for start in range(0, len(items), BATCH):
                chunk = items[start : start + BATCH]
                batch = [
                    NewMemory(
                        content=item.content,
                        session_id=item.session_id,
                        observed_at=datetime.fromisoformat(item.observed_at),
                        extra_metadata={"key": item.key},
                    )
                    for item in chunk
                ]
                await memories.store_batch(registry, Caller(user_id), batch, None)
            elapsed = time.perf_counter() - started
            common.log(f"{data.name} {owner}: stored {len(items)} memories in {elapsed:.1f}s")
    finally:
        db.close()
        await graph.close()


async def conversational(
    name: str,
    uri: str,
    embedder: Any,
    tag: str,
    reuse: bool,
    capture: Path | None,
    conversations: int | None = None,
) -> dict[str, Any]:
    from app.services.retrieval.query_text import LUCENE_STOP_WORDS, words

    data = datasets.load(name, conversations)
    texts = [m.content for m in data.memories]
    vectors = await embedding_cache.document_vectors(embedder, name, texts)
    await ingest(uri, embedder, data, vectors, tag, reuse)
    recorder = None
    if capture is not None:
        import replay

        from app.registry import Registry

        registry = Registry.build(common.settings(uri), embedder)
        recorder = replay.Recorder(capture / f"{name}.pkl", name, registry)
    asked: list[Asked] = []
    started = time.perf_counter()
    async with common.in_process_client(uri, embedder) as client:
        for owner in data.owners():
            user_id = user_of(name, owner, tag)
            mine = [i for i, m in enumerate(data.memories) if m.owner == owner]
            keys = [data.memories[i].key for i in mine]
            matrix = vectors[mine]
            bm25 = baselines.Bm25(
                {
                    data.memories[i].key: [
                        w for w in words(data.memories[i].content) if w not in LUCENE_STOP_WORDS
                    ]
                    for i in mine
                }
            )
            for question in (q for q in data.questions if q.owner == owner):
                # Asked when the dataset says it was (relative times such as "last week" are
                # read from then), not today.
                body: dict[str, object] = {"query": question.text, "top_k": TOP_K}
                if question.asked_at is not None:
                    body["reference_time"] = question.asked_at
                response = await client.post(
                    "/v1/memories/retrieve", json=body, headers=common.master_headers(user_id)
                )
                assert response.status_code == 200, await response.get_data(as_text=True)
                service = [str(r["extra_metadata"].get("key")) for r in await response.get_json()]
                query_words = [w for w in words(question.text) if w not in LUCENE_STOP_WORDS]
                query_vector = await embedder.encode_query(question.text)
                orders = {
                    "service": service,
                    **baselines.rankings(bm25, query_words, keys, matrix, query_vector),
                }
                figures = {
                    method: metrics(order, question.evidence) for method, order in orders.items()
                }
                asked.append(Asked(question.category, figures))
                if recorder is not None:
                    await recorder.record(
                        user_id, question.text, question.category, question.evidence, service
                    )
    common.log(f"{name}: asked {len(asked)} questions in {time.perf_counter() - started:.1f}s")
    if recorder is not None:
        recorder.save()
        await recorder.registry.graph.close()
    return summarise(asked, data.categories)


# ---------------------------------------------------------------------------------------------
# The other datasets


async def memoria(uri: str, embedder: Any, capture: Path | None) -> dict[str, Any]:
    import memoria_sets
    import replay

    with replay.Tap() as tap:
        async with common.in_process_client(uri, embedder) as client:
            found = await memoria_sets.run(client)
    if capture is not None:
        replay.save(
            capture / "memoria.pkl", {"executions": found["executions"], "calls": tap.calls}
        )
    return {
        "macro": found["macro"],
        "sets": {name: report["overall_score"] for name, report in found["sets"].items()},
    }


async def graph(uri: str, embedder: Any, capture: Path | None) -> dict[str, Any]:
    import graph_retrieval
    import replay

    with replay.Tap() as tap:
        outcomes = [o for o in await graph_retrieval.run(uri, embedder) if o.mode == "with graph"]
    if capture is not None:
        replay.save(capture / "graph.pkl", {"outcomes": outcomes, "calls": tap.calls})
    recall, fully, excluded = graph_retrieval.figures(outcomes)
    return {"fully_right": fully, "recall": recall, "excluded_hit": excluded}


async def scenario_set(uri: str, embedder: Any, capture: Path | None) -> dict[str, Any]:
    import replay
    import scenarios

    chosen, errors = scenarios.load()
    assert not errors, errors
    with replay.Tap() as tap:
        assertions = await scenarios.run(uri, embedder, chosen, False)
    if capture is not None:
        replay.save(capture / "scenarios.pkl", {"assertions": assertions, "calls": tap.calls})
    by_category: dict[str, list[bool]] = defaultdict(list)
    for assertion in assertions:
        by_category[assertion.scenario.category].append(assertion.passed)
    return {
        "overall": scenarios.rate(assertions),
        "by_category": {c: sum(v) / len(v) for c, v in by_category.items()},
    }


async def labelled(uri: str, embedder: Any) -> dict[str, Any]:
    import retrieval_quality
    from data.quality_set import build

    scores, _ = await retrieval_quality.run(uri, embedder, build())
    figures = retrieval_quality.overall(scores)
    return {m: {"recall@5": r5, "MRR@10": mrr} for m, (r5, mrr) in figures.items()}


# ---------------------------------------------------------------------------------------------
# Report


def best_baseline(figures: dict[str, Any], category: str | None = None) -> tuple[str, float]:
    def value(method: str) -> float:
        found = figures["methods"][method]
        row = found["overall"] if category is None else found["by_category"].get(category, {})
        return float(row.get("recall@10", float("nan")))

    name = max(BASELINES, key=value)
    return name, value(name)


def summary_rows(results: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for name in CONVERSATIONS:
        if name not in results:
            continue
        found = results[name]
        service = found["methods"]["service"]["overall"]["recall@10"]
        best, value = best_baseline(found)
        worst = min(
            (
                found["methods"]["service"]["by_category"][c]["recall@10"]
                - best_baseline(found, c)[1],
                c,
            )
            for c in found["methods"]["service"]["by_category"]
        )
        rows.append(
            [
                f"{name} recall@10",
                service,
                f"{best} {value:.3f}",
                service - value,
                f"{worst[1]} {worst[0]:+.3f}",
            ]
        )
    if "memoria" in results:
        sets = results["memoria"]["sets"]
        low = min(sets, key=sets.get)
        rows.append(
            ["memoria macro", results["memoria"]["macro"], "", "", f"{low} {sets[low]:.1f}"]
        )
    if "graph" in results:
        rows.append(["graph fully right", results["graph"]["fully_right"], "", "", ""])
    if "scenarios" in results:
        by = results["scenarios"]["by_category"]
        low = min(by, key=by.get)
        rows.append(["scenarios", results["scenarios"]["overall"], "", "", f"{low} {by[low]:.3f}"])
    if "labelled" in results:
        found = results["labelled"]
        hybrid = found["hybrid"]["recall@5"]
        best_half = max(found["vector"]["recall@5"], found["fulltext"]["recall@5"])
        rows.append(["labelled recall@5", hybrid, f"half {best_half:.3f}", hybrid - best_half, ""])
    return rows


def report(results: dict[str, Any]) -> None:
    for name in CONVERSATIONS:
        if name not in results:
            continue
        found = results[name]
        categories = list(found["counts"])
        rows = []
        for method in METHODS:
            row: list[Any] = [method, found["methods"][method]["overall"].get("recall@10")]
            for category in categories:
                row.append(
                    found["methods"][method]["by_category"].get(category, {}).get("recall@10")
                )
            rows.append(row)
        headers = ["method", "overall", *(f"{c[:14]} ({found['counts'][c]})" for c in categories)]
        print(common.table(f"{name}: recall@10, {found['questions']} questions", headers, rows))
        rows = [
            [method, *(found["methods"][method]["overall"][m] for m in METRICS)]
            for method in METHODS
        ]
        print(common.table(f"{name}: overall", ["method", *METRICS], rows))
    print(
        common.table(
            f"Summary ({results['model']})",
            ["dataset", "service", "best baseline", "service - best", "weakest part"],
            summary_rows(results),
        )
    )
    print(common.code_state())


async def run(args: argparse.Namespace, uri: str) -> dict[str, Any]:
    embedder = common.embedder()
    await embedder.start()
    tag = "reuse" if args.reuse else datetime.now(UTC).strftime("%H%M%S")
    tag = f"{embedder.model_id.split(':')[0].replace('+', '-')}-{tag}".lower()
    results: dict[str, Any] = {
        "model": embedder.model_id,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": common.code_state(),
    }
    capture = Path(args.capture) if args.capture else None
    for name in args.datasets:
        started = time.perf_counter()
        if name in CONVERSATIONS:
            results[name] = await conversational(
                name, uri, embedder, tag, args.reuse, capture, args.conversations
            )
        elif name == "memoria":
            results[name] = await memoria(uri, embedder, capture)
        elif name == "graph":
            results[name] = await graph(uri, embedder, capture)
        elif name == "scenarios":
            results[name] = await scenario_set(uri, embedder, capture)
        elif name == "labelled":
            results[name] = await labelled(uri, embedder)
        common.log(f"{name} done in {time.perf_counter() - started:.0f}s")
    await embedder.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="EMBEDDING_MODEL for this run (default: the configured)")
    parser.add_argument("--datasets", default=",".join(ALL), help=f"of {', '.join(ALL)}")
    parser.add_argument("--reuse", action="store_true", help="keep LoCoMo/BEAM users (NEO4J_URI)")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--capture", help="keep what the ranking saw, per question, here")
    parser.add_argument(
        "--conversations",
        type=int,
        help="only the first N conversations of LoCoMo and BEAM (a model whose vectors of the "
        "whole set are not cached yet is compared with another on the same part)",
    )
    args = parser.parse_args()
    args.datasets = [name for name in args.datasets.split(",") if name]
    unknown = set(args.datasets) - set(ALL)
    if unknown:
        raise SystemExit(f"unknown datasets: {', '.join(sorted(unknown))}")
    if args.model:
        os.environ["EMBEDDING_MODEL"] = args.model
    if args.capture:
        Path(args.capture).mkdir(parents=True, exist_ok=True)
    with common.neo4j_database(heap="2g", pagecache="2g") as database:
        if args.reuse and database.owned:
            common.log("--reuse needs NEO4J_URI: a throwaway database keeps nothing")
        results = asyncio.run(run(args, database.uri))
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
