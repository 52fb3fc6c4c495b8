"""The quality gate: hybrid search's recall@5 on the labelled set (bench/data/quality_set.py,
four users' worlds, 1,018 memories, 160 queries) may not fall below the figure recorded there.
Computed on the suite's database with the real model; no time is measured."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import create_user

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from data import quality_set

BATCH = 100

pytestmark = pytest.mark.slow(2)


def recall_at_5(ranked: list[str], relevant: set[str]) -> float:
    return len(relevant.intersection(ranked[:5])) / min(len(relevant), 5)


async def test_hybrid_recall_at_5_holds_the_recorded_figure(client: TestClientProtocol) -> None:
    labelled = quality_set.build()
    users = {world: await create_user(client, f"quality-{world}") for world in labelled.worlds}
    ids: dict[str, str] = {}
    for world, user in users.items():
        memories = [m for m in labelled.memories if m.world == world]
        for start in range(0, len(memories), BATCH):
            chunk = memories[start : start + BATCH]
            body = {
                "memories": [{"content": m.content, "memory_type": m.memory_type} for m in chunk]
            }
            response = await client.post("/v1/memories/batch", json=body, headers=user.headers)
            assert response.status_code == 201, await response.get_data(as_text=True)
            stored = await response.get_json()
            ids.update({m.key: row["memory_id"] for m, row in zip(chunk, stored, strict=True)})

    recalls = []
    for query in labelled.queries:
        response = await client.post(
            "/v1/memories/search",
            json={"query": query.text, "top_k": 10, "min_score": 0},
            headers=users[query.world].headers,
        )
        assert response.status_code == 200, await response.get_data(as_text=True)
        ranked = [row["memory_id"] for row in await response.get_json()]
        recalls.append(recall_at_5(ranked, {ids[key] for key in query.relevant}))

    recall = sum(recalls) / len(recalls)
    assert recall >= quality_set.RECORDED_HYBRID_RECALL_AT_5, (
        f"hybrid recall@5 {recall:.3f} fell below the recorded "
        f"{quality_set.RECORDED_HYBRID_RECALL_AT_5:.3f} (bench/retrieval_quality.py shows where)"
    )
