"""merge_plan.plan: what a merge of a branch's changes into main applies (pure)."""

from __future__ import annotations

from typing import Any

from app.services.versioning.merge_plan import plan


def _node(memory_id: str, branch: str, **changes: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        "memory_id": memory_id,
        "user_id": "u1",
        "branch": branch,
        "content": f"content of {memory_id}",
        "memory_type": "semantic",
        "trust_tier": "T1",
        "initial_confidence": 0.95,
        "is_active": True,
        "created_seq": 3,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "embedding": [0.1, 0.2],
        "useful": 0,
        "irrelevant": 0,
        "outdated": 0,
        "wrong": 0,
    }
    props.update(changes)
    return props


def _change(mine: dict[str, Any], theirs: dict[str, Any] | None) -> dict[str, Any]:
    return {"branch_memory": mine, "target_memory": theirs}


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["memory_id"] for row in rows]


def test_no_changes_plan_nothing() -> None:
    assert plan([]) == ([], [], [])


def test_active_branch_memory_main_lacks_is_new() -> None:
    new, changed, deactivated = plan([_change(_node("a", "b1"), None)])
    assert (_ids(new), changed, deactivated) == (["a"], [], [])
    assert new[0]["branch"] == "b1"  # the plan hands over the branch's node as it is


def test_branch_memory_main_has_an_exact_duplicate_of_is_not_new() -> None:
    row = {**_change(_node("a", "b1"), None), "duplicates_on_target": ["x"]}
    assert plan([row]) == ([], [], [])


def test_branch_memory_is_new_when_the_merge_deletes_its_duplicate_on_main() -> None:
    # Merging twice must change nothing the second time: had the first merge skipped "a" as a
    # duplicate of "x" while deleting "x", the second would add "a".
    duplicate = {**_change(_node("a", "b1", fingerprint="f"), None), "duplicates_on_target": ["x"]}
    deleted = _change(_node("x", "b1", fingerprint="f", is_active=False), _node("x", "main"))
    new, _, deactivated = plan([duplicate, deleted])
    assert (_ids(new), _ids(deactivated)) == (["a"], ["x"])
    appended, _, _ = plan([duplicate, deleted], replacing=False)
    assert appended == []


def test_memory_created_and_deleted_on_the_branch_is_not_brought_over() -> None:
    assert plan([_change(_node("a", "b1", is_active=False), None)]) == ([], [], [])


def test_same_memory_on_both_is_nothing_to_do() -> None:
    """A fork copy, or the result of an earlier merge, differs only in bookkeeping."""
    mine = _node("a", "b1", created_seq=9, updated_at="2026-05-05T00:00:00Z", useful=4)
    theirs = _node("a", "main", created_seq=2, wrong=1)
    assert plan([_change(mine, theirs)]) == ([], [], [])


def test_content_changed_on_the_branch_is_changed() -> None:
    mine = _node("a", "b1", content="new words", created_seq=9)
    new, changed, deactivated = plan([_change(mine, _node("a", "main"))])
    assert (new, _ids(changed), deactivated) == ([], ["a"], [])


def test_metadata_or_tier_changes_count_as_changed() -> None:
    rows = [
        _change(_node("a", "b1", meta_source="x"), _node("a", "main")),
        _change(_node("b", "b1", trust_tier="T2"), _node("b", "main")),
    ]
    assert _ids(plan(rows)[1]) == ["a", "b"]


def test_deleted_on_the_branch_while_active_on_main_is_deactivated() -> None:
    mine = _node("a", "b1", is_active=False, deleted_at="2026-02-02T00:00:00Z")
    new, changed, deactivated = plan([_change(mine, _node("a", "main"))])
    assert (new, changed, _ids(deactivated)) == ([], [], ["a"])


def test_corrected_on_the_branch_deactivates_the_old_and_brings_the_new() -> None:
    old = _node("a", "b1", is_active=False, superseded_by="c")
    correction = _node("c", "b1", content="fixed", trust_tier="T2")
    new, changed, deactivated = plan([_change(old, _node("a", "main")), _change(correction, None)])
    assert (_ids(new), changed, _ids(deactivated)) == (["c"], [], ["a"])


def test_deleted_on_both_sides_is_nothing_to_remove() -> None:
    mine = _node("a", "b1", is_active=False, deleted_at="2026-02-02T00:00:00Z")
    theirs = _node("a", "main", is_active=False, superseded_by="z")
    assert plan([_change(mine, theirs)]) == ([], [], [])


def test_deleted_on_main_but_changed_on_the_branch_is_changed() -> None:
    mine = _node("a", "b1", content="revived and changed")
    theirs = _node("a", "main", is_active=False)
    assert _ids(plan([_change(mine, theirs)])[1]) == ["a"]


def test_mixed_plan_keeps_input_order_within_each_list() -> None:
    rows = [
        _change(_node("a", "b1"), None),
        _change(_node("b", "b1", content="x"), _node("b", "main")),
        _change(_node("c", "b1", is_active=False), _node("c", "main")),
        _change(_node("d", "b1"), _node("d", "main")),
        _change(_node("e", "b1"), None),
    ]
    new, changed, deactivated = plan(rows)
    assert _ids(new) == ["a", "e"]
    assert _ids(changed) == ["b"]
    assert _ids(deactivated) == ["c"]


def test_a_memory_the_branch_left_as_it_was_at_the_fork_is_not_merged() -> None:
    # Feedback on the branch gave m1 a new version; main deleted m1 and corrected m2 meanwhile.
    at_fork = _node("m1", "b")
    fed_back = _node("m1", "b", useful=1, created_seq=9)
    deleted_on_main = _node("m1", "main", is_active=False, delete_reason="gone")
    edited = _node("m2", "b", content="changed on the branch", created_seq=9)
    corrected_on_main = _node("m2", "main", is_active=False, superseded_by="m3")
    rows = [
        {**_change(fed_back, deleted_on_main), "fork_memory": at_fork},
        {**_change(edited, corrected_on_main), "fork_memory": _node("m2", "b")},
    ]
    new, changed, deactivated = plan(rows)
    assert (_ids(new), _ids(changed), _ids(deactivated)) == ([], ["m2"], [])
