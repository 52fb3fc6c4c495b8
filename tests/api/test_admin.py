"""/admin: system and user stats, paging through users, key revocation, deactivation."""

from __future__ import annotations

import uuid
from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.http import bearer, error_detail, issue_key

STAT_FIELDS = {
    "users",
    "active_users",
    "api_keys",
    "live_api_keys",
    "active_memories",
    "memory_versions",
    "sessions",
    "snapshots",
    "branches",
    "feedback",
    "entities",
    "tasks",
}


async def _stats(client: TestClientProtocol) -> dict[str, int]:
    response = await client.get("/admin/stats", headers=MASTER)
    assert response.status_code == 200
    body: dict[str, int] = await response.get_json()
    return body


async def _users_page(client: TestClientProtocol, query: str) -> dict[str, Any]:
    response = await client.get(f"/admin/users?{query}", headers=MASTER)
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body


async def test_system_stats_count_users_and_keys(client: TestClientProtocol) -> None:
    before = await _stats(client)
    assert set(before) == STAT_FIELDS
    assert all(isinstance(value, int) and value >= 0 for value in before.values())

    user_id = f"stats-{uuid.uuid4().hex[:12]}"
    first = await issue_key(client, user_id, "one")
    await issue_key(client, user_id, "two")
    after_issue = await _stats(client)
    assert after_issue["users"] == before["users"] + 1
    assert after_issue["active_users"] == before["active_users"] + 1
    assert after_issue["api_keys"] == before["api_keys"] + 2
    assert after_issue["live_api_keys"] == before["live_api_keys"] + 2

    await client.delete(f"/auth/keys/{first['key_id']}", headers=bearer(first["raw_key"]))
    after_revoke = await _stats(client)
    assert after_revoke["api_keys"] == after_issue["api_keys"]
    assert after_revoke["live_api_keys"] == after_issue["live_api_keys"] - 1

    await client.delete(f"/admin/users/{user_id}", headers=MASTER)
    after_deactivate = await _stats(client)
    assert after_deactivate["users"] == after_issue["users"]
    assert after_deactivate["active_users"] == after_issue["active_users"] - 1


