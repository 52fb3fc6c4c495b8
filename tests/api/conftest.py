"""Fixtures of the HTTP tests that need an LLM (a fake OpenAI-compatible server on loopback and
an app configured to call it; the shared app of tests/conftest.py has none), a real HTTP
server (the MCP tests: the SDK's clients speak HTTP, not Quart's test client; the pages a
browser opens), a real browser, or an app started after Neo4j lost its query plans, with the
plans Neo4j made while it started."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from quart import Quart
from quart.testing.app import TestApp

from app import create_app
from app.config import Settings
from app.embedding import Embedder
from app.server import serve
from tests.conftest import PATIENT_S, STARTUP_TIMEOUT_S, make_settings
from tests.support.browser import Browser, chromium
from tests.support.fake_llm import FakeLlm
from tests.support.machine import free_port
from tests.support.service_process import wait_until_ready


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLlm]:
    server = FakeLlm().start()
    yield server
    server.stop()


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def llm_app(fake_llm: FakeLlm, embedder: Embedder) -> AsyncIterator[Quart]:
    """An app whose LLM is the fake server (one per module that uses it)."""
    service = create_app(_with_llm(fake_llm, "llm"), embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def summarizing_app(fake_llm: FakeLlm, embedder: Embedder) -> AsyncIterator[Quart]:
    """An app whose LLM is the fake server and whose task worker runs the summaries' tasks."""
    settings = _with_llm(fake_llm, "summarizing", task_worker_enabled=True)
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


def _with_llm(fake_llm: FakeLlm, instance_id: str, **overrides: Any) -> Settings:
    return make_settings(
        llm_api_key="test",
        llm_base_url=fake_llm.base_url,
        llm_model="fake-model",
        llm_timeout_s=PATIENT_S,
        instance_id=instance_id,
        **overrides,
    )


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def served(fake_llm: FakeLlm, embedder: Embedder) -> AsyncIterator[str]:
    """The base URL of the service (LLM: the fake server) served on loopback by the service's
    own server, in this event loop, until the module's tests are done."""
    settings = _with_llm(fake_llm, "served", task_worker_enabled=True)  # runs MCP's summaries
    async with _serving(settings, embedder) as address:
        yield address


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def served_without_llm(embedder: Embedder) -> AsyncIterator[str]:
    """As `served`, with no LLM configured."""
    async with _serving(make_settings(instance_id="served-without-llm"), embedder) as address:
        yield address


@contextlib.asynccontextmanager
async def _serving(settings: Settings, embedder: Embedder) -> AsyncIterator[str]:
    port = free_port()
    stop = asyncio.Event()
    app = create_app(settings, embedder=embedder)
    server = asyncio.create_task(serve(app, "127.0.0.1", port, stop.wait, graceful_timeout_s=5))
    address = f"http://127.0.0.1:{port}"
    try:
        await wait_until_ready(address, STARTUP_TIMEOUT_S, lambda: _stopped(server))
        yield address
    finally:
        stop.set()
        await server


def _stopped(server: asyncio.Task[None]) -> str | None:
    if not server.done():
        return None
    return f"the server stopped: {server.exception() if not server.cancelled() else 'cancelled'}"


@pytest_asyncio.fixture(loop_scope="session")
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    """Headless Chromium with a fresh profile, recording every request its pages make."""
    async with chromium(tmp_path / "chromium-profile") as opened:
        yield opened


@pytest.fixture
def llm(fake_llm: FakeLlm) -> Iterator[FakeLlm]:
    """The fake LLM with no recorded requests and the default reply, cleared again after."""
    fake_llm.clear()
    yield fake_llm
    fake_llm.clear()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """schemathesis names each test after its operation (`test_fuzz_as_the_master_key[GET
    /health]`), but under pytest 9.2 gives every test of a function the function's id, and
    pytest-xdist, which hands tests out by id, would run one operation of each: the id gets the
    operation again (pytest 9.2 keeps an id's parameters apart, in a NodeId)."""
    for item in items:
        label = getattr(item, "operation_label", None)
        if label and not item.nodeid.endswith("]"):
            item._id = item._id.with_params(label)
