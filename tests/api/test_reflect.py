"""Reflect over HTTP: clusters of related memories from two or more sessions, as candidates
without an LLM and as T4 insights linked DERIVED_FROM their sources with one, never twice."""

from __future__ import annotations

import json
from typing import Any

from neo4j import AsyncDriver
from quart import Quart
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.fake_llm import FakeLlm
from tests.support.governance import reflect_candidates, run
from tests.support.http import error_detail, request_ok
from tests.support.memories import store
from tests.support.memory_links import derived_from
from tests.support.neo4j_direct import query

DEPLOYS = [
    ("s1", "The invoice-api deploy failed because the Redis cluster was full."),
    ("s2", "Another invoice-api deploy failed: the Redis cluster ran out of memory."),
    ("s3", "invoice-api deploys pass once the Redis cluster is flushed first."),
]
UNRELATED = [("s1", "Maria prefers tea in the morning."), ("s4", "The office plants need water.")]


async def _seed(client: TestClientProtocol, headers: dict[str, str]) -> dict[str, str]:
    ids = {}
    for session, content in [*DEPLOYS, *UNRELATED]:
        memory = await store(client, headers, content, session_id=session)
        ids[content] = memory["memory_id"]
    return ids


async def test_candidates_are_clusters_of_related_memories_across_sessions(
    client: TestClientProtocol, user: User
) -> None:
    ids = await _seed(client, user.headers)

    [cluster] = await reflect_candidates(client, user.headers)

    assert set(cluster["memory_ids"]) == {ids[content] for _, content in DEPLOYS}
    assert cluster["sessions"] == ["s1", "s2", "s3"]
    assert "invoice-api" in cluster["shared_entities"]
    assert {member["content"] for member in cluster["members"]} == {c for _, c in DEPLOYS}
    # /v1/reflect in candidates mode answers the same, without an LLM.
    response = await client.post("/v1/reflect", json={"mode": "candidates"}, headers=user.headers)
    assert response.status_code == 200
    assert (await response.get_json())["items"] == [cluster]


async def test_related_memories_of_one_session_are_no_cluster(
    client: TestClientProtocol, user: User
) -> None:
    for _, content in DEPLOYS:
        await store(client, user.headers, content, session_id="only")
    assert await reflect_candidates(client, user.headers) == []


async def test_reflect_without_an_llm_is_503_and_keeps_no_cooldown(
    client: TestClientProtocol, user: User
) -> None:
    await _seed(client, user.headers)
    for body in ({}, {"mode": "llm"}, {"mode": "internal"}, {"force": True}):
        detail = await error_detail(
            await client.post("/v1/reflect", json=body, headers=user.headers), 503
        )
        assert "candidates" in detail
    invalid = await client.post("/v1/reflect", json={"mode": "dream"}, headers=user.headers)
    await error_detail(invalid, 422)


async def test_auto_mode_answers_the_candidates_without_an_llm_in_memorias_shape_too(
    client: TestClientProtocol, user: User
) -> None:
    ids = await _seed(client, user.headers)
    auto = await request_ok(client, "POST", "/v1/reflect", user.headers, json={"mode": "auto"})
    assert auto["items"] == await reflect_candidates(client, user.headers)
    [cluster] = auto["candidates"]
    assert cluster["signal"] == "semantic_cluster"
    assert cluster["importance"] == 0.667  # three sessions
    assert cluster["memories"] == [
        {"memory_id": ids[content], "content": content}
        for _, content in sorted(DEPLOYS, key=lambda item: ids[item[1]])
    ]


async def test_auto_mode_uses_the_llm_when_one_is_configured(llm_app: Quart, llm: FakeLlm) -> None:
    client = llm_app.test_client()
    user = await create_user(client, "reflects-auto")
    await _seed(client, user.headers)
    llm.reply = {"insights": []}
    answer = await request_ok(client, "POST", "/v1/reflect", user.headers, json={"mode": "auto"})
    assert (answer["clusters"], answer["scenes_created"], answer["candidates_found"]) == (1, 0, 1)
    assert len(llm.requests) == 1


def _clusters_given(llm: FakeLlm) -> list[dict[str, Any]]:
    """The clusters the last LLM request carried."""
    messages = llm.requests[-1].body["messages"]
    given: list[dict[str, Any]] = json.loads(messages[-1]["content"])
    return given


