"""GET /v1/memories/{id}/history: every version of a memory and of its correction chain, oldest
first, each with its seq, what changed and why (store, correct with its reason, feedback,
delete, purge, quarantine, rollback, merge), and the snapshots that hold it; 404 for an unknown
or another user's memory."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.branches import check_out, create_branch
from tests.support.http import error_detail, request_ok
from tests.support.memories import correct, store
from tests.support.snapshots import roll_back, take_snapshot


async def _history(client: TestClientProtocol, user: User, memory_id: str) -> list[dict[str, Any]]:
    found = await request_ok(client, "GET", f"/v1/memories/{memory_id}/history", user.headers)
    assert found["memory_id"] == memory_id
    versions: list[dict[str, Any]] = found["versions"]
    assert [v["seq"] for v in versions] == sorted(v["seq"] for v in versions)  # oldest first
    return versions


def _steps(versions: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    return [(v["memory_id"], v["cause"], v["changed"]) for v in versions]


async def test_correct_feedback_and_delete_each_leave_a_version_with_their_reason(
    client: TestClientProtocol, user: User
) -> None:
    first = await store(client, user.headers, "The staging database is db-stg-1.")
    fixed = await correct(
        client,
        user.headers,
        first["memory_id"],
        "The staging database is db-stg-2.",
        reason="moved",
    )
    await request_ok(
        client,
        "POST",
        f"/v1/memories/{fixed['memory_id']}/feedback",
        user.headers,
        json={"signal": "useful"},
    )
    await request_ok(
        client, "DELETE", f"/v1/memories/{fixed['memory_id']}?reason=decommissioned", user.headers
    )

    versions = await _history(client, user, first["memory_id"])
    old, new = first["memory_id"], fixed["memory_id"]
    assert _steps(versions) == [
        (old, "store", ["created"]),
        (old, "supersede", ["active"]),
        (new, "correct", ["created"]),
        (new, "feedback", ["feedback"]),
        (new, "delete", ["active"]),
    ]
    assert versions[1]["reason"] == new  # superseded by the correction
    assert versions[1]["superseded_by"] == new
    assert versions[2]["reason"] == "moved"
    assert versions[2]["content"] == "The staging database is db-stg-2."
    assert versions[2]["trust_tier"] == "T2"
    assert versions[3]["reason"] == "useful"
    assert versions[3]["feedback"]["useful"] == 1
    assert versions[4]["reason"] == "decommissioned"
    assert versions[4]["is_active"] is False
    assert [v["ended_seq"] is None for v in versions] == [False, True, False, False, True]
    assert {"type": "SUPERSEDES", "target": old} in versions[2]["links"]
    # The chain reads the same from its other end.
    assert await _history(client, user, new) == versions


async def test_a_rollback_and_the_snapshots_holding_each_version(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "Deploys happen on Tuesdays.")
    await take_snapshot(client, user.headers, "tuesday")
    await request_ok(
        client,
        "POST",
        "/v1/memories/purge",
        user.headers,
        json={"memory_ids": [memory["memory_id"]]},
    )
    await roll_back(client, user.headers, "tuesday")

    versions = await _history(client, user, memory["memory_id"])
    assert [(v["cause"], v["is_active"]) for v in versions] == [
        ("store", True),
        ("purge", False),
        ("rollback", True),
    ]
    assert versions[2]["reason"] == "tuesday"
    assert versions[2]["changed"] == ["active"]
    assert "tuesday" in versions[0]["snapshots"]  # the snapshot holds the stored version
    assert any(name.startswith("pre_purge") for name in versions[0]["snapshots"])
    assert any(name.startswith("pre_rollback") for name in versions[1]["snapshots"])


async def test_a_merge_brings_a_branchs_correction_into_mains_history(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "The on-call rotation is weekly.")
    await create_branch(client, user.headers, "rotation")
    await check_out(client, user.headers, "rotation")
    fixed = await correct(
        client, user.headers, memory["memory_id"], "The on-call rotation is biweekly."
    )
    branch = await request_ok(
        client, "GET", f"/v1/memories/{fixed['memory_id']}/history?branch=rotation", user.headers
    )
    assert [v["cause"] for v in branch["versions"]][-1] == "correct"
    await check_out(client, user.headers, "main")
    assert [v["cause"] for v in await _history(client, user, memory["memory_id"])] == ["store"]

    await request_ok(
        client, "POST", "/v1/branches/rotation/merge", user.headers, json={"strategy": "replace"}
    )
    causes = {
        (v["memory_id"], v["cause"]) for v in await _history(client, user, fixed["memory_id"])
    }
    assert (fixed["memory_id"], "merge") in causes
    assert (memory["memory_id"], "merge") in causes  # main's original, superseded by the merge


async def test_history_of_an_unknown_or_foreign_memory_is_not_found(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    theirs = await store(client, other_user.headers, "Another user's secret.")
    for memory_id in (theirs["memory_id"], "no-such-memory"):
        response = await client.get(f"/v1/memories/{memory_id}/history", headers=user.headers)
        assert await error_detail(response, 404) == "memory not found"
