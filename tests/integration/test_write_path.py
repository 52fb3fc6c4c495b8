"""The versioned write path as the graph shows it: seq per change, versions, moved relationships."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.embedding import Embedder
from app.models.memories import StoreMemory
from app.registry import Registry
from app.services import memories
from app.services.retrieval.query_text import seq_text
from app.services.scope import Caller
from tests.conftest import User
from tests.support.embedders import SlowThenFailingBackend
from tests.support.memories import correct, store, store_batch
from tests.support.neo4j_direct import query


async def _seq(driver: AsyncDriver, user_id: str) -> int:
    [row] = await query(driver, "MATCH (u:User {id: $id}) RETURN u.seq AS seq", id=user_id)
    return int(row["seq"])


async def _nodes(driver: AsyncDriver, memory_id: str) -> list[dict[str, Any]]:
    """Every node (current or past) of one memory id, with its labels and relationships."""
    return await query(
        driver,
        """
        MATCH (n {memory_id: $id}) WHERE n:Memory OR n:MemoryVersion
        RETURN labels(n) AS labels, properties(n) AS props,
               [(n)-[r]->(t) | [type(r), coalesce(t.memory_id, t.id, t.key)]] AS outgoing,
               [(s)-[r]->(n) | [type(r), coalesce(s.memory_id, s.id)]] AS incoming
        ORDER BY n.created_seq
        """,
        id=memory_id,
    )


def _without_embedding(props: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in props.items() if key != "embedding"}


def _ended_at(version: dict[str, Any]) -> int:
    """The seq that ended a past version, checked against its text for the full-text index."""
    ended: int = version["props"]["ended_seq"]
    assert version["props"]["ended_seq_text"] == seq_text(ended)
    return ended


def _unended(version: dict[str, Any]) -> dict[str, Any]:
    """A past version's properties but the seq that ended it."""
    return {k: v for k, v in version["props"].items() if k not in ("ended_seq", "ended_seq_text")}


