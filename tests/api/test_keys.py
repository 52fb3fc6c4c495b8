"""/auth/keys: issuing, listing, showing, rotating and revoking API keys, and who may do what."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.http import bearer, error_detail, issue_key
from tests.support.neo4j_direct import query

RAW_KEY = re.compile(r"^sk-[0-9a-f]{32}$")
KEY_FIELDS = {
    "key_id",
    "user_id",
    "name",
    "prefix",
    "created_at",
    "expires_at",
    "revoked_at",
    "last_used_at",
}


def _new_user_id(prefix: str = "keys") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


async def test_master_issues_key_shown_once(client: TestClientProtocol) -> None:
    user_id = _new_user_id()
    response = await client.post(
        "/auth/keys", json={"user_id": user_id, "name": "laptop"}, headers=MASTER
    )
    assert response.status_code == 201
    body = await response.get_json()
    assert set(body) == KEY_FIELDS | {"raw_key"}
    assert RAW_KEY.match(body["raw_key"]), body["raw_key"]
    assert str(uuid.UUID(body["key_id"])) == body["key_id"]
    assert body["prefix"] == body["raw_key"][:12]
    assert len(body["prefix"]) == 12
    assert body["user_id"] == user_id
    assert body["name"] == "laptop"
    assert body["revoked_at"] is None
    assert body["expires_at"] is None
    datetime.fromisoformat(body["created_at"])

    # The raw key is never shown again: not in the detail, not in the list.
    detail = await client.get(f"/auth/keys/{body['key_id']}", headers=bearer(body["raw_key"]))
    assert detail.status_code == 200
    shown = await detail.get_json()
    assert set(shown) == KEY_FIELDS
    assert shown["key_id"] == body["key_id"]
    assert shown["prefix"] == body["prefix"]
    listed = await client.get("/auth/keys", headers=bearer(body["raw_key"]))
    assert all("raw_key" not in key and "hash" not in key for key in await listed.get_json())


async def test_each_issue_gives_a_distinct_key(client: TestClientProtocol) -> None:
    user_id = _new_user_id()
    first = await issue_key(client, user_id, "one")
    second = await issue_key(client, user_id, "two")
    assert first["raw_key"] != second["raw_key"]
    assert first["key_id"] != second["key_id"]
    for issued in (first, second):
        response = await client.get("/auth/keys", headers=bearer(issued["raw_key"]))
        assert response.status_code == 200


async def test_list_shows_the_callers_keys_only(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    second = await issue_key(client, user.user_id, "second")
    response = await client.get("/auth/keys", headers=user.headers)
    assert response.status_code == 200
    keys = await response.get_json()
    assert {key["key_id"] for key in keys} == {user.key_id, second["key_id"]}
    assert {key["user_id"] for key in keys} == {user.user_id}
    assert {key["name"] for key in keys} == {"test", "second"}
    assert other_user.key_id not in {key["key_id"] for key in keys}


async def test_detail_of_own_key(client: TestClientProtocol, user: User) -> None:
    response = await client.get(f"/auth/keys/{user.key_id}", headers=user.headers)
    assert response.status_code == 200
    key = await response.get_json()
    assert key["key_id"] == user.key_id
    assert key["user_id"] == user.user_id
    assert key["prefix"] == user.raw_key[:12]
    assert key["revoked_at"] is None
    # The key was just used to authenticate, so its last use is recorded.
    assert key["last_used_at"] is not None


async def test_rotate_issues_new_key_and_retires_the_old(
    client: TestClientProtocol, user: User
) -> None:
    response = await client.put(f"/auth/keys/{user.key_id}/rotate", headers=user.headers)
    assert response.status_code == 201
    new = await response.get_json()
    assert RAW_KEY.match(new["raw_key"])
    assert new["raw_key"] != user.raw_key
    assert new["key_id"] != user.key_id
    assert new["prefix"] == new["raw_key"][:12]
    assert new["name"] == "test"
    assert new["user_id"] == user.user_id
    assert new["revoked_at"] is None

    await error_detail(await client.get("/auth/keys", headers=user.headers), 401)
    listed = await client.get("/auth/keys", headers=bearer(new["raw_key"]))
    assert listed.status_code == 200
    by_id = {key["key_id"]: key for key in await listed.get_json()}
    assert by_id[user.key_id]["revoked_at"] is not None
    assert by_id[new["key_id"]]["revoked_at"] is None

    # A retired key cannot be rotated again.
    again = await client.put(f"/auth/keys/{user.key_id}/rotate", headers=bearer(new["raw_key"]))
    await error_detail(again, 409)


async def test_concurrent_rotations_of_one_key_issue_one_new_key(
    client: TestClientProtocol, neo4j_driver: AsyncDriver
) -> None:
    for _ in range(3):
        user_id = _new_user_id("race")
        issued = await issue_key(client, user_id)
        responses = await asyncio.gather(
            *(
                client.put(
                    f"/auth/keys/{issued['key_id']}/rotate", headers=bearer(issued["raw_key"])
                )
                for _ in range(6)
            )
        )
        statuses = sorted(response.status_code for response in responses)
        assert statuses.count(201) == 1, statuses
        assert set(statuses) <= {201, 401, 409}, statuses
        keys = await (await client.get(f"/admin/users/{user_id}/keys", headers=MASTER)).get_json()
        assert len(keys) == 2
        [live] = [key["key_id"] for key in keys if key["revoked_at"] is None]
        # The retired key names its successor (a rotation that lost the race used to write
        # back the null it read before the winner).
        [old] = await query(
            neo4j_driver,
            "MATCH (k:ApiKey {id: $key_id}) RETURN k.rotated_to AS rotated_to",
            key_id=issued["key_id"],
        )
        assert old["rotated_to"] == live


async def test_rotate_keeps_expiry(client: TestClientProtocol) -> None:
    expires = datetime.now(UTC) + timedelta(days=3)
    issued = await issue_key(client, _new_user_id(), expires_at=expires.isoformat())
    response = await client.put(
        f"/auth/keys/{issued['key_id']}/rotate", headers=bearer(issued["raw_key"])
    )
    assert response.status_code == 201
    new = await response.get_json()
    assert datetime.fromisoformat(new["expires_at"]) == datetime.fromisoformat(issued["expires_at"])


async def test_revoke_own_key(client: TestClientProtocol, user: User) -> None:
    spare = await issue_key(client, user.user_id, "spare")
    response = await client.delete(f"/auth/keys/{spare['key_id']}", headers=user.headers)
    assert response.status_code == 200
    revoked = await response.get_json()
    assert revoked["key_id"] == spare["key_id"]
    assert revoked["revoked_at"] is not None
    assert "raw_key" not in revoked

    await error_detail(await client.get("/auth/keys", headers=bearer(spare["raw_key"])), 401)
    # The key that revoked it still works.
    assert (await client.get("/auth/keys", headers=user.headers)).status_code == 200


async def test_revoking_the_key_in_use_locks_it_out(client: TestClientProtocol, user: User) -> None:
    response = await client.delete(f"/auth/keys/{user.key_id}", headers=user.headers)
    assert response.status_code == 200
    await error_detail(await client.get(f"/auth/keys/{user.key_id}", headers=user.headers), 401)


async def test_key_expired_in_the_past_is_refused(client: TestClientProtocol) -> None:
    past = datetime.now(UTC) - timedelta(minutes=1)
    issued = await issue_key(client, _new_user_id(), expires_at=past.isoformat())
    assert datetime.fromisoformat(issued["expires_at"]) == past
    detail = await error_detail(
        await client.get("/auth/keys", headers=bearer(issued["raw_key"])), 401
    )
    assert "expired" in detail


async def test_key_expiring_in_the_future_works(client: TestClientProtocol) -> None:
    future = datetime.now(UTC) + timedelta(hours=1)
    issued = await issue_key(client, _new_user_id(), expires_at=future.isoformat())
    response = await client.get(f"/auth/keys/{issued['key_id']}", headers=bearer(issued["raw_key"]))
    assert response.status_code == 200
    assert datetime.fromisoformat((await response.get_json())["expires_at"]) == future


async def test_expiry_in_other_time_zone_is_honoured(client: TestClientProtocol) -> None:
    # 30 minutes ago, written as a +05:00 wall-clock time.
    past = (datetime.now(UTC) - timedelta(minutes=30)).astimezone(timezone(timedelta(hours=5)))
    issued = await issue_key(client, _new_user_id(), expires_at=past.isoformat())
    await error_detail(await client.get("/auth/keys", headers=bearer(issued["raw_key"])), 401)


async def test_expiry_without_time_zone_is_utc(client: TestClientProtocol) -> None:
    # Like every timestamp the API takes: no zone means UTC.
    past = (datetime.now(UTC) - timedelta(minutes=30)).replace(microsecond=0, tzinfo=None)
    expired = await issue_key(client, _new_user_id(), expires_at=past.isoformat())
    assert datetime.fromisoformat(expired["expires_at"]) == past.replace(tzinfo=UTC)
    await error_detail(await client.get("/auth/keys", headers=bearer(expired["raw_key"])), 401)


# --- 401: no credential or a credential that is not (or no longer) valid ---------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer   "},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer sk-00000000000000000000000000000000"},
        {"Authorization": "Bearer not-a-key"},
    ],
    ids=["none", "empty", "scheme-only", "blank", "basic", "unknown-key", "garbage"],
)
async def test_missing_or_unknown_credential_is_401(
    client: TestClientProtocol, headers: dict[str, str]
) -> None:
    for method, path in [
        ("GET", "/auth/keys"),
        ("GET", f"/auth/keys/{uuid.uuid4()}"),
        ("PUT", f"/auth/keys/{uuid.uuid4()}/rotate"),
        ("DELETE", f"/auth/keys/{uuid.uuid4()}"),
        ("GET", "/admin/stats"),
    ]:
        response = await client.open(path, method=method, headers=headers)
        await error_detail(response, 401)
    response = await client.post("/auth/keys", json={"user_id": "x", "name": "y"}, headers=headers)
    await error_detail(response, 401)


async def test_key_of_deactivated_user_is_401_at_once(
    client: TestClientProtocol, user: User
) -> None:
    assert (await client.get("/auth/keys", headers=user.headers)).status_code == 200
    response = await client.delete(f"/admin/users/{user.user_id}", headers=MASTER)
    assert response.status_code == 200
    await error_detail(await client.get("/auth/keys", headers=user.headers), 401)
    await error_detail(await client.get(f"/auth/keys/{user.key_id}", headers=user.headers), 401)


# --- 403: a valid API key on a master-only route ----------------------------------------------


async def test_api_key_cannot_issue_keys(client: TestClientProtocol, user: User) -> None:
    for user_id in (user.user_id, _new_user_id()):
        response = await client.post(
            "/auth/keys", json={"user_id": user_id, "name": "sneaky"}, headers=user.headers
        )
        await error_detail(response, 403)
    listed = await client.get("/auth/keys", headers=user.headers)
    assert [key["key_id"] for key in await listed.get_json()] == [user.key_id]


async def test_api_key_is_forbidden_on_admin_routes(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    for method, path in [
        ("GET", "/admin/stats"),
        ("GET", "/admin/users"),
        ("GET", f"/admin/users/{user.user_id}/stats"),
        ("GET", f"/admin/users/{other_user.user_id}/keys"),
        ("DELETE", f"/admin/users/{other_user.user_id}/keys"),
        ("DELETE", f"/admin/users/{other_user.user_id}"),
    ]:
        await error_detail(await client.open(path, method=method, headers=user.headers), 403)
    # Nothing happened to the other user.
    assert (await client.get("/auth/keys", headers=other_user.headers)).status_code == 200


# --- 404: another user's key cannot be seen, rotated or revoked -------------------------------


async def test_another_users_key_reads_as_not_found(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    foreign = other_user.key_id
    unknown = str(uuid.uuid4())
    for key_id in (foreign, unknown):
        await error_detail(await client.get(f"/auth/keys/{key_id}", headers=user.headers), 404)
        await error_detail(
            await client.put(f"/auth/keys/{key_id}/rotate", headers=user.headers), 404
        )
        await error_detail(await client.delete(f"/auth/keys/{key_id}", headers=user.headers), 404)
    # The other user's key is untouched.
    response = await client.get(f"/auth/keys/{foreign}", headers=other_user.headers)
    assert response.status_code == 200
    assert (await response.get_json())["revoked_at"] is None


# --- The master key acting for a user ---------------------------------------------------------


async def test_master_with_user_header_acts_for_that_user(
    client: TestClientProtocol, user: User
) -> None:
    as_user = {**MASTER, "X-User-Id": user.user_id}
    listed = await client.get("/auth/keys", headers=as_user)
    assert listed.status_code == 200
    assert [key["key_id"] for key in await listed.get_json()] == [user.key_id]

    shown = await client.get(f"/auth/keys/{user.key_id}", headers=as_user)
    assert shown.status_code == 200

    rotated = await client.put(f"/auth/keys/{user.key_id}/rotate", headers=as_user)
    assert rotated.status_code == 201
    new = await rotated.get_json()
    await error_detail(await client.get("/auth/keys", headers=user.headers), 401)

    revoked = await client.delete(f"/auth/keys/{new['key_id']}", headers=as_user)
    assert revoked.status_code == 200
    await error_detail(await client.get("/auth/keys", headers=bearer(new["raw_key"])), 401)


async def test_master_without_user_header_on_user_route_is_422(
    client: TestClientProtocol, user: User
) -> None:
    await error_detail(await client.get("/auth/keys", headers=MASTER), 422)
    await error_detail(await client.get("/auth/keys", headers={**MASTER, "X-User-Id": " "}), 422)
    # A user id is a name of up to 128 characters, in the header as in POST /auth/keys.
    too_long = {**MASTER, "X-User-Id": "x" * 129}
    for path in ("/auth/keys", "/v1/memories"):
        assert "128" in await error_detail(await client.get(path, headers=too_long), 422)
    stored = await client.post("/v1/memories", json={"content": "x"}, headers=too_long)
    await error_detail(stored, 422)
    await error_detail(await client.get(f"/auth/keys/{user.key_id}", headers=MASTER), 422)


async def test_master_acting_for_another_user_sees_only_theirs(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    as_other = {**MASTER, "X-User-Id": other_user.user_id}
    await error_detail(await client.get(f"/auth/keys/{user.key_id}", headers=as_other), 404)
