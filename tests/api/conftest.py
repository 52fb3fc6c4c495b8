"""Fixtures of the HTTP tests that need an LLM: a fake OpenAI-compatible server on loopback and
an app configured to call it (the shared app of tests/conftest.py has no LLM)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from quart import Quart
from quart.testing.app import TestApp

from app import create_app
from app.embedder import SentenceTransformerEmbedder
from tests.conftest import STARTUP_TIMEOUT_S, make_settings
from tests.support.fake_llm import FakeLlm


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLlm]:
    server = FakeLlm().start()
    yield server
    server.stop()


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def llm_app(fake_llm: FakeLlm, embedder: SentenceTransformerEmbedder) -> AsyncIterator[Quart]:
    """An app whose LLM is the fake server (one per module that uses it)."""
    settings = make_settings(
        llm_api_key="test",
        llm_base_url=fake_llm.base_url,
        llm_model="fake-model",
        llm_timeout_s=10.0,
        instance_id="llm",
    )
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest.fixture
def llm(fake_llm: FakeLlm) -> Iterator[FakeLlm]:
    """The fake LLM with no recorded requests and the default reply, cleared again after."""
    fake_llm.clear()
    yield fake_llm
    fake_llm.clear()
