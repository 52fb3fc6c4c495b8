"""Explicit JSON null in request bodies, as Memoria's MCP client sends it for every argument a
tool was not given: an optional field's null is that field not given (its default), on every
route; a required field's null is a 422 that changes nothing."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.http import error_detail, request_ok
from tests.support.memories import page_contents, store
from tests.support.snapshots import list_snapshots


async def test_optional_fields_given_as_null_take_their_defaults(
    client: TestClientProtocol, user: User
) -> None:
    stored = await request_ok(
        client,
        "POST",
        "/v1/memories",
        user.headers,
        json={
            "content": "Nadia runs the Thursday retro.",
            "memory_type": None,
            "session_id": None,
            "subject_id": None,
            "trust_tier": None,
            "initial_confidence": None,
            "observed_at": None,
            "extra_metadata": None,
            "branch": None,
        },
    )
    assert (stored["memory_type"], stored["trust_tier"], stored["extra_metadata"]) == (
        "semantic",
        "T1",
        {},
    )
    memory_id = stored["memory_id"]
    found = await request_ok(
        client,
        "POST",
        "/v1/memories/retrieve",
        user.headers,
        json={
            "query": "Who runs the retro?",
            "top_k": None,
            "memory_types": None,
            "session_id": None,
            "session_scope": None,
            "explain": None,
            "min_score": None,
            "subject_id": None,
            "branch": None,
        },
    )
    assert [memory["memory_id"] for memory in found] == [memory_id]  # no explain: a list
    feedback = await request_ok(
        client,
        "POST",
        f"/v1/memories/{memory_id}/feedback",
        user.headers,
        json={"signal": "useful", "context": None, "branch": None},
    )
    assert feedback["signal"] == "useful"
    corrected = await request_ok(
        client,
        "PUT",
        f"/v1/memories/{memory_id}/correct",
        user.headers,
        json={
            "new_content": "Nadia and Theo run the Thursday retro.",
            "reason": None,
            "branch": None,
        },
    )
    snapshot = await request_ok(
        client,
        "POST",
        "/v1/snapshots",
        user.headers,
        json={"name": "nulls", "description": None, "branch": None},
    )
    assert snapshot["description"] == ""
    branch = await request_ok(
        client,
        "POST",
        "/v1/branches",
        user.headers,
        json={"name": "nulls", "from_snapshot": None, "from_timestamp": None},
    )
    assert branch["memory_count"] == 1
    governed = await request_ok(
        client, "POST", "/v1/governance", user.headers, json={"force": None}
    )
    assert governed["skipped"] is False
    clusters = await request_ok(
        client, "POST", "/v1/reflect/candidates", user.headers, json={"limit": None}
    )
    assert clusters["items"] == []
    purged = await request_ok(
        client,
        "POST",
        "/v1/memories/purge",
        user.headers,
        json={
            "memory_ids": None,
            "memory_types": None,
            "before": None,
            "topic": None,
            "session_id": None,
            "reason": None,
            "branch": None,
        },
    )
    assert purged == {"purged": 0, "snapshot_name": None}
    assert await page_contents(client, user.headers) == {corrected["content"]}


async def test_a_required_field_given_as_null_is_422_and_changes_nothing(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "Theo owns the build farm.")
    cases: list[tuple[str, str, dict[str, Any], str]] = [
        ("POST", "/v1/memories", {"content": None}, "content"),
        (
            "PUT",
            f"/v1/memories/{memory['memory_id']}/correct",
            {"new_content": None},
            "new_content",
        ),
        ("POST", "/v1/memories/correct", {"query": None, "new_content": "x"}, "query"),
        ("POST", f"/v1/memories/{memory['memory_id']}/feedback", {"signal": None}, "signal"),
        ("POST", "/v1/snapshots", {"name": None}, "name"),
        ("POST", "/v1/branches", {"name": None}, "name"),
        ("POST", "/v1/memories/batch", {"memories": [{"content": None}]}, "memories.0.content"),
    ]
    for method, path, body, field in cases:
        response = await client.open(path, method=method, json=body, headers=user.headers)
        detail = await error_detail(response, 422)
        assert detail.startswith(f"{field}: "), detail
    assert await page_contents(client, user.headers) == {"Theo owns the build farm."}
    assert await list_snapshots(client, user.headers) == []
