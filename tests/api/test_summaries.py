"""Session summaries over HTTP with the fake LLM: sync and as tasks, both modes, how the summary
is stored (episodic, in the session, DERIVED_FROM its sources, embedding only when asked), the
limit of three lightweight summaries (also under concurrent requests), and the errors."""

from __future__ import annotations

import asyncio

from neo4j import AsyncDriver
from quart import Quart
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.fake_llm import FakeLlm
from tests.support.http import error_detail
from tests.support.memories import contents, fulltext, list_all, listed_ids, ranked, store
from tests.support.memory_links import derived_from
from tests.support.neo4j_direct import query
from tests.support.summaries import (
    BULLETS,
    FULL,
    SESSION,
    TASK_WAIT_S,
    finished,
    session,
    summarize,
)
from tests.support.waiting import wait_for


async def test_a_sync_full_summary_is_an_episodic_memory_of_the_session_linked_to_its_sources(
    summarizing_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    sources = await session(client, user)
    llm.reply = FULL

    response = await summarize(client, user, mode="full", sync=True)

    assert response.status_code == 200, await response.get_data(as_text=True)
    summary = await response.get_json()
    assert summary["content"] == (
        "Topic: Deploying invoice-api 2.3 to staging\n"
        "Action: Added the missing DATABASE_URL secret and redeployed\n"
        "Outcome: The deploy succeeded and health checks pass"
    )
    assert (summary["memory_type"], summary["session_id"], summary["trust_tier"]) == (
        "episodic",
        "deploy",
        "T3",
    )
    assert summary["extra_metadata"] == {"summary": "full"}
    assert await derived_from(neo4j_driver, summary["memory_id"]) == set(sources)
    given = llm.requests[-1].body["messages"][-1]["content"]
    assert all(text in given for text in SESSION) and "Maria" not in given
    # With an embedding, it is retrieved like any memory.
    found = await ranked(
        client, user.headers, "retrieve", "How did the staging deploy end?", session_id="deploy"
    )
    assert summary["content"] in contents(found)


async def test_two_sessions_summarised_in_the_same_words_each_get_their_summary(
    summarizing_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    """An LLM may answer two sessions alike: the second is no duplicate of the first's
    summary (which it was, so the second session got none and was answered with the
    first's); within one session the same words are still one memory."""
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    llm.reply = FULL
    summaries = {}
    for session_id in ("deploy", "redeploy"):
        sources = await session(client, user, session_id)
        response = await summarize(client, user, session_id, mode="full", sync=True)
        assert response.status_code == 200, await response.get_data(as_text=True)
        summaries[session_id] = await response.get_json()
        assert summaries[session_id]["session_id"] == session_id
        assert await derived_from(neo4j_driver, summaries[session_id]["memory_id"]) == set(sources)
    assert summaries["deploy"]["content"] == summaries["redeploy"]["content"]
    assert summaries["deploy"]["memory_id"] != summaries["redeploy"]["memory_id"]

    again = await summarize(client, user, "redeploy", mode="full", sync=True)
    assert (await again.get_json())["memory_id"] == summaries["redeploy"]["memory_id"]


async def test_a_summary_of_memories_purged_while_the_llm_answered_is_not_stored(
    summarizing_app: Quart, llm: FakeLlm
) -> None:
    """No serial order gives a summary of memories purged before it was stored: 409, and the
    purged session stays without memories (before, the summary came back as an active one)."""
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    await session(client, user)
    llm.reply = FULL
    llm.hold()
    seen = len(llm.requests)
    try:
        pending = asyncio.ensure_future(summarize(client, user, mode="full", sync=True))
        await llm.asked(seen)
        purged = await client.post(
            "/v1/memories/purge", json={"session_id": "deploy"}, headers=user.headers
        )
        assert purged.status_code == 200, await purged.get_data(as_text=True)
    finally:
        llm.release()
    detail = await error_detail(await pending, 409)
    assert "ask again" in detail
    assert await list_all(client, user.headers, session_id="deploy") == []


async def test_a_summary_without_an_embedding_is_listed_and_found_by_full_text_only(
    summarizing_app: Quart, llm: FakeLlm
) -> None:
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    await session(client, user)
    llm.reply = BULLETS

    response = await summarize(
        client, user, mode="lightweight", sync=True, generate_embedding=False
    )

    assert response.status_code == 200, await response.get_data(as_text=True)
    summary = await response.get_json()
    assert summary["content"].splitlines() == [f"- {b}" for b in BULLETS["bullets"]]
    assert summary["memory_id"] in await listed_ids(client, user.headers)
    assert summary["memory_id"] in [
        m["memory_id"] for m in await fulltext(client, user.headers, "redeploy health checks")
    ]
    found = await ranked(client, user.headers, "retrieve", "redeploy health checks", min_score=0)
    assert summary["memory_id"] not in [m["memory_id"] for m in found]


async def test_async_summaries_of_both_modes_complete_as_tasks(
    summarizing_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    sources = await session(client, user)
    for mode, reply in (("full", FULL), ("lightweight", BULLETS)):
        llm.reply = reply
        response = await summarize(client, user, mode=mode)
        assert response.status_code == 202, await response.get_data(as_text=True)
        accepted = await response.get_json()
        assert accepted["status"] == "processing" and accepted["task_id"]

        task = await finished(client, user, accepted["task_id"])

        assert task["status"] == "completed", task
        assert task["kind"] == "summary" and task["error"] is None
        assert task["result"]["memory_type"] == "episodic"
        assert task["result"]["extra_metadata"] == {"summary": mode}
        assert await derived_from(neo4j_driver, task["result"]["memory_id"]) == set(sources)


async def test_a_fourth_lightweight_summary_is_409_also_when_four_arrive_at_once(
    summarizing_app: Quart, llm: FakeLlm
) -> None:
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    await session(client, user)
    await session(client, user, "parallel")
    for n in range(3):
        llm.reply = {"bullets": [f"bullet {n} {i}" for i in range(3)]}
        response = await summarize(client, user, mode="lightweight", sync=True)
        assert response.status_code == 200, await response.get_data(as_text=True)
    detail = await error_detail(await summarize(client, user, mode="lightweight", sync=True), 409)
    assert "3 lightweight summaries" in detail
    # Full summaries are not limited; a task counts while it is in progress.
    assert (await summarize(client, user, mode="full", sync=True)).status_code in (200, 503)

    # Four at once, two of them tasks, while the LLM holds every answer back: nothing finishes
    # before all four are decided (the tasks answer 202 or 409 at once; a sync request either
    # answers 409 or waits for the LLM, as does the one task the worker runs at a time).
    llm.reply = BULLETS
    llm.hold()
    seen = len(llm.requests)
    sent = [
        asyncio.ensure_future(
            summarize(client, user, "parallel", mode="lightweight", sync=n % 2 == 0)
        )
        for n in range(4)
    ]

    async def all_decided() -> bool:
        if not all(future.done() for future in sent[1::2]):
            return False
        waiting = sum(not future.done() for future in sent[0::2])
        return len(llm.requests) - seen >= waiting + 1

    try:
        await wait_for("all four summaries to be decided", all_decided, TASK_WAIT_S)
    finally:
        llm.release()
    responses = await asyncio.gather(*sent)
    statuses = sorted(response.status_code for response in responses)
    assert statuses.count(409) == 1, statuses
    assert set(statuses) <= {200, 202, 409}
    # The tasks finish before the next test looks at what the LLM was asked.
    for response in responses:
        if response.status_code == 202:
            task = await finished(client, user, (await response.get_json())["task_id"])
            assert task["status"] == "completed", task


async def test_summaries_are_503_without_an_llm_and_create_no_task(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    await session(client, user)
    for mode in ("full", "lightweight"):
        for sync in (True, False):
            detail = await error_detail(await summarize(client, user, mode=mode, sync=sync), 503)
            assert "LLM" in detail
    rows = await query(
        neo4j_driver, "MATCH (t:Task {user_id: $u}) RETURN count(t) AS n", u=user.user_id
    )
    assert rows[0]["n"] == 0


async def test_unknown_foreign_or_empty_sessions_are_404_and_bad_requests_422(
    summarizing_app: Quart, llm: FakeLlm
) -> None:
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    other = await create_user(client, "summary")
    await session(client, other, "theirs")
    gone = await store(client, user.headers, "A note soon deleted.", session_id="emptied")
    await client.delete(f"/v1/memories/{gone['memory_id']}", headers=user.headers)
    for session_id in ("never-used", "theirs", "emptied"):
        await error_detail(await summarize(client, user, session_id, sync=True), 404)
    await session(client, user)
    for body in ({"mode": "medium"}, {"sync": "yes"}, {"generate_embedding": 1}, {"extra": 1}):
        await error_detail(await summarize(client, user, **body), 422)
    assert not [r for r in llm.requests if "summarise" in str(r.body)]


async def test_another_users_task_is_404(summarizing_app: Quart, llm: FakeLlm) -> None:
    client = summarizing_app.test_client()
    owner = await create_user(client, "summary")
    stranger = await create_user(client, "summary")
    await session(client, owner)
    llm.reply = FULL
    accepted = await (await summarize(client, owner, mode="full")).get_json()
    response = await client.get(f"/v1/tasks/{accepted['task_id']}", headers=stranger.headers)
    await error_detail(response, 404)
    await error_detail(await client.get("/v1/tasks/nope", headers=owner.headers), 404)
    await finished(client, owner, accepted["task_id"])


async def test_an_llm_that_answers_garbage_gives_a_failed_task(
    summarizing_app: Quart, llm: FakeLlm
) -> None:
    client = summarizing_app.test_client()
    user = await create_user(client, "summary")
    await session(client, user)
    for reply in ("not json at all", {"topic": "only a topic"}, {"bullets": ["one"]}):
        llm.reply = reply
        mode = "lightweight" if isinstance(reply, dict) and "bullets" in reply else "full"
        accepted = await (await summarize(client, user, mode=mode)).get_json()
        task = await finished(client, user, accepted["task_id"])
        assert task["status"] == "failed" and task["result"] is None
        assert "LLM" in task["error"]
    # The failed lightweight task freed its slot: three more fit.
    llm.reply = BULLETS
    assert (await summarize(client, user, mode="lightweight", sync=True)).status_code == 200
