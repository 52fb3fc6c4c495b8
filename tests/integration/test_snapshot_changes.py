"""snapshots/changes_since: what a diff reports from the two sides of a change set, compared by
Neo4j (the versions alive at the snapshot that ended since, against the nodes created since)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from neo4j import AsyncDriver

from app.graph import Graph, Row
from app.models.memories import META_PREFIX
from app.services.versioning.snapshots import CHANGES, COMPARED

SNAPSHOT_SEQ = 5
WRITE_SIDES = """
UNWIND $then AS props
CREATE (v:MemoryVersion) SET v = props, v.user_id = $user_id, v.branch = 'main',
  v.created_seq = 1, v.ended_seq = $seq + 1
WITH count(*) AS written
UNWIND $now AS props
CREATE (m:Memory) SET m = props, m.user_id = $user_id, m.branch = 'main',
  m.created_seq = $seq + 2
"""
Changes = dict[str, tuple[int, list[Row]]]


def _memory(memory_id: str, **changes: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        "memory_id": memory_id,
        "content": f"content of {memory_id}",
        "memory_type": "semantic",
        "trust_tier": "T1",
        "initial_confidence": 0.95,
        "is_active": True,
        "observed_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }
    props.update(changes)
    return {key: value for key, value in props.items() if value is not None}


@pytest.fixture
def changes(neo4j_driver: AsyncDriver, graph: Graph) -> Any:
    """Writes the two sides for a fresh user; returns {change: (total, shown pairs)}. Memory
    ids are unique per branch across users, so each gets the user's id in front (`_ids` takes
    it off)."""

    async def run(
        then: list[dict[str, Any]], now: list[dict[str, Any]], limit: int = 100
    ) -> Changes:
        user_id = f"changes-{uuid.uuid4().hex[:12]}"
        then, now = (
            [{**props, "memory_id": f"{user_id}:{props['memory_id']}"} for props in side]
            for side in (then, now)
        )
        await neo4j_driver.execute_query(
            WRITE_SIDES, then=then, now=now, user_id=user_id, seq=SNAPSHOT_SEQ
        )
        rows = await graph.read(
            "snapshots/changes_since",
            user_id=user_id,
            branch="main",
            seq=SNAPSHOT_SEQ,
            compared=list(COMPARED),
            meta_prefix=META_PREFIX,
            limit=limit,
        )
        assert {row["change"] for row in rows} <= set(CHANGES)
        return {row["change"]: (row["total"], row["shown"]) for row in rows}

    return run


def _ids(found: Changes, change: str) -> list[str]:
    side = "old" if change == "removed" else "new"
    return [pair[side]["memory_id"].split(":")[1] for pair in found.get(change, (0, []))[1]]


async def test_nothing_changed_is_an_empty_diff(changes: Any) -> None:
    assert await changes([], []) == {}


async def test_new_active_memory_is_added(changes: Any) -> None:
    found = await changes([], [_memory("b"), _memory("a")])
    assert _ids(found, "added") == ["a", "b"]  # in memory_id order
    assert set(found) == {"added"}


async def test_memory_that_ended_without_successor_is_removed(changes: Any) -> None:
    found = await changes([_memory("a")], [])
    assert set(found) == {"removed"} and _ids(found, "removed") == ["a"]


async def test_soft_deleted_memory_is_removed(changes: Any) -> None:
    found = await changes([_memory("a")], [_memory("a", is_active=False, delete_reason="x")])
    assert set(found) == {"removed"} and _ids(found, "removed") == ["a"]


async def test_memory_created_and_deleted_since_does_not_show(changes: Any) -> None:
    assert await changes([], [_memory("a", is_active=False)]) == {}


async def test_memory_inactive_then_and_restored_now_is_added(changes: Any) -> None:
    found = await changes([_memory("a", is_active=False)], [_memory("a")])
    assert set(found) == {"added"} and _ids(found, "added") == ["a"]


@pytest.mark.parametrize(
    "field, value",
    [
        ("content", "something else"),
        ("memory_type", "profile"),
        ("session_id", "s1"),
        ("subject_id", "bob"),
        ("trust_tier", "T3"),
        ("initial_confidence", 0.5),
        ("observed_at", "2026-02-02T00:00:00Z"),
        ("meta_source", "email"),
    ],
)
async def test_a_visible_field_change_is_modified(changes: Any, field: str, value: Any) -> None:
    found = await changes([_memory("a")], [_memory("a", **{field: value})])
    assert set(found) == {"modified"}
    [pair] = found["modified"][1]
    assert pair["old"].get(field) != value and pair["new"][field] == value


async def test_removed_metadata_key_is_modified(changes: Any) -> None:
    found = await changes([_memory("a", meta_source="email")], [_memory("a")])
    assert _ids(found, "modified") == ["a"]


async def test_bookkeeping_alone_is_not_a_change(changes: Any) -> None:
    """A rollback recreates a node with a new seq and the same memory: no difference."""
    found = await changes([_memory("a")], [_memory("a", updated_at="2026-03-03", useful=3)])
    assert found == {}


async def test_metadata_compares_values_and_their_types(changes: Any) -> None:
    assert await changes([_memory("a", meta_n=2)], [_memory("a", meta_n=2)]) == {}
    differs = await changes([_memory("a", meta_n=2)], [_memory("a", meta_n="2")])
    assert _ids(differs, "modified") == ["a"]


async def test_mixed_change_set(changes: Any) -> None:
    then = [_memory("a"), _memory("b"), _memory("c")]
    now = [
        _memory("a", content="changed"),
        _memory("b", is_active=False),
        _memory("c"),
        _memory("d"),
        _memory("e", is_active=False),
    ]
    found = await changes(then, now)
    assert (_ids(found, "added"), _ids(found, "removed"), _ids(found, "modified")) == (
        ["d"],
        ["b"],
        ["a"],
    )


async def test_only_the_first_of_each_change_are_sent_with_every_one_counted(
    changes: Any,
) -> None:
    then = [_memory(f"r{n}") for n in range(5)] + [_memory(f"m{n}") for n in range(5)]
    now = [_memory(f"a{n}") for n in range(5)] + [_memory(f"m{n}", content="x") for n in range(5)]
    found = await changes(then, now, limit=2)
    assert {change: total for change, (total, _) in found.items()} == dict.fromkeys(CHANGES, 5)
    assert _ids(found, "added") == ["a0", "a1"]
    assert _ids(found, "removed") == ["r0", "r1"]
    assert _ids(found, "modified") == ["m0", "m1"]


async def test_shown_nodes_carry_no_embedding_and_their_observation_as_text(
    changes: Any,
) -> None:
    found = await changes([], [_memory("a", embedding=[0.5, 0.5])])
    [pair] = found["added"][1]
    assert pair["old"] is None
    assert pair["new"]["embedding"] is None
    assert pair["new"]["observed_at"] == "2026-01-01T00:00:00Z"
