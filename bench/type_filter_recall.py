"""Recall of retrieve with a rare `memory_types` filter: one user's 10,000 memories, 1 % of them
`procedural`; 40 questions ask for procedures.

For each question, the exact answer is the 10 procedural memories nearest to it by cosine
(computed here from the same embeddings). Reported, as recall@10 against that:

- the service: POST /v1/memories/retrieve with memory_types ["procedural"], top_k 10 (the type
  is filtered inside the vector index, one search per type, and on the full-text half);
- the first stage's vector half alone: the vector index's 10 nearest with the type inside
  the index's filter (what the service's hybrid ranking then reorders with the full-text
  half, confidence and the graph, so its top 10 is not cosine's by design);
- filtering after the search (how the first stage worked before): the vector index's nearest
  `retrieval` fetch size x the old filter factor for the user, then the type kept.

    .venv/bin/python bench/type_filter_recall.py            # own throwaway Neo4j
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from typing import Any

import common
import numpy as np

from app.services.retrieval.config import DEFAULT

USERS_MEMORIES = 10_000
RARE_SHARE = 0.01
TOP_K = 10
BATCH = 100
QUESTIONS = 40
OLD_FILTER_FACTOR = 4  # what the first stage fetched more when a type was asked for
TYPED_VECTOR_QUERY = """CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (
    VECTOR INDEX memory_embedding
    FOR $vector
    WHERE m.user_id = $user_id AND m.branch = 'main' AND m.is_active = true
      AND m.memory_type = $memory_type
    LIMIT $k
  ) SCORE AS score
RETURN m.memory_id AS memory_id"""
SUBJECTS = [
    "the invoice service", "the billing database", "the login page", "the mobile app",
    "the search cluster", "the payment gateway", "the CI pipeline", "the data warehouse",
    "the email worker", "the feature flags", "the staging cluster", "the audit log",
    "支付服务", "订单系统", "用户中心", "日志平台", "推荐引擎", "消息队列", "报表系统", "风控模型",
]  # fmt: skip
FACTS = [
    "{s} runs on version {n}.", "{s} was last changed by team {n}.",
    "{s} keeps {n} days of history.", "{s} answers in {n} milliseconds at p95.",
    "{s} is owned by squad {n}.", "{s} costs {n} dollars a month.",
    "{s} had incident INC-{n} last quarter.", "{s} is deployed in region eu-{n}.",
]  # fmt: skip
PROCEDURES = [
    "To restart {s}, drain traffic, run deploy step {n}, then check the dashboards.",
    "To roll back {s}, pick release {n} and run the rollback job.",
    "To rotate the secrets of {s}, open vault path {n} and redeploy.",
    "To scale {s}, raise the replica count to {n} and watch the queue.",
    "To debug {s}, enable trace level {n} and read the logs.",
]  # fmt: skip
ASKS = [
    "How do I restart {s}?", "What are the steps to roll back {s}?",
    "How can I rotate the credentials of {s}?", "How do I scale up {s}?",
    "How do I debug problems in {s}?",
]  # fmt: skip


def memories() -> list[dict[str, Any]]:
    """10,000 memories: facts (semantic) and, 1 % of them, procedures, over the same subjects."""
    rare = int(USERS_MEMORIES * RARE_SHARE)
    procedures = [
        {"content": template.format(s=subject, n=n), "memory_type": "procedural"}
        for n, (template, subject) in enumerate(
            itertools.islice(itertools.cycle(itertools.product(PROCEDURES, SUBJECTS)), rare)
        )
    ]
    facts = [
        {"content": template.format(s=subject, n=n), "memory_type": "semantic"}
        for n, (template, subject) in enumerate(
            itertools.islice(
                itertools.cycle(itertools.product(FACTS, SUBJECTS)), USERS_MEMORIES - rare
            )
        )
    ]
    return procedures + facts


async def main() -> None:
    embedder = common.embedder()
    items = memories()
    questions = [
        template.format(s=subject)
        for template, subject in itertools.islice(itertools.product(ASKS, SUBJECTS), QUESTIONS)
    ]
    with common.neo4j_database(heap="2g", pagecache="1g") as database:
        user_id = f"type-recall-{uuid.uuid4().hex[:8]}"
        headers = common.master_headers(user_id)
        async with common.in_process_client(database.uri, embedder) as client:
            started = time.perf_counter()
            stored: list[dict[str, Any]] = []
            for start in range(0, len(items), BATCH):
                response = await client.post(
                    "/v1/memories/batch",
                    json={"memories": items[start : start + BATCH]},
                    headers=headers,
                )
                assert response.status_code == 201, await response.get_data(as_text=True)
                stored.extend(await response.get_json())
            common.log(f"stored {len(stored)} memories in {time.perf_counter() - started:.0f} s")
            rare = [m for m in stored if m["memory_type"] == "procedural"]
            rare_vectors = np.array(await embedder.encode_documents([m["content"] for m in rare]))
            service_recall, typed_recall, after_recall = [], [], []
            db = common.driver(database.uri)
            wanted = DEFAULT.candidates.wanted(TOP_K)
            types = {m["memory_id"]: m["memory_type"] for m in stored}
            for question in questions:
                vector = np.array(await embedder.encode_query(question))
                nearest = np.argsort(-(rare_vectors @ vector))[:TOP_K]
                exact = {rare[i]["memory_id"] for i in nearest}
                response = await client.post(
                    "/v1/memories/retrieve",
                    json={"query": question, "top_k": TOP_K, "memory_types": ["procedural"]},
                    headers=headers,
                )
                found = await response.get_json()
                assert all(m["memory_type"] == "procedural" for m in found)
                service_recall.append(len(exact & {m["memory_id"] for m in found}) / TOP_K)
                typed, _, _ = db.execute_query(
                    TYPED_VECTOR_QUERY,
                    user_id=user_id,
                    vector=vector.tolist(),
                    memory_type="procedural",
                    k=TOP_K,
                )
                typed_recall.append(len(exact & {r["memory_id"] for r in typed}) / TOP_K)
                raw = common.raw_vector(db, user_id, vector.tolist(), wanted * OLD_FILTER_FACTOR)
                kept = [memory_id for memory_id, _ in raw if types[memory_id] == "procedural"]
                after_recall.append(len(exact & set(kept[:TOP_K])) / TOP_K)
            db.close()
    print(
        common.table(
            f"recall@{TOP_K} against exact cosine, a type that is {RARE_SHARE:.0%} of "
            f"{USERS_MEMORIES:,} memories ({QUESTIONS} questions)",
            ["method", "mean recall@10", "questions with all 10"],
            [
                [
                    "the service (type filtered inside the index)",
                    common.fmt(float(np.mean(service_recall))),
                    sum(r == 1.0 for r in service_recall),
                ],
                [
                    "the vector half alone, type inside the index (10 nearest)",
                    common.fmt(float(np.mean(typed_recall))),
                    sum(r == 1.0 for r in typed_recall),
                ],
                [
                    f"filter after the search ({wanted * OLD_FILTER_FACTOR} nearest)",
                    common.fmt(float(np.mean(after_recall))),
                    sum(r == 1.0 for r in after_recall),
                ],
            ],
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
