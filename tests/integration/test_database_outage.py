"""Neo4j going away and coming back: readiness turns 503, requests 503 (not 500), then recover.

The shared test Neo4j keeps running: a second app reaches it through a TCP forwarder that the
test cuts and restores.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlparse

import pytest_asyncio
from quart import Quart
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.embedding import Embedder
from tests.conftest import MASTER, NEO4J_URI, STARTUP_TIMEOUT_S, make_settings
from tests.support.http import bearer, error_detail, issue_key
from tests.support.tcp_forwarder import TcpForwarder
from tests.support.waiting import wait_for

RECOVERY_WAIT_S = 60.0  # a guard: how long a test waits for readiness at most


@pytest_asyncio.fixture(loop_scope="session")
async def forwarder() -> AsyncIterator[TcpForwarder]:
    target = urlparse(NEO4J_URI)
    proxy = TcpForwarder(target.hostname or "127.0.0.1", target.port or 7687)
    await proxy.start()
    yield proxy
    await proxy.stop()


@pytest_asyncio.fixture(loop_scope="session")
async def outage_app(forwarder: TcpForwarder, embedder: Embedder) -> AsyncIterator[Quart]:
    # A write is retried for 5 s by default before its request answers 503; 1 s gives the same
    # 503 without each request of the test waiting that long.
    settings = make_settings(neo4j_uri=forwarder.uri, neo4j_retry_s=1.0, instance_id="outage")
    service = create_app(settings, embedder=embedder)
    # A cold database can take longer than Quart's 6 s default to start the app.
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


async def _readiness(client: TestClientProtocol) -> tuple[int, dict[str, Any]]:
    response = await client.get("/health/instance")
    body: dict[str, Any] = await response.get_json()
    return response.status_code, body


async def _wait_until_ready(client: TestClientProtocol) -> None:
    """Waits for readiness to come back; until then it must say the instance is degraded."""

    async def ready() -> bool:
        status, body = await _readiness(client)
        assert status in (200, 503), body
        if status == 200:
            assert body == {"status": "ok", "instance_id": "outage"}
        return status == 200

    await wait_for("readiness to recover", ready, RECOVERY_WAIT_S)


async def test_outage_degrades_and_recovers(outage_app: Quart, forwarder: TcpForwarder) -> None:
    client = outage_app.test_client()
    assert await _readiness(client) == (200, {"status": "ok", "instance_id": "outage"})
    issued = await issue_key(client, f"outage-{uuid.uuid4().hex[:12]}")
    user_headers = bearer(issued["raw_key"])
    assert (await client.get("/auth/keys", headers=user_headers)).status_code == 200

    await forwarder.stop()
    try:
        status, body = await _readiness(client)
        assert status == 503
        assert body["status"] == "degraded"
        assert body["instance_id"] == "outage"
        assert isinstance(body["detail"], str)

        # Liveness does not depend on the database.
        assert (await client.get("/health")).status_code == 200

        # Requests that need the database answer 503 with a detail, not 500.
        detail = await error_detail(await client.get("/auth/keys", headers=user_headers), 503)
        assert "database" in detail
        await error_detail(await client.get("/admin/stats", headers=MASTER), 503)
    finally:
        await forwarder.start()

    await _wait_until_ready(client)
    listed = await client.get("/auth/keys", headers=user_headers)
    assert listed.status_code == 200
    assert [key["key_id"] for key in await listed.get_json()] == [issued["key_id"]]
    assert (await client.get("/admin/stats", headers=MASTER)).status_code == 200


async def test_short_outages_recover_each_time(outage_app: Quart, forwarder: TcpForwarder) -> None:
    client = outage_app.test_client()
    for _ in range(2):
        await _wait_until_ready(client)
        await forwarder.stop()
        status, body = await _readiness(client)
        assert (status, body["status"]) == (503, "degraded")
        await forwarder.start()
    await _wait_until_ready(client)
