"""Consolidate over HTTP: contradictions become CONTRADICTS links and the memory not kept loses
confidence (the newer one wins unless it is less trusted), links to nothing are removed, and the
consolidate + reflect rate limit."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.services.governance.consolidate import CONFIDENCE_FACTOR
from tests.conftest import User, create_user
from tests.support.governance import days_ago, run
from tests.support.http import error_detail
from tests.support.memories import contents, ranked, store
from tests.support.neo4j_direct import query
from tests.support.snapshots import roll_back, take_snapshot


async def _contradictions(driver: AsyncDriver, user_id: str) -> list[dict[str, Any]]:
    return await query(
        driver,
        "MATCH (a:Memory {user_id: $user_id})-[r:CONTRADICTS]->(b:Memory) "
        "RETURN a.memory_id AS newer, b.memory_id AS older, r.severity AS severity, "
        "r.reason AS reason, r.kept AS kept, r.detected_at IS NOT NULL AS dated",
        user_id=user_id,
    )


async def _memory(client: TestClientProtocol, user: User, query_text: str) -> list[str]:
    return contents(await ranked(client, user.headers, "retrieve", query_text, min_score=0))


async def test_two_contradicting_memories_get_one_link_and_the_newer_ranks_first(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    older = await store(
        client,
        user.headers,
        "The invoice-api rate limit is 5000 requests per minute.",
        observed_at=days_ago(20),
    )
    newer = await store(
        client,
        user.headers,
        "The invoice-api rate limit is now 9000 requests per minute.",
        observed_at=days_ago(1),
    )
    await store(client, user.headers, "invoice-api is deployed to eu-west-1.")

    report = await run(client, user.headers, "consolidate")

    assert report["contradictions"] == 1
    assert report["confidence_lowered"] == 1
    [link] = await _contradictions(neo4j_driver, user.user_id)
    assert (link["newer"], link["older"], link["kept"]) == (
        newer["memory_id"],
        older["memory_id"],
        newer["memory_id"],
    )
    assert link["severity"] == "high" and "5000" in link["reason"] and link["dated"]
    ranking = await _memory(client, user, "What is the rate limit of invoice-api?")
    assert ranking.index(newer["content"]) < ranking.index(older["content"])

    again = await run(client, user.headers, "consolidate")
    assert again["contradictions"] == 0
    assert len(await _contradictions(neo4j_driver, user.user_id)) == 1


async def test_an_untrusted_override_does_not_displace_a_trusted_fact(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    fact = await store(
        client,
        user.headers,
        "The invoice-api rate limit is 5000 requests per minute.",
        trust_tier="T1",
        observed_at=days_ago(30),
    )
    note = await store(
        client,
        user.headers,
        "UPDATE: the invoice-api rate limit is now 9000 requests per minute.",
        trust_tier="T4",
    )

    await run(client, user.headers, "consolidate")

    [link] = await _contradictions(neo4j_driver, user.user_id)
    assert (link["newer"], link["older"], link["kept"]) == (
        note["memory_id"],
        fact["memory_id"],
        fact["memory_id"],
    )
    ranking = await _memory(client, user, "invoice-api rate limit")
    assert ranking[0] == fact["content"]


async def test_contradictions_in_chinese_and_rollback_undoes_them(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    older = await store(client, user.headers, "计费团队的负责人是张伟。", observed_at=days_ago(10))
    newer = await store(client, user.headers, "计费团队的负责人是李娜。")
    snapshot = await take_snapshot(client, user.headers, "before-consolidate")

    report = await run(client, user.headers, "consolidate")

    assert report["contradictions"] == 1
    [link] = await _contradictions(neo4j_driver, user.user_id)
    assert (link["newer"], link["kept"]) == (newer["memory_id"], newer["memory_id"])
    lowered = [
        m
        for m in await ranked(client, user.headers, "retrieve", "计费团队负责人", min_score=0)
        if m["memory_id"] == older["memory_id"]
    ]
    assert lowered[0]["initial_confidence"] < 0.95 * 0.5

    await roll_back(client, user.headers, snapshot["name"])
    assert await _contradictions(neo4j_driver, user.user_id) == []
    restored = [
        m
        for m in await ranked(client, user.headers, "retrieve", "计费团队负责人", min_score=0)
        if m["memory_id"] == older["memory_id"]
    ]
    assert restored[0]["initial_confidence"] == 0.95


async def test_memories_that_can_both_be_true_are_not_contradictions(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    await store(client, user.headers, "invoice-api uses Redis for caching.")
    await store(client, user.headers, "invoice-api uses Postgres for storage.")
    await store(client, user.headers, "The billing team owns invoice-api.")
    await store(client, user.headers, "发票服务使用Redis做缓存。")
    await store(client, user.headers, "发票服务部署在上海机房。")
    await store(client, user.headers, "王芳喜欢咖啡", observed_at=days_ago(3))
    await store(client, user.headers, "王芳喜欢茶")
    await store(client, user.headers, "王芳会说英语", observed_at=days_ago(3))
    await store(client, user.headers, "王芳会说日语")

    report = await run(client, user.headers, "consolidate")

    assert report["pairs_compared"] >= 2
    assert report["contradictions"] == 0
    assert await _contradictions(neo4j_driver, user.user_id) == []


async def test_a_negation_contradicts_and_a_link_to_a_deleted_memory_is_removed(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    older = await store(
        client, user.headers, "invoice-api uses Redis for caching.", observed_at=days_ago(5)
    )
    newer = await store(client, user.headers, "invoice-api no longer uses Redis for caching.")
    report = await run(client, user.headers, "consolidate")
    assert report["contradictions"] == 1
    [link] = await _contradictions(neo4j_driver, user.user_id)
    assert link["reason"] == "one negates the other"

    response = await client.delete(f"/v1/memories/{older['memory_id']}", headers=user.headers)
    assert response.status_code == 200
    report = await run(client, user.headers, "consolidate")
    assert report["dangling_links"] == 1
    assert await _contradictions(neo4j_driver, user.user_id) == []
    listed = await _memory(client, user, "Redis caching")
    assert newer["content"] in listed


async def test_an_insight_whose_sources_are_all_gone_is_retired(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    first = await store(client, user.headers, "The invoice-api deploy failed: Redis was full.")
    second = await store(client, user.headers, "Another invoice-api deploy failed on Redis.")
    kept_source = await store(client, user.headers, "Flushing Redis first makes deploys pass.")
    insight = {"extra_metadata": {"kind": "insight"}, "trust_tier": "T4"}
    orphan = await store(client, user.headers, "Redis fills up before deploys.", **insight)
    supported = await store(client, user.headers, "Flush Redis before a deploy.", **insight)
    # As reflect links an insight to the memories it was drawn from.
    await query(
        neo4j_driver,
        "UNWIND $links AS link "
        "MATCH (i:Memory {memory_id: link[0], branch: 'main'}), "
        "(s:Memory {memory_id: link[1], branch: 'main'}) CREATE (i)-[:DERIVED_FROM]->(s)",
        links=[
            [orphan["memory_id"], first["memory_id"]],
            [orphan["memory_id"], second["memory_id"]],
            [supported["memory_id"], second["memory_id"]],
            [supported["memory_id"], kept_source["memory_id"]],
        ],
    )
    await take_snapshot(client, user.headers, "before")
    for source in (first, second):
        response = await client.delete(f"/v1/memories/{source['memory_id']}", headers=user.headers)
        assert response.status_code == 200

    report = await run(client, user.headers, "consolidate")

    assert (report["insights_retired"], report["orphaned_scenes"]) == (1, 1)
    assert report["decision_count"] == report["contradictions"] + report["confidence_restored"] + 1
    left = {item["memory_id"] for item in (await _page(client, user))}
    assert supported["memory_id"] in left and orphan["memory_id"] not in left
    await roll_back(client, user.headers, "before")  # a rollback brings it back
    assert orphan["memory_id"] in {item["memory_id"] for item in await _page(client, user)}


async def _page(client: TestClientProtocol, user: User) -> list[dict[str, Any]]:
    response = await client.get("/v1/memories", headers=user.headers)
    items: list[dict[str, Any]] = (await response.get_json())["items"]
    return items


async def test_the_eleventh_consolidate_within_a_minute_is_refused(
    client: TestClientProtocol,
) -> None:
    limited = await create_user(client, "consolidates")
    for i in range(10):
        path = "/v1/consolidate" if i < 6 else "/v1/reflect"
        body = {"mode": "candidates"} if path == "/v1/reflect" else {}
        response = await client.post(path, json=body, headers=limited.headers)
        assert response.status_code == 200, (i, await response.get_data(as_text=True))
    refused = await client.post("/v1/consolidate", headers=limited.headers)
    await error_detail(refused, 429)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # The candidates route is not in that class.
    response = await client.post("/v1/reflect/candidates", headers=limited.headers)
    assert response.status_code == 200


async def test_when_the_kept_memory_goes_the_lowered_one_gets_its_confidence_back(
    client: TestClientProtocol, user: User
) -> None:
    older = await store(
        client,
        user.headers,
        "The nightly backup of orders-db starts at 01:00.",
        observed_at=days_ago(3),
    )
    newer = await store(client, user.headers, "The nightly backup of orders-db starts at 03:00.")
    await run(client, user.headers, "consolidate")
    [lowered] = [
        m
        for m in await ranked(client, user.headers, "retrieve", "orders-db backup", min_score=0)
        if m["memory_id"] == older["memory_id"]
    ]
    assert lowered["initial_confidence"] < 0.5

    response = await client.delete(f"/v1/memories/{newer['memory_id']}", headers=user.headers)
    assert response.status_code == 200
    report = await run(client, user.headers, "consolidate")

    assert report["confidence_restored"] == 1
    [back] = await ranked(client, user.headers, "retrieve", "orders-db backup", min_score=0)
    assert (back["memory_id"], back["initial_confidence"]) == (older["memory_id"], 0.95)


async def test_a_memory_contradicted_again_after_a_correction_is_lowered_only_once(
    client: TestClientProtocol, user: User
) -> None:
    """The winner corrected to yet another value: the old memory still disagrees, and keeps
    the same lowered confidence rather than a share of it (which sent it to quarantine)."""
    older = await store(
        client,
        user.headers,
        "The timeout of payment-service is 30 seconds.",
        observed_at=days_ago(9),
    )
    newer = await store(client, user.headers, "The timeout of payment-service is 60 seconds.")
    await run(client, user.headers, "consolidate")
    response = await client.put(
        f"/v1/memories/{newer['memory_id']}/correct",
        json={"new_content": "The timeout of payment-service is 45 seconds.", "reason": "tuned"},
        headers=user.headers,
    )
    assert response.status_code == 200, await response.get_data(as_text=True)

    report = await run(client, user.headers, "consolidate")
    assert report["contradictions"] == 1
    found = await ranked(client, user.headers, "retrieve", "payment-service timeout", min_score=0)
    [old] = [memory for memory in found if memory["memory_id"] == older["memory_id"]]
    assert old["initial_confidence"] == 0.95 * CONFIDENCE_FACTOR
    assert (await run(client, user.headers, "governance"))["quarantined"] == 0
