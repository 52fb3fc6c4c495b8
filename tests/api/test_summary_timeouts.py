"""Session summaries when the LLM is too slow or cannot be reached: a sync request is 503 and a
task fails, both with the reason (the deadline of the whole request, retries included). In a
module of its own, so that no patient instance's worker takes the task."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from quart import Quart
from quart.testing.app import TestApp

from app import create_app
from app.embedding import Embedder
from app.errors import LLM_RETRY_AFTER_S
from tests.conftest import STARTUP_TIMEOUT_S, create_user, make_settings
from tests.support.fake_llm import FakeLlm
from tests.support.http import error_detail
from tests.support.machine import free_port
from tests.support.summaries import FULL, finished, session, summarize


@pytest_asyncio.fixture(loop_scope="session")
async def impatient_app(fake_llm: FakeLlm, embedder: Embedder) -> AsyncIterator[Quart]:
    """An app that waits half a second for the LLM, retries included (one), and runs tasks."""
    settings = make_settings(
        llm_api_key="test",
        llm_base_url=fake_llm.base_url,
        llm_timeout_s=0.5,
        llm_max_retries=1,
        instance_id="impatient",
        task_worker_enabled=True,
    )
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


async def test_an_llm_that_times_out_gives_a_failed_task_and_a_sync_503(
    impatient_app: Quart, llm: FakeLlm
) -> None:
    client = impatient_app.test_client()
    user = await create_user(client, "summary")
    await session(client, user)
    llm.reply = FULL
    llm.hold()

    response = await summarize(client, user, sync=True)
    detail = await error_detail(response, 503)
    assert detail == (
        "the LLM did not answer within the 0.5 s deadline (LLM_TIMEOUT_S; 1 attempt: no answer yet)"
    )
    assert response.headers["Retry-After"] == str(LLM_RETRY_AFTER_S)
    accepted = await (await summarize(client, user)).get_json()
    task = await finished(client, user, accepted["task_id"])
    assert task["status"] == "failed" and task["error"] == detail
    assert len(llm.requests) == 2  # one attempt each: no time was left for another


@pytest_asyncio.fixture(loop_scope="session")
async def unreachable_app(embedder: Embedder) -> AsyncIterator[Quart]:
    """An app whose LLM address has nothing listening."""
    settings = make_settings(
        llm_api_key="test",
        llm_base_url=f"http://127.0.0.1:{free_port()}/v1",
        llm_max_retries=0,
        instance_id="stranded",
    )
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


async def test_an_llm_nobody_answers_at_gives_a_503_that_says_so(unreachable_app: Quart) -> None:
    client = unreachable_app.test_client()
    user = await create_user(client, "summary")
    await session(client, user)

    detail = await error_detail(await summarize(client, user, sync=True), 503)

    assert detail == "the LLM did not answer (1 attempt: could not be reached)"
