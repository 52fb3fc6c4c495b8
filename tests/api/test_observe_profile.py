"""POST /v1/observe without and with an LLM (a fake one on loopback), and GET /v1/profiles/me."""

from __future__ import annotations

from typing import Any

import pytest
from quart import Quart
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.fake_llm import FakeLlm
from tests.support.http import error_detail, post_created
from tests.support.memories import contents, correct, list_all, store, store_batch

CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "I moved to Porto last month."},
    {"role": "assistant", "content": "Welcome to Porto! How do you like it?"},
    {"role": "user", "content": "   "},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": "I deploy with make release on Fridays."},
]


async def _observed(
    client: TestClientProtocol, headers: dict[str, str], messages: list[Any], **fields: Any
) -> dict[str, Any]:
    return await post_created(client, "/v1/observe", headers, {"messages": messages, **fields})


# --- without an LLM ------------------------------------------------------------------------------


async def test_observe_without_llm_stores_each_message(
    client: TestClientProtocol, user: User
) -> None:
    body = await _observed(client, user.headers, CONVERSATION, session_id="talk-1")
    assert isinstance(body["warning"], str) and body["warning"]
    stored = body["memories"]
    assert contents(stored) == [
        "I moved to Porto last month.",
        "Welcome to Porto! How do you like it?",
        "I deploy with make release on Fridays.",
    ]
    for memory in stored:
        assert memory["memory_type"] == "semantic"
        assert memory["initial_confidence"] == pytest.approx(0.7)
        assert memory["trust_tier"] == "T1"
        assert memory["session_id"] == "talk-1"
    listed = await list_all(client, user.headers)
    assert sorted(contents(listed)) == sorted(contents(stored))


async def test_observe_without_llm_skips_system_and_blank_messages(
    client: TestClientProtocol, user: User
) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": " \n\t "},
        {"role": "tool", "content": "exit code 0"},
    ]
    body = await _observed(client, user.headers, messages)
    assert body["memories"] == []
    assert body["warning"]
    assert await list_all(client, user.headers) == []


@pytest.mark.parametrize(
    "body",
    [
        {"messages": []},
        {},
        {"messages": [{"role": "user"}]},
        {"messages": [{"content": "hi"}]},
        {"messages": [{"role": "user", "content": "東" * 11000}]},  # 33000 UTF-8 bytes
        {"messages": [{"role": "user", "content": "hi"}], "extra": True},
    ],
    ids=["empty", "missing", "no-content", "no-role", "oversized", "unknown-field"],
)
async def test_invalid_observe_is_422(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    response = await client.post("/v1/observe", json=body, headers=user.headers)
    await error_detail(response, 422)
    assert await list_all(client, user.headers) == []


# --- with an LLM -------------------------------------------------------------------------------


async def test_observe_with_llm_stores_distilled_facts_as_t3(llm_app: Quart, llm: FakeLlm) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "observer")
    llm.reply = {
        "facts": [
            {"content": "Lives in Porto", "memory_type": "profile"},
            {"content": "Deploys with make release on Fridays", "memory_type": "procedural"},
            {"content": "Likes the city", "memory_type": "not-a-type"},
            {"content": "   ", "memory_type": "semantic"},
            "not an object",
        ]
    }
    body = await _observed(client, owner.headers, CONVERSATION, session_id="talk-2")
    assert body.get("warning") is None
    assert body["dropped"] == 2  # the blank fact and the one that is no object
    stored = body["memories"]
    assert [(m["content"], m["memory_type"]) for m in stored] == [
        ("Lives in Porto", "profile"),
        ("Deploys with make release on Fridays", "procedural"),
        ("Likes the city", "semantic"),
    ]
    for memory in stored:
        assert memory["trust_tier"] == "T3"
        assert memory["initial_confidence"] == pytest.approx(0.65)
        assert memory["session_id"] == "talk-2"
    listed = await list_all(client, owner.headers)
    assert sorted(contents(listed)) == sorted(contents(stored))

    # The LLM was asked once, OpenAI style, with the conversation.
    [request] = llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers.get("authorization") == "Bearer test"
    assert request.body["model"] == "fake-model"
    sent = "\n".join(message["content"] for message in request.body["messages"])
    assert "I moved to Porto last month." in sent
    assert "I deploy with make release on Fridays." in sent


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("this is not JSON at all", 200),
        ("[1, 2, 3]", 200),
        ({"facts": "Lives in Porto"}, 200),
        ({"facts": 5}, 200),
        ({}, 200),
        ({"error": "rate limited, try later"}, 200),
        ({"facts": []}, 500),
        ({"facts": []}, 404),
    ],
    ids=[
        "text",
        "json-array",
        "facts-string",
        "facts-number",
        "no-facts",
        "other-object",
        "llm-error",
        "llm-not-found",
    ],
)
async def test_observe_with_an_unusable_llm_answer_is_503_and_stores_nothing(
    llm_app: Quart, llm: FakeLlm, reply: Any, status: int
) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "observer")
    llm.reply, llm.status = reply, status
    response = await client.post(
        "/v1/observe", json={"messages": CONVERSATION}, headers=owner.headers
    )
    detail = await error_detail(response, 503)
    assert "LLM" in detail
    assert llm.base_url not in detail and "127.0.0.1" not in detail  # no internals for callers
    assert len(llm.requests) == (3 if status >= 500 else 1)  # a 5xx is retried twice
    assert await list_all(client, owner.headers) == []


async def test_observe_with_llm_and_no_facts_stores_nothing(llm_app: Quart, llm: FakeLlm) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "observer")
    llm.reply = {"facts": []}
    assert (await _observed(client, owner.headers, CONVERSATION))["memories"] == []
    assert await list_all(client, owner.headers) == []


# --- profile -----------------------------------------------------------------------------------


async def test_profile_joins_profile_memories_and_counts_by_type(
    client: TestClientProtocol, user: User
) -> None:
    await store_batch(
        client,
        user.headers,
        [
            {"content": "Name is Ana", "memory_type": "profile"},
            {"content": "Prefers tea", "memory_type": "semantic"},
            {"content": "Works as a nurse", "memory_type": "profile"},
            {"content": "Back up on Sundays", "memory_type": "procedural"},
            {"content": "Night shifts this week", "memory_type": "working"},
        ],
    )
    response = await client.get("/v1/profiles/me", headers=user.headers)
    assert response.status_code == 200
    profile = await response.get_json()
    assert profile["user_id"] == user.user_id
    assert profile["profile"] == "Name is Ana\nWorks as a nurse"
    assert contents(profile["memories"]) == ["Name is Ana", "Works as a nurse"]
    assert profile["stats"] == {"profile": 2, "semantic": 1, "procedural": 1, "working": 1}
    assert profile["total"] == 5


async def test_profile_follows_corrections(client: TestClientProtocol, user: User) -> None:
    old = await store(client, user.headers, "Name is Ana", memory_type="profile")
    await correct(client, user.headers, old["memory_id"], "Name is Ana Sofia")
    profile = await (await client.get("/v1/profiles/me", headers=user.headers)).get_json()
    assert profile["profile"] == "Name is Ana Sofia"
    assert profile["stats"] == {"profile": 1}


async def test_profile_of_a_new_user_is_empty(client: TestClientProtocol, user: User) -> None:
    response = await client.get("/v1/profiles/me", headers=user.headers)
    assert response.status_code == 200
    profile = await response.get_json()
    assert profile["profile"] == ""
    assert profile["memories"] == []
    assert profile["stats"] == {}
    assert profile["total"] == 0
