"""Rate limits of the memory endpoints: per API key and operation class, master key exempt;
a rate-limit storage that is down answers 503."""

from __future__ import annotations

from typing import Any

from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.embedding import Embedder
from tests.conftest import MASTER, STARTUP_TIMEOUT_S, create_user, make_settings
from tests.support.http import error_detail
from tests.support.machine import free_port
from tests.support.memories import listed_ids


async def _batch(client: TestClientProtocol, headers: dict[str, str], i: int) -> Any:
    return await client.post(
        "/v1/memories/batch", json={"memories": [{"content": f"limited {i}"}]}, headers=headers
    )


async def _retry_after(response: Any) -> int:
    await error_detail(response, 429)
    value = int(response.headers["Retry-After"])
    assert 1 <= value <= 60
    return value


async def test_batch_store_is_limited_to_60_per_minute_per_key(
    client: TestClientProtocol,
) -> None:
    limited = await create_user(client, "limited")
    bystander = await create_user(client, "bystander")

    for i in range(60):
        response = await _batch(client, limited.headers, i)
        assert response.status_code == 201, (i, await response.get_data(as_text=True))
    refused = await _batch(client, limited.headers, 60)
    await _retry_after(refused)
    # The refused call stored nothing.
    assert len(await listed_ids(client, limited.headers)) == 60

    # Another key has its own window; other classes of the same key are not touched.
    assert (await _batch(client, bystander.headers, 0)).status_code == 201
    single = await client.post("/v1/memories", json={"content": "one"}, headers=limited.headers)
    assert single.status_code == 201
    assert (await _batch(client, limited.headers, 61)).status_code == 429


async def _cheap_read(client: TestClientProtocol, headers: dict[str, str]) -> Any:
    """A full-text query without a searchable word: the cheapest request of the retrieve class
    (300 a minute)."""
    return await client.post("/v1/memories/fulltext-search", json={"query": "_"}, headers=headers)


async def test_master_key_is_not_limited(client: TestClientProtocol) -> None:
    user = await create_user(client, "master-acted")
    as_user = {**MASTER, "X-User-Id": user.user_id}
    for i in range(301):
        assert (await _cheap_read(client, as_user)).status_code == 200, i
    # The user's own key still has its whole window.
    assert (await _cheap_read(client, user.headers)).status_code == 200


async def test_retrieve_search_and_fulltext_share_one_window_of_300(
    client: TestClientProtocol,
) -> None:
    user = await create_user(client, "reader")
    bystander = await create_user(client, "bystander")
    for i in range(299):
        assert (await _cheap_read(client, user.headers)).status_code == 200, i
    search = await client.post("/v1/memories/search", json={"query": "x"}, headers=user.headers)
    assert search.status_code == 200
    for path, body in (
        ("/v1/memories/retrieve", {"query": "x"}),
        ("/v1/memories/search", {"query": "x"}),
        ("/v1/memories/fulltext-search", {"query": "x"}),
    ):
        await _retry_after(await client.post(path, json=body, headers=user.headers))
    assert (await _cheap_read(client, bystander.headers)).status_code == 200


async def test_store_and_retrieve_windows_are_separate(client: TestClientProtocol) -> None:
    user = await create_user(client, "two-classes")
    for i in range(300):
        assert (await _cheap_read(client, user.headers)).status_code == 200, i
    await _retry_after(await _cheap_read(client, user.headers))
    stored = await client.post("/v1/memories", json={"content": "still fine"}, headers=user.headers)
    assert stored.status_code == 201


async def test_an_unreachable_rate_limit_storage_answers_503_not_500(
    embedder: Embedder,
) -> None:
    # Nothing listens on the port: the Redis a deployment named is down.
    settings = make_settings(rate_limit_storage_uri=f"redis://127.0.0.1:{free_port()}/0")
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        client = service.test_client()
        user = await create_user(client, "redis-down")
        response = await client.post(
            "/v1/memories", json={"content": "not stored"}, headers=user.headers
        )
        assert "rate-limit storage" in await error_detail(response, 503)
        assert int(response.headers["Retry-After"]) > 0
        assert await listed_ids(client, MASTER | {"X-User-Id": user.user_id}) == []