async def test_paging_users_visits_each_exactly_once_in_id_order(
    client: TestClientProtocol,
) -> None:
    prefix = f"page-{uuid.uuid4().hex[:8]}"
    mine = {f"{prefix}-{n}" for n in range(5)}
    for user_id in mine:
        await issue_key(client, user_id)

    seen: list[str] = []
    cursor: str | None = None
    for _ in range(10_000):
        query = "limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = await _users_page(client, query)
        assert set(page) == {"items", "next_cursor"}
        assert 1 <= len(page["items"]) <= 2
        seen.extend(item["user_id"] for item in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert len(page["items"]) == 2
    else:
        raise AssertionError("paging never ended")

    assert seen == sorted(seen)
    assert len(seen) == len(set(seen)), "a user appeared on two pages"
    assert [user_id for user_id in seen if user_id.startswith(prefix)] == sorted(mine)


async def test_user_page_items_describe_the_user(client: TestClientProtocol) -> None:
    prefix = f"item-{uuid.uuid4().hex[:8]}"
    user_id = f"{prefix}-a"
    first = await issue_key(client, user_id)
    await issue_key(client, user_id)
    await client.delete(f"/auth/keys/{first['key_id']}", headers=bearer(first["raw_key"]))

    # A cursor of the id just before ours starts the page at our user.
    before = await _users_page(client, "limit=500")
    ids = [item["user_id"] for item in before["items"]]
    cursor = None
    while user_id not in ids:
        assert before["next_cursor"], "our user is missing from the listing"
        cursor = before["next_cursor"]
        before = await _users_page(client, f"limit=500&cursor={cursor}")
        ids = [item["user_id"] for item in before["items"]]
    item = next(item for item in before["items"] if item["user_id"] == user_id)
    assert item["active"] is True
    assert item["live_keys"] == 1
    assert item["active_memories"] == 0
    assert item["deactivated_at"] is None
    assert item["active_branch"] == "main"


async def test_user_page_limit_defaults_and_bounds(client: TestClientProtocol) -> None:
    for n in range(3):
        await issue_key(client, f"bounds-{uuid.uuid4().hex[:8]}-{n}")
    one = await _users_page(client, "limit=1")
    assert len(one["items"]) == 1
    assert one["next_cursor"] is not None
    default = await _users_page(client, "")
    assert 3 <= len(default["items"]) <= 50
    assert len((await _users_page(client, "limit=500"))["items"]) <= 500


async def test_user_page_rejects_bad_cursor(client: TestClientProtocol) -> None:
    response = await client.get("/admin/users?cursor=%25%25%25not-ours", headers=MASTER)
    await error_detail(response, 400)


async def test_user_stats(client: TestClientProtocol, user: User) -> None:
    second = await issue_key(client, user.user_id, "second")
    await client.delete(f"/auth/keys/{second['key_id']}", headers=user.headers)
    response = await client.get(f"/admin/users/{user.user_id}/stats", headers=MASTER)
    assert response.status_code == 200
    stats = await response.get_json()
    assert stats["user"]["user_id"] == user.user_id
    assert stats["user"]["active"] is True
    assert stats["keys"] == 2
    assert stats["live_keys"] == 1
    assert stats["active_memories"] == 0
    assert stats["memories_by_type"] == {}
    for field in ("sessions", "snapshots", "branches", "feedback"):
        assert stats[field] == 0


async def test_admin_routes_404_for_unknown_user(client: TestClientProtocol) -> None:
    unknown = f"nobody-{uuid.uuid4().hex}"
    for method, path in [
        ("GET", f"/admin/users/{unknown}/stats"),
        ("GET", f"/admin/users/{unknown}/keys"),
        ("DELETE", f"/admin/users/{unknown}/keys"),
        ("DELETE", f"/admin/users/{unknown}"),
    ]:
        await error_detail(await client.open(path, method=method, headers=MASTER), 404)
    # None of these created the user.
    await error_detail(await client.get(f"/admin/users/{unknown}/stats", headers=MASTER), 404)


async def test_list_a_users_keys(client: TestClientProtocol, user: User, other_user: User) -> None:
    second = await issue_key(client, user.user_id, "second")
    response = await client.get(f"/admin/users/{user.user_id}/keys", headers=MASTER)
    assert response.status_code == 200
    keys = await response.get_json()
    assert {key["key_id"] for key in keys} == {user.key_id, second["key_id"]}
    assert all(key["user_id"] == user.user_id for key in keys)
    assert all("raw_key" not in key and "hash" not in key for key in keys)


async def test_revoke_all_of_a_users_keys(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    second = await issue_key(client, user.user_id, "second")
    response = await client.delete(f"/admin/users/{user.user_id}/keys", headers=MASTER)
    assert response.status_code == 200
    assert await response.get_json() == {"user_id": user.user_id, "revoked": 2}
    for raw_key in (user.raw_key, second["raw_key"]):
        await error_detail(await client.get("/auth/keys", headers=bearer(raw_key)), 401)
    # Only that user's keys: the other user's key works.
    assert (await client.get("/auth/keys", headers=other_user.headers)).status_code == 200

    keys = await (await client.get(f"/admin/users/{user.user_id}/keys", headers=MASTER)).get_json()
    assert all(key["revoked_at"] is not None for key in keys)
    again = await client.delete(f"/admin/users/{user.user_id}/keys", headers=MASTER)
    assert await again.get_json() == {"user_id": user.user_id, "revoked": 0}

    # The user is still active: a new key works.
    fresh = await issue_key(client, user.user_id, "fresh")
    assert (await client.get("/auth/keys", headers=bearer(fresh["raw_key"]))).status_code == 200


async def test_deactivate_user(client: TestClientProtocol, user: User, other_user: User) -> None:
    response = await client.delete(f"/admin/users/{user.user_id}", headers=MASTER)
    assert response.status_code == 200
    body = await response.get_json()
    assert body["user_id"] == user.user_id
    assert body["active"] is False
    assert body["deactivated_at"] is not None

    await error_detail(await client.get("/auth/keys", headers=user.headers), 401)
    assert (await client.get("/auth/keys", headers=other_user.headers)).status_code == 200

    stats = await (
        await client.get(f"/admin/users/{user.user_id}/stats", headers=MASTER)
    ).get_json()
    assert stats["user"]["active"] is False
    assert stats["user"]["deactivated_at"] == body["deactivated_at"]

    # Deactivating twice keeps the first time.
    again = await client.delete(f"/admin/users/{user.user_id}", headers=MASTER)
    assert again.status_code == 200
    assert (await again.get_json())["deactivated_at"] == body["deactivated_at"]


async def test_deactivated_user_gets_no_new_key(client: TestClientProtocol, user: User) -> None:
    await client.delete(f"/admin/users/{user.user_id}", headers=MASTER)
    response = await client.post(
        "/auth/keys", json={"user_id": user.user_id, "name": "again"}, headers=MASTER
    )
    await error_detail(response, 409)
    keys = await (await client.get(f"/admin/users/{user.user_id}/keys", headers=MASTER)).get_json()
    assert [key["key_id"] for key in keys] == [user.key_id]


async def test_master_cannot_act_for_deactivated_user(
    client: TestClientProtocol, user: User
) -> None:
    await client.delete(f"/admin/users/{user.user_id}", headers=MASTER)
    response = await client.get("/auth/keys", headers={**MASTER, "X-User-Id": user.user_id})
    await error_detail(response, 403)


async def test_master_key_needs_no_user_header_on_admin_routes(
    client: TestClientProtocol, user: User
) -> None:
    response = await client.get("/admin/stats", headers={**MASTER, "X-User-Id": user.user_id})
    assert response.status_code == 200
    assert set(await response.get_json()) == STAT_FIELDS
