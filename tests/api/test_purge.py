"""POST /v1/memories/purge and DELETE /v1/memories/{id}: selectors, safety snapshots, limits."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.embedding import Embedder
from tests.conftest import STARTUP_TIMEOUT_S, User, create_user, make_settings
from tests.support.http import error_detail
from tests.support.memories import page_contents, page_items, store, store_batch, without_confidence
from tests.support.snapshots import list_snapshots, roll_back, take_snapshot

Headers = dict[str, str]
PRE_PURGE = re.compile(r"^pre_purge_[0-9a-f]{8}$")
PRE_DELETE = re.compile(r"^pre_delete_[0-9a-f]{8}$")


async def _purge(client: TestClientProtocol, headers: Headers, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/memories/purge", json=body, headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    result: dict[str, Any] = await response.get_json()
    return result


MIXED = [
    {"content": "Jane prefers window seats", "memory_type": "profile"},
    {"content": "Deploy with make release", "memory_type": "procedural"},
    {"content": "Scratch note for today", "memory_type": "working"},
    {"content": "Tool output: 42 files", "memory_type": "tool_result"},
    {"content": "Jane's sister lives in Oslo", "memory_type": "semantic"},
]


async def test_purge_by_memory_types_and_roll_back(client: TestClientProtocol, user: User) -> None:
    await store_batch(client, user.headers, MIXED)
    before = await page_items(client, user.headers)
    result = await _purge(
        client, user.headers, memory_types=["working", "tool_result"], reason="cleanup"
    )
    assert result["purged"] == 2
    assert PRE_PURGE.match(result["snapshot_name"]), result
    assert await page_contents(client, user.headers) == {
        "Jane prefers window seats",
        "Deploy with make release",
        "Jane's sister lives in Oslo",
    }
    # Purged memories leave every read path.
    response = await client.post(
        "/v1/memories/fulltext-search", json={"query": "scratch"}, headers=user.headers
    )
    assert await response.get_json() == []

    listed = {item["name"]: item for item in await list_snapshots(client, user.headers)}
    assert listed[result["snapshot_name"]]["kind"] == "safety"
    await roll_back(client, user.headers, result["snapshot_name"])
    assert without_confidence(await page_items(client, user.headers)) == without_confidence(before)


async def test_purge_by_memory_ids(client: TestClientProtocol, user: User) -> None:
    stored = await store_batch(client, user.headers, MIXED)
    chosen = [stored[0]["memory_id"], stored[4]["memory_id"]]
    result = await _purge(client, user.headers, memory_ids=[*chosen, "0" * 32])
    assert result["purged"] == 2
    remaining = {item["memory_id"] for item in await page_items(client, user.headers)}
    assert remaining == {item["memory_id"] for item in stored} - set(chosen)
    # Purging them again finds nothing active.
    assert (await _purge(client, user.headers, memory_ids=chosen))["purged"] == 0


async def test_selectors_combine_with_and(client: TestClientProtocol, user: User) -> None:
    stored = await store_batch(client, user.headers, MIXED)
    # The id of a profile memory with the type `working`: nothing matches both.
    result = await _purge(
        client, user.headers, memory_ids=[stored[0]["memory_id"]], memory_types=["working"]
    )
    assert result["purged"] == 0
    assert len(await page_items(client, user.headers)) == 5
    result = await _purge(
        client,
        user.headers,
        memory_ids=[stored[0]["memory_id"], stored[2]["memory_id"]],
        memory_types=["working", "semantic"],
    )
    assert result["purged"] == 1
    assert "Scratch note for today" not in await page_contents(client, user.headers)


async def test_purge_by_session(client: TestClientProtocol, user: User) -> None:
    await store(client, user.headers, "Kim asked about flights", session_id="s-1")
    await store(client, user.headers, "Kim booked a hotel", session_id="s-1")
    await store(client, user.headers, "Kim likes hiking", session_id="s-2")
    await store(client, user.headers, "Kim is a teacher")
    result = await _purge(client, user.headers, session_id="s-1")
    assert result["purged"] == 2
    assert await page_contents(client, user.headers) == {"Kim likes hiking", "Kim is a teacher"}


async def test_purge_by_topic_uses_full_text(client: TestClientProtocol, user: User) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "Lena's dentist appointment is on Monday"},
            {"content": "The dentist recommended a new toothbrush"},
            {"content": "Lena enjoys playing chess"},
        ],
    )
    result = await _purge(client, user.headers, topic="dentist")
    assert result["purged"] == 2
    assert await page_contents(client, user.headers) == {"Lena enjoys playing chess"}
    # A topic that matches nothing purges nothing (but is a real selector).
    nothing = await _purge(client, user.headers, topic="volcano")
    assert nothing["purged"] == 0


async def test_purge_by_topic_takes_only_memories_holding_all_of_it(
    client: TestClientProtocol, user: User
) -> None:
    """Sharing one piece of the topic (服务 of 支付服务, api of invoice-api) is not enough."""
    await store_batch(
        client,
        user.headers,
        [
            {"content": "支付服务使用PostgreSQL作为主数据库。"},
            {"content": "支付服务每周二部署。"},
            {"content": "服务器宕机了, 运维已处理。"},
            {"content": "客户服务热线是400-123。"},
            {"content": "invoice-api pins lodash 4.17.15"},
            {"content": "The API gateway runs on k8s."},
        ],
    )
    assert (await _purge(client, user.headers, topic="支付服务"))["purged"] == 2
    assert (await _purge(client, user.headers, topic="invoice-api"))["purged"] == 1
    assert await page_contents(client, user.headers) == {
        "服务器宕机了, 运维已处理。",
        "客户服务热线是400-123。",
        "The API gateway runs on k8s.",
    }


async def test_purge_before_a_time_without_zone_is_utc(
    client: TestClientProtocol, user: User
) -> None:
    old = await store(client, user.headers, "Max had a cold last week")
    await asyncio.sleep(0.05)
    cut = datetime.now(UTC)
    await asyncio.sleep(0.05)
    new = await store(client, user.headers, "Max feels fine now")

    # A time one hour before the cut, given in UTC+01:00 notation, is still before `old`.
    early = (cut - timedelta(hours=1)).astimezone(timezone(timedelta(hours=1)))
    assert (await _purge(client, user.headers, before=early.isoformat()))["purged"] == 0
    # The cut written without a zone is read as UTC: only the older memory is before it.
    naive = cut.replace(tzinfo=None).isoformat()
    result = await _purge(client, user.headers, before=naive)
    assert result["purged"] == 1
    remaining = {item["memory_id"] for item in await page_items(client, user.headers)}
    assert remaining == {new["memory_id"]}
    assert old["memory_id"] not in remaining


async def test_purge_before_combines_with_type(client: TestClientProtocol, user: User) -> None:
    await store_batch(client, user.headers, MIXED)
    later = (datetime.now(UTC) + timedelta(minutes=5)).replace(tzinfo=None).isoformat()
    result = await _purge(client, user.headers, before=later, memory_types=["profile"])
    assert result["purged"] == 1
    assert len(await page_items(client, user.headers)) == 4


async def test_purge_without_a_selector_does_nothing(
    client: TestClientProtocol, user: User
) -> None:
    await store_batch(client, user.headers, MIXED)
    for body in ({}, {"reason": "just because"}):
        response = await client.post("/v1/memories/purge", json=body, headers=user.headers)
        assert response.status_code == 200
        result = await response.get_json()
        assert result["purged"] == 0
        assert result.get("snapshot_name") is None
    assert len(await page_items(client, user.headers)) == 5
    assert await list_snapshots(client, user.headers) == []


@pytest.mark.parametrize(
    "body",
    [
        {"memory_types": ["nonsense"]},
        {"before": "yesterday"},
        {"memory_ids": "not-a-list"},
        {"topic": ""},
        {"unknown_field": 1},
    ],
    ids=str,
)
async def test_purge_rejects_invalid_selectors(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    await store(client, user.headers, "Nora grows tomatoes")
    response = await client.post("/v1/memories/purge", json=body, headers=user.headers)
    await error_detail(response, 422)
    assert await page_contents(client, user.headers) == {"Nora grows tomatoes"}


async def test_delete_takes_a_safety_snapshot_that_restores_the_memory(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "Oscar's locker code is 1234")
    before = await page_items(client, user.headers)
    response = await client.delete(
        f"/v1/memories/{memory['memory_id']}",
        query_string={"reason": "secret"},
        headers=user.headers,
    )
    assert response.status_code == 200
    deleted = await response.get_json()
    assert deleted["deleted"] is True
    assert PRE_DELETE.match(deleted["snapshot_name"]), deleted
    assert await page_items(client, user.headers) == []
    again = await client.delete(f"/v1/memories/{memory['memory_id']}", headers=user.headers)
    await error_detail(again, 404)

    listed = {item["name"]: item for item in await list_snapshots(client, user.headers)}
    assert listed[deleted["snapshot_name"]]["kind"] == "safety"
    await roll_back(client, user.headers, deleted["snapshot_name"])
    assert without_confidence(await page_items(client, user.headers)) == without_confidence(before)


async def test_purge_rate_limit_is_30_per_minute(client: TestClientProtocol, user: User) -> None:
    await store(client, user.headers, "Paul keeps a diary", memory_type="working")
    for _ in range(30):
        await _purge(client, user.headers, memory_types=["working"])
    response = await client.post(
        "/v1/memories/purge", json={"memory_types": ["working"]}, headers=user.headers
    )
    await error_detail(response, 429)
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    # Another user's key has its own window.
    other = await create_user(client, "purge-other")
    await _purge(client, other.headers, memory_types=["working"])


async def test_safety_snapshots_beyond_the_setting_are_pruned_oldest_first(
    embedder: Embedder,
) -> None:
    service = create_app(make_settings(safety_snapshots_kept=3, instance_id="keep3"), embedder)
    # A cold database can take longer than Quart's default 6 s to start an app.
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        client = service.test_client()
        owner = await create_user(client, "keep3")
        stored = await store_batch(
            client, owner.headers, [{"content": f"Quinn's fact number {n}"} for n in range(5)]
        )
        await take_snapshot(client, owner.headers, "mine")
        names = []
        for memory in stored:
            response = await client.delete(
                f"/v1/memories/{memory['memory_id']}", headers=owner.headers
            )
            assert response.status_code == 200
            names.append((await response.get_json())["snapshot_name"])
        listed = await list_snapshots(client, owner.headers)
        safety = {item["name"] for item in listed if item["kind"] == "safety"}
        assert safety == set(names[-3:])
        # User snapshots are never pruned.
        assert "mine" in {item["name"] for item in listed}
        # The newest kept safety snapshot still restores exactly its state.
        await roll_back(client, owner.headers, names[-1])
        assert await page_contents(client, owner.headers) == {"Quinn's fact number 4"}
        listed = await list_snapshots(client, owner.headers)
        assert sum(1 for item in listed if item["kind"] == "safety") == 3
