"""Shared fixtures: one real Neo4j (started by scripts/test.sh), one embedding model, one app."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from quart import Quart
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.config import Settings
from app.embedder import SentenceTransformerEmbedder
from app.graph import Graph
from app.ratelimit import RateLimiter
from app.registry import Registry

MASTER_KEY = "test-master-key-0123456789abcdef"
STARTUP_TIMEOUT_S = 120
NEO4J_URI = os.environ.get("NEO4J_URI", "bolt://127.0.0.1:27687")


def make_settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "master_key": MASTER_KEY,
        "neo4j_uri": NEO4J_URI,
        "scheduler_enabled": False,
        "instance_id": "test-instance",
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def app(embedder: SentenceTransformerEmbedder) -> AsyncIterator[Quart]:
    service = create_app(make_settings(), embedder=embedder)
    # A brand-new database takes a while to migrate on a small machine.
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest.fixture
def client(app: Quart) -> TestClientProtocol:
    return app.test_client()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def graph() -> AsyncIterator[Graph]:
    gateway = Graph.connect(NEO4J_URI, "", "", "neo4j")
    yield gateway
    await gateway.close()


@pytest.fixture(scope="session")
def registry(graph: Graph, embedder: SentenceTransformerEmbedder) -> Registry:
    """What use cases receive, around the shared gateway: for calling them without HTTP."""
    return Registry(
        settings=make_settings(),
        graph=graph,
        embedder=embedder,
        limiter=RateLimiter(enabled=False),
        instance_id="test-instance",
    )


MASTER = {"Authorization": f"Bearer {MASTER_KEY}"}


@dataclass
class User:
    """A fresh user with one API key; `headers` authenticate as them."""

    user_id: str
    key_id: str
    raw_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.raw_key}"}


async def create_user(client: TestClientProtocol, prefix: str = "user") -> User:
    user_id = f"{prefix}-{uuid.uuid4().hex[:12]}"
    response = await client.post(
        "/auth/keys", json={"user_id": user_id, "name": "test"}, headers=MASTER
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    body = await response.get_json()
    return User(user_id=user_id, key_id=body["key_id"], raw_key=body["raw_key"])


@pytest_asyncio.fixture(loop_scope="session")
async def user(client: TestClientProtocol) -> User:
    return await create_user(client)


@pytest_asyncio.fixture(loop_scope="session")
async def other_user(client: TestClientProtocol) -> User:
    return await create_user(client, "other")
