"""Re-embedding after a model change: every memory encoded again, resumably, index recreated."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.registry import Registry
from app.services import reembed
from tests.conftest import User
from tests.support.memories import correct, store_batch
from tests.support.neo4j_direct import query
from tests.support.snapshots import take_snapshot

pytestmark = pytest.mark.drops_plans


class Interrupted(Exception):
    pass


async def _stale(driver: AsyncDriver, user_id: str) -> list[dict[str, object]]:
    return await query(
        driver,
        "MATCH (m:Memory {user_id: $user_id}) WHERE m.embedding_model = 'old-model:3' "
        "RETURN m.memory_id AS memory_id",
        user_id=user_id,
    )


async def test_reembed_resumes_and_recreates_the_index(
    client: TestClientProtocol, user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    texts = ["Hedgehogs hibernate in winter", "Otters hold hands", "Owls hunt at night"]
    stored = await store_batch(client, user.headers, [{"content": text} for text in texts])
    assert len(stored) == 3
    # As if another model had embedded them: a different model id and a useless vector.
    await query(
        neo4j_driver,
        "MATCH (m:Memory {user_id: $user_id}) "
        "SET m.embedding_model = 'old-model:3', m.embedding = [0.0, 0.0, 1.0]",
        user_id=user.user_id,
    )

    totals: list[int] = []

    def stop_after_first_batch(done: int, total: int) -> None:
        assert done == 2
        totals.append(total)  # every node another model embedded (other tests' too)
        raise Interrupted

    with pytest.raises(Interrupted):
        await reembed.reembed(registry, stop_after_first_batch, batch=2)

    seen: list[tuple[int, int]] = []
    resumed = await reembed.reembed(registry, lambda done, total: seen.append((done, total)))
    assert resumed == totals[0] - 2  # the first batch had committed
    assert seen[-1] == (resumed, resumed)
    assert await _stale(neo4j_driver, user.user_id) == []
    [index] = await query(
        neo4j_driver,
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'memory_embedding' "
        "RETURN options.indexConfig.`vector.dimensions` AS dimensions",
    )
    assert index["dimensions"] == registry.embedder.dimensions

    # The re-encoded memories are found by meaning again.
    response = await client.post(
        "/v1/memories/retrieve",
        json={"query": "which animal hunts in the dark?", "top_k": 1, "graph": False},
        headers=user.headers,
    )
    assert (await response.get_json())[0]["content"] == "Owls hunt at night"


async def test_reembed_recreates_the_index_of_past_versions_for_retrieval_as_of_a_moment(
    client: TestClientProtocol, user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    texts = ["Hedgehogs hibernate in winter", "Otters hold hands", "Owls hunt at night"]
    *_, owls = await store_batch(client, user.headers, [{"content": text} for text in texts])
    await take_snapshot(client, user.headers, "owls-at-night")
    await correct(client, user.headers, owls["memory_id"], "Owls nest in old barns")
    # As if another model had embedded every node, the past version of the owls' note too.
    await query(
        neo4j_driver,
        "MATCH (m) WHERE (m:Memory OR m:MemoryVersion) AND m.user_id = $user_id "
        "SET m.embedding_model = 'old-model:3', m.embedding = [0.0, 0.0, 1.0]",
        user_id=user.user_id,
    )
    await reembed.reembed(registry, lambda done, total: None)
    indexes = await query(
        neo4j_driver,
        "SHOW VECTOR INDEXES YIELD name, options "
        "RETURN name, options.indexConfig.`vector.dimensions` AS dimensions ORDER BY name",
    )
    assert indexes == [
        {"name": name, "dimensions": registry.embedder.dimensions}
        for name in ("memory_embedding", "memory_version_embedding")
    ]
    # The past version, re-encoded, is found by meaning as of the snapshot.
    response = await client.post(
        "/v1/memories/retrieve",
        json={
            "query": "which animal hunts in the dark?",
            "top_k": 1,
            "graph": False,
            "as_of": "owls-at-night",
        },
        headers=user.headers,
    )
    assert (await response.get_json())[0]["content"] == "Owls hunt at night"
