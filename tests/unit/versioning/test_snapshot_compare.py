"""snapshots.compare: what a diff reports from the two sides of a change set (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from app.services.versioning.snapshots import compare


def _memory(memory_id: str, **changes: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        "memory_id": memory_id,
        "content": f"content of {memory_id}",
        "memory_type": "semantic",
        "session_id": None,
        "subject_id": None,
        "trust_tier": "T1",
        "initial_confidence": 0.95,
        "is_active": True,
        "superseded_by": None,
        "observed_at": "2026-01-01T00:00:00Z",
        "created_seq": 1,
        "updated_at": "2026-01-01T00:00:00Z",
    }
    props.update(changes)
    return props


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["memory_id"] for row in rows]


def test_nothing_changed_is_an_empty_diff() -> None:
    assert compare([], []) == ([], [], [])


def test_new_active_memory_is_added() -> None:
    added, removed, modified = compare([], [_memory("b"), _memory("a")])
    assert _ids(added) == ["a", "b"]  # in memory_id order
    assert (removed, modified) == ([], [])


def test_memory_that_ended_without_successor_is_removed() -> None:
    added, removed, modified = compare([_memory("a")], [])
    assert (_ids(added), _ids(removed), modified) == ([], ["a"], [])


def test_soft_deleted_memory_is_removed() -> None:
    added, removed, modified = compare(
        [_memory("a")], [_memory("a", is_active=False, deleted_at="now", created_seq=5)]
    )
    assert (_ids(added), _ids(removed), modified) == ([], ["a"], [])


def test_memory_created_and_deleted_since_does_not_show() -> None:
    assert compare([], [_memory("a", is_active=False)]) == ([], [], [])


def test_memory_inactive_then_and_restored_now_is_added() -> None:
    added, removed, _ = compare([_memory("a", is_active=False)], [_memory("a")])
    assert (_ids(added), removed) == (["a"], [])


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
def test_a_visible_field_change_is_modified(field: str, value: Any) -> None:
    old, new = _memory("a"), _memory("a", created_seq=9, **{field: value})
    added, removed, modified = compare([old], [new])
    assert (added, removed) == ([], [])
    assert modified == [(old, new)]


def test_removed_metadata_key_is_modified() -> None:
    old, new = _memory("a", meta_source="email"), _memory("a", created_seq=9)
    assert compare([old], [new])[2] == [(old, new)]


def test_bookkeeping_alone_is_not_a_change() -> None:
    """A rollback recreates a node with a new seq and the same memory: no difference."""
    old = _memory("a", created_seq=1, ended_seq=4)
    new = _memory("a", created_seq=7, updated_at="2026-03-03T00:00:00Z", useful=3)
    assert compare([old], [new]) == ([], [], [])


def test_metadata_compares_with_python_equality_of_the_stored_values() -> None:
    same = compare([_memory("a", meta_n=2)], [_memory("a", meta_n=2, created_seq=3)])
    assert same == ([], [], [])
    differs = compare([_memory("a", meta_n=2)], [_memory("a", meta_n="2", created_seq=3)])
    assert len(differs[2]) == 1


def test_mixed_change_set() -> None:
    then = [_memory("a"), _memory("b"), _memory("c")]
    now = [
        _memory("a", content="changed"),
        _memory("b", is_active=False),
        _memory("c"),
        _memory("d"),
        _memory("e", is_active=False),
    ]
    added, removed, modified = compare(then, now)
    assert _ids(added) == ["d"]
    assert _ids(removed) == ["b"]
    assert [old["memory_id"] for old, _ in modified] == ["a"]
