"""One user never sees or changes another user's memories, through any memory endpoint."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User, create_user
from tests.support.branches import create_branch
from tests.support.http import error_detail
from tests.support.memories import contents, fulltext, ids, list_all, ranked, store, store_batch

B_FACTS = [
    {"content": "Bea's bank PIN hint is the tortoise's birthday", "session_id": "shared"},
    {"content": "Bea is allergic to penicillin", "memory_type": "profile"},
    {"content": "Bea restarts the flux capacitor with sudo flux restart"},
]


async def _two_users(client: TestClientProtocol) -> tuple[User, User, list[dict[str, Any]]]:
    a = await create_user(client, "iso-a")
    b = await create_user(client, "iso-b")
    await store(client, a.headers, "Ari likes mountain hiking", memory_type="profile")
    b_memories = await store_batch(client, b.headers, B_FACTS)
    return a, b, b_memories


async def _b_is_untouched(
    client: TestClientProtocol, b: User, b_memories: list[dict[str, Any]]
) -> None:
    listed = await list_all(client, b.headers)
    assert sorted(ids(listed)) == sorted(ids(b_memories))
    assert all(item["is_active"] and item["superseded_by"] is None for item in listed)


async def test_reads_never_show_another_users_memories(client: TestClientProtocol) -> None:
    a, b, b_memories = await _two_users(client)
    b_ids = set(ids(b_memories))

    a_listed = await list_all(client, a.headers)
    assert contents(a_listed) == ["Ari likes mountain hiking"]
    assert all(item["user_id"] == a.user_id for item in a_listed)

    for query in ("tortoise birthday PIN", "penicillin allergy", "flux capacitor restart"):
        for mode in ("retrieve", "search"):
            found = await ranked(client, a.headers, mode, query, top_k=100, min_score=0)
            assert not b_ids & set(ids(found)), (mode, query)
            assert all(item["user_id"] == a.user_id for item in found)
        found = await ranked(client, a.headers, "retrieve", query, session_id="shared", min_score=0)
        assert not b_ids & set(ids(found))
        assert await fulltext(client, a.headers, query) == []
        assert await fulltext(client, a.headers, query, session_id="shared") == []

    profile = await (await client.get("/v1/profiles/me", headers=a.headers)).get_json()
    assert profile["profile"] == "Ari likes mountain hiking"
    assert profile["stats"] == {"profile": 1}

    # B still sees their own.
    assert len(await fulltext(client, b.headers, "birthday penicillin flux")) == 3


async def test_another_users_memory_cannot_be_corrected_or_deleted(
    client: TestClientProtocol,
) -> None:
    a, b, b_memories = await _two_users(client)
    for memory in b_memories:
        response = await client.put(
            f"/v1/memories/{memory['memory_id']}/correct",
            json={"new_content": "hijacked", "reason": "probe"},
            headers=a.headers,
        )
        await error_detail(response, 404)
        response = await client.delete(f"/v1/memories/{memory['memory_id']}", headers=a.headers)
        await error_detail(response, 404)
    await _b_is_untouched(client, b, b_memories)
    assert contents(await list_all(client, a.headers)) == ["Ari likes mountain hiking"]


async def test_correct_by_query_only_matches_the_callers_memories(
    client: TestClientProtocol,
) -> None:
    empty = await create_user(client, "iso-empty")
    a, b, b_memories = await _two_users(client)

    # A user with no memories finds nothing to correct, however well B's text matches.
    response = await client.post(
        "/v1/memories/correct",
        json={"query": B_FACTS[1]["content"], "new_content": "hijacked"},
        headers=empty.headers,
    )
    await error_detail(response, 404)
    assert await list_all(client, empty.headers) == []

    # A user with memories corrects their own nearest one, never B's closer one.
    own = await store(client, a.headers, "Ari is allergic to pollen")
    response = await client.post(
        "/v1/memories/correct",
        json={"query": B_FACTS[1]["content"], "new_content": "Ari is allergic to pollen and dust"},
        headers=a.headers,
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    corrected = await response.get_json()
    assert corrected["matched_memory_id"] == own["memory_id"]
    assert corrected["user_id"] == a.user_id
    await _b_is_untouched(client, b, b_memories)


async def test_master_key_acts_only_for_the_named_user(client: TestClientProtocol) -> None:
    a, b, b_memories = await _two_users(client)
    as_a = {**MASTER, "X-User-Id": a.user_id}
    assert contents(await list_all(client, as_a)) == ["Ari likes mountain hiking"]
    assert await fulltext(client, as_a, "penicillin") == []
    response = await client.delete(f"/v1/memories/{b_memories[0]['memory_id']}", headers=as_a)
    await error_detail(response, 404)
    as_b = {**MASTER, "X-User-Id": b.user_id}
    assert sorted(ids(await list_all(client, as_b))) == sorted(ids(b_memories))


async def test_a_user_cannot_name_another_users_branch(client: TestClientProtocol) -> None:
    a, b, _ = await _two_users(client)
    await create_branch(client, b.headers, "b-only")
    for request in (
        client.post("/v1/memories", json={"content": "x", "branch": "b-only"}, headers=a.headers),
        client.get("/v1/memories", query_string={"branch": "b-only"}, headers=a.headers),
        client.post(
            "/v1/memories/fulltext-search",
            json={"query": "penicillin", "branch": "b-only"},
            headers=a.headers,
        ),
        client.post(
            "/v1/memories/search",
            json={"query": "penicillin", "branch": "b-only"},
            headers=a.headers,
        ),
    ):
        await error_detail(await request, 404)
