"""A freshly started service has loaded the Chinese segmenter's dictionary before it takes its
first request: the first request that writes Chinese does not load it (which blocked the event
loop, and every request beside it, for about half a second)."""

from __future__ import annotations

import asyncio

import jieba
import pytest
from quart.testing.app import TestApp

from app import create_app
from app.embedding import Embedder
from tests.conftest import STARTUP_TIMEOUT_S, create_user, make_settings
from tests.support.memories import store


async def test_the_segmenter_is_loaded_before_the_first_request(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This process has segmented Chinese before (other tests): as in a process that has not,
    # jieba's default tokenizer loads its dictionary again at its next use.
    monkeypatch.setattr(jieba.dt, "initialized", False)
    service = create_app(make_settings(instance_id="first-requests"), embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        assert jieba.dt.initialized, "the service took requests before loading the dictionary"
        client = service.test_client()
        user = await create_user(client, "first")
        await store(client, user.headers, "Maria leads the billing team.")
        chinese = store(client, user.headers, "王芳负责计费团队。计费团队维护 invoice-api。")
        stored, alive = await asyncio.gather(chinese, client.get("/health"))
        assert alive.status_code == 200
        assert stored["memory_id"]
