"""POST /v1/memories/{id}/feedback, GET /v1/feedback/stats and GET /v1/feedback/by-tier."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.branches import check_out, create_branch
from tests.support.feedback import give_feedback
from tests.support.http import error_detail
from tests.support.memories import correct, list_all, store
from tests.support.neo4j_direct import query

SIGNALS = ("useful", "irrelevant", "outdated", "wrong")


async def _feedback(
    client: TestClientProtocol,
    headers: dict[str, str],
    memory_id: str,
    signal: str,
    context: str = "",
) -> Any:
    return await client.post(
        f"/v1/memories/{memory_id}/feedback",
        json={"signal": signal, "context": context},
        headers=headers,
    )


async def _memory(client: TestClientProtocol, user: User, memory_id: str) -> dict[str, Any]:
    [found] = [m for m in await list_all(client, user.headers) if m["memory_id"] == memory_id]
    return found


async def _json(client: TestClientProtocol, path: str, headers: dict[str, str]) -> Any:
    response = await client.get(path, headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    return await response.get_json()


async def test_feedback_is_recorded_and_counted_on_the_memory(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "The deploy script lives in tools/deploy.sh")
    response = await _feedback(client, user.headers, memory["memory_id"], "useful", "it helped")
    assert response.status_code == 201
    body = await response.get_json()
    assert set(body) == {"feedback_id", "memory_id", "signal"}
    assert body["memory_id"] == memory["memory_id"]
    assert body["signal"] == "useful"
    assert body["feedback_id"]

    await give_feedback(client, user.headers, memory["memory_id"], "useful")
    await give_feedback(client, user.headers, memory["memory_id"], "outdated")
    shown = await _memory(client, user, memory["memory_id"])
    assert shown["feedback"] == {"useful": 2, "irrelevant": 0, "outdated": 1, "wrong": 0}

    # In the graph: (:Feedback)-[:ON]->(:Memory), and counters on the current memory node.
    rows = await query(
        neo4j_driver,
        "MATCH (f:Feedback {feedback_id: $id})-[:ON]->(m:Memory) "
        "RETURN f.user_id AS user_id, f.signal AS signal, f.context AS context, "
        "f.created_at IS NOT NULL AS dated, m.memory_id AS memory_id, m.useful AS useful, "
        "m.outdated AS outdated, m.created_seq AS created_seq",
        id=body["feedback_id"],
    )
    assert rows == [
        {
            "user_id": user.user_id,
            "signal": "useful",
            "context": "it helped",
            "dated": True,
            "memory_id": memory["memory_id"],
            "useful": 2,
            "outdated": 1,
            "created_seq": rows[0]["created_seq"],
        }
    ]
    # The ON link is part of the memory's state: each signal is a change that leaves the
    # previous version behind, holding the links it had (the first version none, the last two).
    versions = await query(
        neo4j_driver,
        "MATCH (v:MemoryVersion {memory_id: $id}) "
        "RETURN v.created_seq AS seq, COUNT { (:Feedback)-[:ON]->(v) } AS links ORDER BY seq",
        id=memory["memory_id"],
    )
    assert [row["links"] for row in versions] == [0, 1, 2]


async def test_unlimited_repeats_count_and_context_is_optional(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "Prefers tabs over spaces")
    await give_feedback(client, user.headers, memory["memory_id"], "wrong", 3)
    shown = await _memory(client, user, memory["memory_id"])
    assert shown["feedback"]["wrong"] == 3


async def test_concurrent_signals_on_one_memory_lose_no_count(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "The staging database is on port 5433")
    signals = [SIGNALS[n % 4] for n in range(24)]
    responses = await asyncio.gather(
        *(_feedback(client, user.headers, memory["memory_id"], signal) for signal in signals)
    )
    assert [response.status_code for response in responses] == [201] * len(signals)
    shown = await _memory(client, user, memory["memory_id"])
    assert shown["feedback"] == dict.fromkeys(SIGNALS, 6)
    stats = await _json(client, "/v1/feedback/stats", user.headers)
    assert stats == {"total": 24, **dict.fromkeys(SIGNALS, 6)}


async def test_unknown_foreign_and_inactive_memories_are_404(
    client: TestClientProtocol, user: User, other_user: User, neo4j_driver: AsyncDriver
) -> None:
    await error_detail(await _feedback(client, user.headers, uuid.uuid4().hex, "useful"), 404)

    theirs = await store(client, other_user.headers, "Other user's secret memory")
    detail = await error_detail(
        await _feedback(client, user.headers, theirs["memory_id"], "useful"), 404
    )
    assert "not found" in detail
    # Nothing was recorded for either user.
    assert (await _json(client, "/v1/feedback/stats", user.headers))["total"] == 0
    assert (await _memory(client, other_user, theirs["memory_id"]))["feedback"]["useful"] == 0

    deleted = await store(client, user.headers, "A memory that will be deleted")
    response = await client.delete(f"/v1/memories/{deleted['memory_id']}", headers=user.headers)
    assert response.status_code == 200
    await error_detail(await _feedback(client, user.headers, deleted["memory_id"], "wrong"), 404)

    # The master key acting for a user sees that user's memories only.
    acting = {**MASTER, "X-User-Id": user.user_id}
    await error_detail(await _feedback(client, acting, theirs["memory_id"], "useful"), 404)
    assert (await _json(client, "/v1/feedback/stats", user.headers))["total"] == 0
    # A refused signal leaves no trace on the user either (the statement was rolled back).
    counters = await query(
        neo4j_driver,
        "MATCH (u:User) WHERE u.id IN [$mine, $theirs] RETURN u.feedback_signals AS n",
        mine=user.user_id,
        theirs=other_user.user_id,
    )
    assert counters == [{"n": None}, {"n": None}]


async def test_invalid_signals_are_422(client: TestClientProtocol, user: User) -> None:
    memory = await store(client, user.headers, "Uses Neovim")
    for body in (
        {"signal": "great"},
        {"signal": ""},
        {"signal": "USEFUL"},
        {"context": "no signal"},
        {"signal": "useful", "extra": 1},
        {"signal": "useful", "context": "x" * 5000},
    ):
        response = await client.post(
            f"/v1/memories/{memory['memory_id']}/feedback", json=body, headers=user.headers
        )
        await error_detail(response, 422)
    response = await client.post(
        f"/v1/memories/{memory['memory_id']}/feedback",
        data="{not json",
        headers={**user.headers, "Content-Type": "application/json"},
    )
    await error_detail(response, 400)
    # An invalid signal on an unknown memory is still a validation error.
    await error_detail(await _feedback(client, user.headers, uuid.uuid4().hex, "meh"), 422)
    assert (await _json(client, "/v1/feedback/stats", user.headers))["total"] == 0


async def test_feedback_needs_a_credential(client: TestClientProtocol, user: User) -> None:
    memory = await store(client, user.headers, "Some memory")
    await error_detail(await _feedback(client, {}, memory["memory_id"], "useful"), 401)
    await error_detail(await client.get("/v1/feedback/stats"), 401)
    await error_detail(await client.get("/v1/feedback/by-tier"), 401)


async def test_stats_are_per_user(client: TestClientProtocol, user: User, other_user: User) -> None:
    empty = await _json(client, "/v1/feedback/stats", user.headers)
    assert empty == {"total": 0, "useful": 0, "irrelevant": 0, "outdated": 0, "wrong": 0}

    mine = await store(client, user.headers, "Coffee with oat milk")
    theirs = await store(client, other_user.headers, "Tea, no sugar")
    await give_feedback(client, user.headers, mine["memory_id"], "useful", 2)
    await give_feedback(client, user.headers, mine["memory_id"], "irrelevant")
    await give_feedback(client, other_user.headers, theirs["memory_id"], "wrong", 4)

    assert await _json(client, "/v1/feedback/stats", user.headers) == {
        "total": 3,
        "useful": 2,
        "irrelevant": 1,
        "outdated": 0,
        "wrong": 0,
    }
    assert await _json(client, "/v1/feedback/stats", other_user.headers) == {
        "total": 4,
        "useful": 0,
        "irrelevant": 0,
        "outdated": 0,
        "wrong": 4,
    }


async def test_breakdown_by_tier_lists_every_tier_and_signal(
    client: TestClientProtocol, user: User
) -> None:
    body = await _json(client, "/v1/feedback/by-tier", user.headers)
    assert set(body) == {"breakdown"}
    assert [(row["tier"], row["signal"]) for row in body["breakdown"]] == [
        (tier, signal) for tier in ("T1", "T2", "T3", "T4") for signal in SIGNALS
    ]
    assert all(row["count"] == 0 for row in body["breakdown"])

    t1 = await store(client, user.headers, "Fact from the user", trust_tier="T1")
    t3 = await store(client, user.headers, "Fact an LLM extracted", trust_tier="T3")
    await give_feedback(client, user.headers, t1["memory_id"], "useful", 2)
    await give_feedback(client, user.headers, t3["memory_id"], "wrong", 3)
    await give_feedback(client, user.headers, t3["memory_id"], "useful")

    body = await _json(client, "/v1/feedback/by-tier", user.headers)
    counts = {(row["tier"], row["signal"]): row["count"] for row in body["breakdown"]}
    assert len(counts) == 16
    assert {key: n for key, n in counts.items() if n} == {
        ("T1", "useful"): 2,
        ("T3", "wrong"): 3,
        ("T3", "useful"): 1,
    }


async def test_a_correction_starts_at_zero_and_the_old_memory_keeps_its_counts(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "The office is on the 3rd floor")
    await give_feedback(client, user.headers, memory["memory_id"], "wrong", 2)
    corrected = await correct(
        client, user.headers, memory["memory_id"], "The office is on the 5th floor", reason="moved"
    )
    assert corrected["feedback"] == dict.fromkeys(SIGNALS, 0)

    # The old memory is inactive now: no more feedback on it; its counts and signals stay.
    await error_detail(await _feedback(client, user.headers, memory["memory_id"], "wrong"), 404)
    old = await query(
        neo4j_driver,
        "MATCH (m:Memory {memory_id: $id}) "
        "RETURN m.is_active AS active, m.wrong AS wrong, COUNT { (:Feedback)-[:ON]->(m) } AS n",
        id=memory["memory_id"],
    )
    assert old == [{"active": False, "wrong": 2, "n": 2}]
    await give_feedback(client, user.headers, corrected["memory_id"], "useful")
    shown = await _memory(client, user, corrected["memory_id"])
    assert shown["feedback"] == {"useful": 1, "irrelevant": 0, "outdated": 0, "wrong": 0}
    assert (await _json(client, "/v1/feedback/stats", user.headers))["total"] == 3


async def test_feedback_goes_to_the_checked_out_branch(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "Release train leaves on Thursdays")
    branch = f"fb-{uuid.uuid4().hex[:8]}"
    await create_branch(client, user.headers, branch)
    await check_out(client, user.headers, branch)

    await give_feedback(client, user.headers, memory["memory_id"], "outdated")
    rows = await query(
        neo4j_driver,
        "MATCH (m:Memory {memory_id: $id}) RETURN m.branch AS branch, m.outdated AS outdated "
        "ORDER BY branch",
        id=memory["memory_id"],
    )
    assert {row["branch"]: row["outdated"] for row in rows} == {branch: 1, "main": 0}
