"""Garbage collection of past versions: what no snapshot can see goes, the rest stays usable."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.registry import Registry
from app.services.versioning.snapshots import collect_garbage
from tests.conftest import User, create_user
from tests.support.branches import create_branch
from tests.support.http import error_detail, request_ok
from tests.support.memories import (
    correct,
    page_contents,
    page_items,
    store,
    store_batch,
    without_confidence,
)
from tests.support.neo4j_direct import query
from tests.support.snapshots import roll_back, take_snapshot
from tests.support.transfer import export_lines, import_ok, of_kind

Headers = dict[str, str]


async def _state(client: TestClientProtocol, headers: Headers) -> list[dict[str, Any]]:
    return without_confidence(await page_items(client, headers))


async def _versions(driver: AsyncDriver, user_id: str) -> list[tuple[str, int, int]]:
    rows = await query(
        driver,
        "MATCH (v:MemoryVersion {user_id: $user_id}) "
        "RETURN v.content AS content, v.created_seq AS created, v.ended_seq AS ended "
        "ORDER BY created, ended, content",
        user_id=user_id,
    )
    return [(row["content"], row["created"], row["ended"]) for row in rows]


async def test_collects_only_versions_no_snapshot_can_see(
    client: TestClientProtocol, user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    headers = user.headers
    stored = await store_batch(
        client,
        headers,
        [
            {"content": "Ann drives a van"},
            {"content": "Ann's van is white"},
            {"content": "Ann delivers bread"},
        ],
    )
    van, _, bread = (item["memory_id"] for item in stored)
    await take_snapshot(client, headers, "keep")
    kept_state = await _state(client, headers)

    # Seen by "keep": the first version of the corrected memory.
    await correct(client, headers, van, "Ann drives a truck")
    # Seen by nothing: intermediate versions of a memory born and corrected after "keep".
    later = await store(client, headers, "Ann has a dog")
    second = await correct(client, headers, later["memory_id"], "Ann has two dogs")
    await correct(client, headers, second["memory_id"], "Ann has three dogs")
    # Seen by "keep" and by the deletion's safety snapshot: the deleted memory's last version.
    deleted = await request_ok(client, "DELETE", f"/v1/memories/{bread}", headers)
    safety = deleted["snapshot_name"]
    safety_detail = await request_ok(client, "GET", f"/v1/snapshots/{safety}", headers)
    safety_state_before_delete = {item["content"] for item in safety_detail["memories"]}
    assert "Ann delivers bread" in safety_state_before_delete

    everything = await _versions(neo4j_driver, user.user_id)
    contents = [content for content, _, _ in everything]
    assert contents.count("Ann has a dog") == 1
    assert contents.count("Ann has two dogs") == 1

    collected = await collect_garbage(registry)
    assert collected >= 2
    survivors = await _versions(neo4j_driver, user.user_id)
    survivor_contents = sorted(content for content, _, _ in survivors)
    # Past versions of the dog memories are gone; what "keep" or the safety snapshot sees stays.
    assert "Ann has a dog" not in survivor_contents
    assert "Ann has two dogs" not in survivor_contents
    assert "Ann drives a van" in survivor_contents
    assert "Ann delivers bread" in survivor_contents
    assert len(survivors) < len(everything)
    assert "Ann's van is white" not in survivor_contents  # never changed: no past version

    # Collecting again finds nothing more of this user.
    await collect_garbage(registry)
    assert await _versions(neo4j_driver, user.user_id) == survivors

    # Surviving snapshots still diff and roll back exactly.
    diff = await request_ok(client, "GET", "/v1/snapshots/keep/diff", headers)
    assert {item["content"] for item in diff["removed"]} == {
        "Ann drives a van",
        "Ann delivers bread",
    }
    assert {item["content"] for item in diff["added"]} == {
        "Ann drives a truck",
        "Ann has three dogs",
    }
    await roll_back(client, headers, "keep")
    assert await _state(client, headers) == kept_state
    await roll_back(client, headers, safety)
    assert {item["content"] for item in await _state(client, headers)} == safety_state_before_delete


async def test_versions_go_when_their_snapshots_are_deleted(
    client: TestClientProtocol, user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    headers = user.headers
    memory = await store(client, headers, "Ben bakes")
    await take_snapshot(client, headers, "old")
    await correct(client, headers, memory["memory_id"], "Ben bakes sourdough")
    current = await _state(client, headers)
    await collect_garbage(registry)
    assert [content for content, _, _ in await _versions(neo4j_driver, user.user_id)] == [
        "Ben bakes"
    ]

    await request_ok(client, "DELETE", "/v1/snapshots/old", headers)
    await collect_garbage(registry)
    assert await _versions(neo4j_driver, user.user_id) == []
    # Current memories are never collected.
    assert await _state(client, headers) == current


async def test_a_snapshot_keeps_versions_of_its_own_branch_only(
    client: TestClientProtocol, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    owner = await create_user(client, "gc-branch")
    headers = owner.headers
    memory = await store(client, headers, "Cleo sings")
    await create_branch(client, headers, "side")
    await take_snapshot(client, headers, "main-now")
    # Changed twice on the branch: main's snapshot cannot see the branch's past versions. The
    # one the branch held at its fork stays (a merge compares with it); the one between goes.
    await correct(client, headers, memory["memory_id"], "Cleo sings opera", branch="side")
    corrected = await request_ok(
        client, "GET", "/v1/memories", headers, query_string={"branch": "side"}
    )
    [between] = corrected["items"]
    await correct(client, headers, between["memory_id"], "Cleo sings arias", branch="side")
    await collect_garbage(registry)
    rows = await query(
        neo4j_driver,
        "MATCH (v:MemoryVersion {user_id: $user_id}) "
        "RETURN v.branch AS branch, v.content AS content",
        user_id=owner.user_id,
    )
    assert rows == [{"branch": "side", "content": "Cleo sings"}]
    side = await request_ok(client, "GET", "/v1/memories", headers, query_string={"branch": "side"})
    assert [item["content"] for item in side["items"]] == ["Cleo sings arias"]
    main_diff = await request_ok(client, "GET", "/v1/snapshots/main-now/diff", headers)
    assert main_diff["counts"] == {"added": 0, "removed": 0, "modified": 0}


async def test_change_records_go_with_the_last_version_they_made(
    client: TestClientProtocol, user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "The on-call phone is in drawer 2.")
    once = await correct(client, user.headers, memory["memory_id"], "It is in drawer 3.")
    await correct(client, user.headers, once["memory_id"], "It is in drawer 4.")
    # Every record counts as old; then the versions no snapshot sees are collected.
    await query(
        neo4j_driver,
        "MATCH (c:Change {user_id: $user_id}) SET c.at = c.at - duration({days: 2})",
        user_id=user.user_id,
    )
    while await collect_garbage(registry):
        pass

    rows = await query(
        neo4j_driver,
        "MATCH (c:Change {user_id: $user_id}) RETURN c.seq AS seq, c.kind AS kind ORDER BY seq",
        user_id=user.user_id,
    )
    kept = {(row["seq"], row["kind"]) for row in rows}
    nodes = await query(
        neo4j_driver,
        "MATCH (m:Memory|MemoryVersion {user_id: $user_id}) RETURN DISTINCT m.created_seq AS seq",
        user_id=user.user_id,
    )
    assert {seq for seq, _ in kept} == {row["seq"] for row in nodes}
    history = await request_ok(
        client, "GET", f"/v1/memories/{memory['memory_id']}/history", user.headers
    )
    assert all(version["cause"] is not None for version in history["versions"])


async def test_a_fork_from_a_time_needs_the_history_collection_left(
    client: TestClientProtocol, user: User, registry: Registry
) -> None:
    headers = user.headers
    memory = await store(client, headers, "Dara drums")
    then = (await take_snapshot(client, headers, "then"))["created_at"]
    await request_ok(client, "DELETE", "/v1/snapshots/then", headers)  # keeps nothing now
    await correct(client, headers, memory["memory_id"], "Dara drums in a band")
    later = (await take_snapshot(client, headers, "later"))["created_at"]
    forked = await create_branch(client, headers, "before-gc", from_timestamp=then)
    assert await page_contents(client, headers, "before-gc") == {"Dara drums"}

    await collect_garbage(registry)

    # The version main had then is gone (the branch holds its own copy): main then is no
    # longer known, and a fork from that time is refused, not made from what is left.
    response = await client.post(
        "/v1/branches", json={"name": "after-gc", "from_timestamp": then}, headers=headers
    )
    assert "garbage collection" in await error_detail(response, 422)
    assert await page_contents(client, headers, "before-gc") == {"Dara drums"}
    assert forked["memory_count"] == 1
    # A time after the collected change is still served.
    await create_branch(client, headers, "later", from_timestamp=later)
    assert await page_contents(client, headers, "later") == {"Dara drums in a band"}


async def test_an_import_knows_what_collection_took_from_the_history_it_carries(
    client: TestClientProtocol, user: User, registry: Registry
) -> None:
    memory = await store(client, user.headers, "Eli paints")
    then = (await take_snapshot(client, user.headers, "then"))["created_at"]
    await request_ok(client, "DELETE", "/v1/snapshots/then", user.headers)
    await correct(client, user.headers, memory["memory_id"], "Eli paints murals")
    await collect_garbage(registry)

    lines = await export_lines(client, user.headers)
    [settings] = of_kind(lines, "user")
    assert settings["collected_through"] > 0
    target = await create_user(client, "gc-import")
    await import_ok(client, target.headers, lines)

    # The file lacks main's version of then as the source does: the fork is refused there too.
    response = await client.post(
        "/v1/branches", json={"name": "then", "from_timestamp": then}, headers=target.headers
    )
    assert "garbage collection" in await error_detail(response, 422)
    assert await page_contents(client, target.headers) == {"Eli paints murals"}