async def test_reflect_with_an_llm_stores_each_insight_once_linked_to_its_sources(
    llm_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = llm_app.test_client()
    user = await create_user(client, "reflects")
    ids = await _seed(client, user.headers)
    insight_text = "invoice-api deploys fail whenever the Redis cluster is full; flush it first."
    llm.reply = {
        "insights": [
            {"cluster": 0, "content": insight_text},
            {"cluster": 7, "content": "An insight about a cluster it was not given."},
        ]
    }

    report = await run(client, user.headers, "reflect")

    assert (report["clusters"], report["dropped"]) == (1, 1)  # the insight about no cluster
    [insight] = report["insights"]
    assert insight["content"] == insight_text
    assert insight["trust_tier"] == "T4"
    assert insight["initial_confidence"] == 0.4
    assert insight["extra_metadata"] == {"kind": "insight"}
    [given] = _clusters_given(llm)
    assert {m["memory_id"] for m in given["memories"]} == {ids[c] for _, c in DEPLOYS}
    assert await derived_from(neo4j_driver, insight["memory_id"]) == {ids[c] for _, c in DEPLOYS}

    # The cluster is covered now: no second insight, and the LLM is not asked again.
    asked = len(llm.requests)
    again = await run(client, user.headers, "reflect")
    assert again == {
        "skipped": False,
        "clusters": 0,
        "insights": [],
        "dropped": 0,
        "scenes_created": 0,
        "candidates_found": 0,
    }
    assert len(llm.requests) == asked
    assert await reflect_candidates(client, user.headers) == []


async def test_an_unusable_llm_answer_is_503_and_gives_the_cooldown_back(
    llm_app: Quart, llm: FakeLlm
) -> None:
    client = llm_app.test_client()
    user = await create_user(client, "reflects")
    await _seed(client, user.headers)
    for unusable in ("this is not JSON", {}, {"error": "rate limited, try later"}):
        llm.reply = unusable
        response = await client.post("/v1/reflect", headers=user.headers)
        await error_detail(response, 503)

    llm.reply = {"insights": []}
    report = await run(client, user.headers, "reflect", force=False)
    assert report["skipped"] is False
    assert (await run(client, user.headers, "reflect", force=False))["skipped"] is True


async def _writes(driver: AsyncDriver, user_id: str) -> dict[str, Any]:
    """What a run writes for a user: changes (the seq), memories, and run records."""
    [state] = await query(
        driver,
        "MATCH (u:User {id: $user_id}) "
        "RETURN u.seq AS seq, "
        "COUNT { MATCH (m:Memory {user_id: $user_id}) } AS memories, "
        "COUNT { MATCH (r:GovernanceRun {user_id: $user_id}) } AS runs",
        user_id=user_id,
    )
    return state


async def test_insights_without_their_cluster_fail_a_forced_run_which_spends_nothing(
    llm_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    """Every insight of the answer lacks its cluster: even forced, the run is 503 saying so,
    writes nothing and gives the cooldown back; the cluster is still offered, and the next run,
    unforced, is not skipped."""
    client = llm_app.test_client()
    user = await create_user(client, "reflects")
    await _seed(client, user.headers)
    before = await _writes(neo4j_driver, user.user_id)
    llm.reply = {"insights": [{"content": "Deploys fail on a full Redis."}, {"content": "Flush."}]}

    response = await client.post(
        "/v1/reflect", query_string={"force": "true"}, headers=user.headers
    )
    detail = await error_detail(response, 503)
    assert detail == "none of the 2 items of the LLM's answer was usable"
    assert await _writes(neo4j_driver, user.user_id) == before
    [cluster] = await reflect_candidates(client, user.headers)
    assert {member["content"] for member in cluster["members"]} == {c for _, c in DEPLOYS}

    llm.reply = {"insights": [{"cluster": 0, "content": "Deploys fail on a full Redis cluster."}]}
    report = await run(client, user.headers, "reflect", force=False)
    assert report["skipped"] is False
    assert [insight["content"] for insight in report["insights"]] == [
        "Deploys fail on a full Redis cluster."
    ]
