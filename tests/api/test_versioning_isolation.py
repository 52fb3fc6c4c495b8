"""One user's snapshots, branches and memories are out of another user's reach (404 each)."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.branches import create_branch
from tests.support.http import error_detail, request_ok
from tests.support.memories import store, store_batch
from tests.support.snapshots import list_snapshots, take_snapshot


async def _owner_state(client: TestClientProtocol, owner: User) -> dict[str, Any]:
    """The owner's memories, snapshots and branches as they see them."""
    memories = await request_ok(client, "GET", "/v1/memories", owner.headers)
    snapshots = await list_snapshots(client, owner.headers)
    branches = await request_ok(client, "GET", "/v1/branches", owner.headers)
    on_branch = await request_ok(
        client, "GET", "/v1/memories", owner.headers, query_string={"branch": "private"}
    )
    return {
        "memories": sorted(item["memory_id"] for item in memories["items"]),
        "on_branch": sorted(item["memory_id"] for item in on_branch["items"]),
        "snapshots": sorted(item["name"] for item in snapshots),
        "branches": branches,
    }


async def _setup_owner(client: TestClientProtocol, owner: User) -> list[str]:
    stored = await store_batch(
        client,
        owner.headers,
        [
            {"content": "Zoe's bank PIN hint is her cat", "memory_type": "profile"},
            {"content": "Zoe's passport expires in May", "memory_type": "working"},
        ],
    )
    await take_snapshot(client, owner.headers, "zoe-snap")
    await create_branch(client, owner.headers, "private")
    await store(client, owner.headers, "Zoe plans a surprise party", branch="private")
    return [item["memory_id"] for item in stored]


async def test_snapshots_of_another_user_read_as_not_found(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    await _setup_owner(client, user)
    before = await _owner_state(client, user)
    intruder = other_user.headers
    assert await list_snapshots(client, intruder) == []
    for method, path in (
        ("GET", "/v1/snapshots/zoe-snap"),
        ("GET", "/v1/snapshots/zoe-snap?detail=full"),
        ("GET", "/v1/snapshots/zoe-snap/diff"),
        ("POST", "/v1/snapshots/zoe-snap/rollback"),
        ("DELETE", "/v1/snapshots/zoe-snap"),
    ):
        response = await client.open(path, method=method, headers=intruder)
        await error_detail(response, 404)
    # The same name is free for the other user, and means their own snapshot.
    mine = await take_snapshot(client, intruder, "zoe-snap")
    assert mine["name"] == "zoe-snap"
    detail = await request_ok(client, "GET", "/v1/snapshots/zoe-snap", intruder)
    assert detail["memory_count"] == 0
    assert await _owner_state(client, user) == before


async def test_branches_of_another_user_read_as_not_found(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    await _setup_owner(client, user)
    before = await _owner_state(client, user)
    intruder = other_user.headers
    listed = await request_ok(client, "GET", "/v1/branches", intruder)
    assert [item["name"] for item in listed["branches"]] == ["main"]
    for method, path, body in (
        ("POST", "/v1/branches/private/checkout", None),
        ("GET", "/v1/branches/private/diff", None),
        ("POST", "/v1/branches/private/merge", {"strategy": "replace"}),
        ("DELETE", "/v1/branches/private", None),
    ):
        kwargs: dict[str, Any] = {"json": body} if body is not None else {}
        response = await client.open(path, method=method, headers=intruder, **kwargs)
        await error_detail(response, 404)
    # Naming the owner's branch on a memory request does not reach it either.
    for method, path, kwargs in (
        ("GET", "/v1/memories", {"query_string": {"branch": "private"}}),
        ("POST", "/v1/memories", {"json": {"content": "Hijack", "branch": "private"}}),
        ("POST", "/v1/memories/search", {"json": {"query": "party", "branch": "private"}}),
        ("POST", "/v1/snapshots", {"json": {"name": "x", "branch": "private"}}),
    ):
        response = await client.open(path, method=method, headers=intruder, **kwargs)
        await error_detail(response, 404)
    # A branch of the same name made by the other user is theirs alone.
    mine = await create_branch(client, intruder, "private")
    assert mine["memory_count"] == 0
    assert (await request_ok(client, "GET", "/v1/branches/private/diff", intruder))["added"] == []
    assert await _owner_state(client, user) == before


async def test_purging_another_users_memory_ids_purges_nothing(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    ids = await _setup_owner(client, user)
    before = await _owner_state(client, user)
    intruder = other_user.headers
    result = await request_ok(
        client, "POST", "/v1/memories/purge", intruder, json={"memory_ids": ids}
    )
    assert result["purged"] == 0
    result = await request_ok(
        client, "POST", "/v1/memories/purge", intruder, json={"memory_types": ["working"]}
    )
    assert result["purged"] == 0
    for memory_id in ids:
        response = await client.delete(f"/v1/memories/{memory_id}", headers=intruder)
        await error_detail(response, 404)
        response = await client.put(
            f"/v1/memories/{memory_id}/correct", json={"new_content": "x"}, headers=intruder
        )
        await error_detail(response, 404)
    assert await _owner_state(client, user) == before
    # The intruder's safety snapshots are theirs; the owner sees none of them.
    assert all(
        not name.startswith("pre_purge_")
        for name in (await _owner_state(client, user))["snapshots"]
    )


async def test_master_key_acts_only_for_the_named_user(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    await _setup_owner(client, user)
    as_owner = {**MASTER, "X-User-Id": user.user_id}
    as_other = {**MASTER, "X-User-Id": other_user.user_id}
    detail = await request_ok(client, "GET", "/v1/snapshots/zoe-snap", as_owner)
    assert detail["memory_count"] == 2
    await error_detail(await client.get("/v1/snapshots/zoe-snap", headers=as_other), 404)
    await error_detail(await client.post("/v1/branches/private/checkout", headers=as_other), 404)