async def test_store_creates_a_current_node_at_the_next_seq(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    first = await store(client, user.headers, "Keeps bees in the garden", session_id="s1")
    seq = await _seq(neo4j_driver, user.user_id)
    [node] = await _nodes(neo4j_driver, first["memory_id"])
    assert node["labels"] == ["Memory"]
    assert node["props"]["created_seq"] == seq
    assert "ended_seq" not in node["props"]
    assert node["outgoing"] == [["IN_SESSION", "s1"]]  # the text names no entity

    # A batch is one change, whatever its size.
    batch = await store_batch(client, user.headers, [{"content": f"hive {i}"} for i in range(3)])
    assert await _seq(neo4j_driver, user.user_id) == seq + 1
    for memory in batch:
        [node] = await _nodes(neo4j_driver, memory["memory_id"])
        assert node["props"]["created_seq"] == seq + 1


async def test_correction_ends_the_old_node_which_keeps_its_links_as_history(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    old = await store(
        client,
        user.headers,
        "The meeting room is B12",
        session_id="office",
        extra_metadata={"floor": 1},
    )
    [before] = await _nodes(neo4j_driver, old["memory_id"])
    seq = await _seq(neo4j_driver, user.user_id)

    new = await correct(
        client, user.headers, old["memory_id"], "The meeting room is C7", reason="moved"
    )
    assert await _seq(neo4j_driver, user.user_id) == seq + 1

    # The pre-change node is now a past version, its properties untouched but for the seq that
    # ended it (and that seq as the full-text index of every version holds it).
    version, current_old = await _nodes(neo4j_driver, old["memory_id"])
    assert version["labels"] == ["MemoryVersion"]
    assert _ended_at(version) == seq + 1
    assert _without_embedding(_unended(version)) == _without_embedding(before["props"])
    # It keeps the links it had (they are part of that state); the correction links the
    # current node, not this one.
    assert sorted(version["outgoing"]) == [["IN_SESSION", "office"], ["MENTIONS", "b12"]]
    assert version["incoming"] == []

    # Its successor is current, inactive, superseded, created at the change, and has a copy of
    # its links plus the correction that supersedes it.
    assert current_old["labels"] == ["Memory"]
    assert current_old["props"]["created_seq"] == seq + 1
    assert current_old["props"]["is_active"] is False
    assert current_old["props"]["superseded_by"] == new["memory_id"]
    assert current_old["props"]["content"] == "The meeting room is B12"
    assert sorted(current_old["outgoing"]) == [["IN_SESSION", "office"], ["MENTIONS", "b12"]]
    assert current_old["incoming"] == [["SUPERSEDES", new["memory_id"]]]

    [replacement] = await _nodes(neo4j_driver, new["memory_id"])
    assert replacement["labels"] == ["Memory"]
    assert replacement["props"]["created_seq"] == seq + 1
    assert replacement["props"]["trust_tier"] == "T2"
    assert replacement["props"]["meta_floor"] == 1
    assert sorted(replacement["outgoing"]) == [
        ["IN_SESSION", "office"],
        ["MENTIONS", "c7"],
        ["SUPERSEDES", old["memory_id"]],
    ]


async def test_delete_is_one_change_that_keeps_history(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "Parks on level 3", session_id="garage")
    [before] = await _nodes(neo4j_driver, memory["memory_id"])
    seq = await _seq(neo4j_driver, user.user_id)

    response = await client.delete(
        f"/v1/memories/{memory['memory_id']}?reason=sold+the+car", headers=user.headers
    )
    assert response.status_code == 200
    snapshot_name = (await response.get_json())["snapshot_name"]
    assert await _seq(neo4j_driver, user.user_id) == seq + 1

    version, current = await _nodes(neo4j_driver, memory["memory_id"])
    assert version["labels"] == ["MemoryVersion"]
    assert _ended_at(version) == seq + 1
    assert _without_embedding(_unended(version)) == _without_embedding(before["props"])
    assert current["labels"] == ["Memory"]
    assert current["props"]["is_active"] is False
    assert current["props"]["delete_reason"] == "sold the car"
    assert current["props"]["created_seq"] == seq + 1
    assert current["outgoing"] == before["outgoing"]  # the deleted memory keeps its links

    # The safety snapshot sees the state before the deletion.
    [snapshot] = await query(
        neo4j_driver,
        "MATCH (s:Snapshot {user_id: $user, name: $name}) RETURN s.seq AS seq, s.kind AS kind",
        user=user.user_id,
        name=snapshot_name,
    )
    assert snapshot == {"seq": seq, "kind": "safety"}


async def test_failed_changes_leave_seq_and_nodes_alone(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "Owns a red kayak")
    seq = await _seq(neo4j_driver, user.user_id)
    [before] = await _nodes(neo4j_driver, memory["memory_id"])

    missing = "0" * 32
    assert (await client.delete(f"/v1/memories/{missing}", headers=user.headers)).status_code == 404
    response = await client.put(
        f"/v1/memories/{missing}/correct", json={"new_content": "x"}, headers=user.headers
    )
    assert response.status_code == 404
    response = await client.put(
        f"/v1/memories/{memory['memory_id']}/correct",
        json={"new_content": "Owns a red kayak"},  # the same text: nothing to correct
        headers=user.headers,
    )
    assert response.status_code == 422

    assert await _seq(neo4j_driver, user.user_id) == seq
    assert await _nodes(neo4j_driver, memory["memory_id"]) == [before]


async def test_store_keeps_a_normalised_embedding_on_the_node(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "Grows tomatoes on the balcony")
    [node] = await _nodes(neo4j_driver, memory["memory_id"])
    embedding = node["props"]["embedding"]
    assert len(embedding) == 384
    assert abs(sum(x * x for x in embedding) - 1.0) < 1e-3  # normalised for cosine


async def test_a_store_whose_encode_fails_writes_nothing_and_the_next_write_goes_on(
    user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    """A failed encode leaves no trace (no seq taken, no entity), and the user's writes go on,
    two at once included."""
    slow_backend = SlowThenFailingBackend(registry.embedder, 0.3)
    slow = dataclasses.replace(registry, embedder=Embedder(slow_backend))
    caller = Caller(user_id=user.user_id)
    await memories.store(registry, caller, StoreMemory(content="Warms up the user's seq"))
    seq = await _seq(neo4j_driver, user.user_id)

    with pytest.raises(RuntimeError, match="the model broke"):
        await memories.store(slow, caller, StoreMemory(content="payment-gateway will fail here"))
    assert await _seq(neo4j_driver, user.user_id) == seq
    found = await query(
        neo4j_driver,
        "MATCH (e:Entity {user_id: $user_id, key: 'payment gateway'}) RETURN e",
        user_id=user.user_id,
    )
    assert found == []

    # Two writes of one user at once: the second waits for the first's change, both land.
    stored = await asyncio.gather(
        memories.store(slow, caller, StoreMemory(content="Ledger closes at noon")),
        memories.store(registry, caller, StoreMemory(content="Ledger reopens at one")),
    )
    assert all(created for _, created in stored)
    assert await _seq(neo4j_driver, user.user_id) == seq + 2
    [node] = await _nodes(neo4j_driver, stored[0][0].memory_id)
    assert len(node["props"]["embedding"]) == registry.embedder.dimensions
