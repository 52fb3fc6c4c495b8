"""subject_id and session_scope on every read: retrieve, search, list and correct-by-query keep
one subject's memories (none without a subject), a session only strictly, or prefer it; and a
memory_types filter finds a rare type's best matches."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.http import error_detail, request_ok
from tests.support.memories import store, store_batch


async def _contents(client: TestClientProtocol, user: User, path: str, **body: Any) -> list[str]:
    found = await request_ok(client, "POST", path, user.headers, json=body)
    return [memory["content"] for memory in found]


async def _people(client: TestClientProtocol, user: User) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "Alice drinks green tea every morning.", "subject_id": "alice"},
            {"content": "Bob drinks black coffee every morning.", "subject_id": "bob"},
            {"content": "The team drinks tea on Fridays."},
            {"content": "Alice drinks coffee on long nights.", "subject_id": "alice"},
        ],
    )


async def test_a_subject_keeps_only_its_memories_on_retrieve_search_and_list(
    client: TestClientProtocol, user: User
) -> None:
    await _people(client, user)
    for path in ("/v1/memories/retrieve", "/v1/memories/search"):
        found = await _contents(client, user, path, query="what does she drink", subject_id="alice")
        assert sorted(found) == [
            "Alice drinks coffee on long nights.",
            "Alice drinks green tea every morning.",
        ]
    listed = await request_ok(client, "GET", "/v1/memories?subject_id=bob", user.headers)
    assert [m["content"] for m in listed["items"]] == ["Bob drinks black coffee every morning."]
    nobody = await _contents(
        client, user, "/v1/memories/retrieve", query="drinks", subject_id="carol"
    )
    assert nobody == []


async def test_session_only_is_strict_and_prefer_ranks_the_session_first(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "The deploy window is Tuesday at 10:00.", session_id="s-1")
    await store(client, user.headers, "The deploy window moved to Thursday at 15:00.")
    question = "when is the deploy window"

    strict = await _contents(
        client,
        user,
        "/v1/memories/search",
        query=question,
        session_id="s-1",
        session_scope="only",
    )
    assert strict == ["The deploy window is Tuesday at 10:00."]
    preferred = await _contents(
        client, user, "/v1/memories/retrieve", query=question, session_id="s-1"
    )
    assert preferred[0] == "The deploy window is Tuesday at 10:00."
    assert len(preferred) == 2
    listed = await request_ok(client, "GET", "/v1/memories?session_id=s-1", user.headers)
    assert [m["content"] for m in listed["items"]] == ["The deploy window is Tuesday at 10:00."]


async def test_scoping_mistakes_are_422(client: TestClientProtocol, user: User) -> None:
    only_without_session = await client.post(
        "/v1/memories/retrieve", json={"query": "x", "session_scope": "only"}, headers=user.headers
    )
    assert "session_id" in await error_detail(only_without_session, 422)
    unknown_scope = await client.post(
        "/v1/memories/search", json={"query": "x", "session_scope": "all"}, headers=user.headers
    )
    await error_detail(unknown_scope, 422)
    list_prefer = await client.get(
        "/v1/memories?session_id=s&session_scope=prefer", headers=user.headers
    )
    assert "no ranking" in await error_detail(list_prefer, 422)


async def test_correct_by_query_stays_within_the_subject_and_prefers_the_session(
    client: TestClientProtocol, user: User
) -> None:
    await _people(client, user)
    corrected = await request_ok(
        client,
        "POST",
        "/v1/memories/correct",
        user.headers,
        json={
            "query": "Bob drinks black coffee every morning",
            "new_content": "Alice drinks black coffee every morning now.",
            "subject_id": "alice",
        },
    )
    assert corrected["subject_id"] == "alice"
    assert corrected["content"] == "Alice drinks black coffee every morning now."
    bob = await request_ok(client, "GET", "/v1/memories?subject_id=bob", user.headers)
    assert [m["content"] for m in bob["items"]] == ["Bob drinks black coffee every morning."]

    await store(client, user.headers, "The standup is at 9:30.", session_id="week-2")
    await store(client, user.headers, "The standup is at 9:00.")
    fixed = await request_ok(
        client,
        "POST",
        "/v1/memories/correct",
        user.headers,
        json={
            "query": "standup time",
            "new_content": "The standup is at 9:45.",
            "session_id": "week-2",
        },
    )
    assert fixed["session_id"] == "week-2"


async def test_a_rare_type_still_returns_its_best_matches(
    client: TestClientProtocol, user: User
) -> None:
    facts = [
        {"content": f"The payment service handles {n} requests per second in region {n}."}
        for n in range(150)
    ]
    procedures = [
        {
            "content": "To restart the payment service, drain traffic and run the deploy job.",
            "memory_type": "procedural",
        },
        {
            "content": "To roll back the payment service, pick the last release and redeploy.",
            "memory_type": "procedural",
        },
    ]
    for start in range(0, len(facts), 50):
        await store_batch(client, user.headers, facts[start : start + 50])
    await store_batch(client, user.headers, procedures)

    found = await _contents(
        client,
        user,
        "/v1/memories/retrieve",
        query="payment service requests per second",
        memory_types=["procedural"],
        top_k=2,
        graph=False,
    )
    assert sorted(found) == sorted(item["content"] for item in procedures)
