"""The graph walk keeps the plan the service had Neo4j make at startup when the data grows.

Neo4j plans a statement again once its data's statistics have drifted and its plan is older than
10 s; planning the walk takes longer than the walk's time limit, so every retrieve would answer
without the graph until one of them got to finish the planning. The suite's other servers never
plan again by statistics (scripts/test.sh), so this module starts one that does, as Neo4j does
by default.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver, AsyncGraphDatabase
from quart import Quart
from quart.testing.app import TestApp

from app import create_app
from app.embedder import SentenceTransformerEmbedder
from tests.conftest import STARTUP_TIMEOUT_S, create_user, make_settings
from tests.support.entities import CHAIN, QUESTION, UNRELATED
from tests.support.http import request_ok
from tests.support.memories import ids, stored_ids
from tests.support.neo4j_direct import query
from tests.support.neo4j_server import Neo4jServer
from tests.support.query_plans import planned_again, plans_used

pytestmark = pytest.mark.slow(1)

# At least this many entities, so that the walk's statistics drift past Neo4j's replanning
# threshold (a divergence of 0.75), and a wait past its shortest interval between plans of one
# statement (10 s): Neo4j's clock, not a limit of the service.
STATISTICS_GROWTH = 30_000
REPLAN_INTERVAL_S = 11


@pytest.fixture(scope="module")
def replanning_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServer]:
    """A Neo4j of this module's own with Neo4j's default replanning (no extra settings)."""
    found = Neo4jServer.on_free_ports(tmp_path_factory.mktemp("replanning-neo4j"))
    server = dataclasses.replace(found, settings=())
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def replanning_app(
    replanning_neo4j: Neo4jServer, embedder: SentenceTransformerEmbedder
) -> AsyncIterator[Quart]:
    settings = make_settings(neo4j_uri=replanning_neo4j.uri, instance_id="replanning")
    service = create_app(settings, embedder=embedder)
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def replanning_driver(replanning_neo4j: Neo4jServer) -> AsyncIterator[AsyncDriver]:
    driver = AsyncGraphDatabase.driver(
        replanning_neo4j.uri, auth=None, notifications_min_severity="OFF"
    )
    yield driver
    await driver.close()


async def _retrieved(client: Any, headers: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = await request_ok(
        client,
        "POST",
        "/v1/memories/retrieve",
        headers,
        json={"query": QUESTION, "explain": "verbose"},
    )
    return body


async def _in_batches(driver: AsyncDriver, cypher: str, **params: Any) -> None:
    """Runs a statement that commits batches of its own (CALL ... IN TRANSACTIONS)."""
    async with driver.session(database="neo4j") as session:
        await (await session.run(cypher, params)).consume()


async def test_the_walk_keeps_its_plan_when_the_data_grows(
    replanning_app: Quart, replanning_driver: AsyncDriver
) -> None:
    client = replanning_app.test_client()
    user = await create_user(client, "replanning")
    await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    crowd = f"stats-growth-{user.user_id}"
    async with plans_used(replanning_driver) as used:
        before = await _retrieved(client, user.headers)
        [nodes] = await query(replanning_driver, "MATCH (n) RETURN count(n) AS n")
        # Neo4j plans again what the data has outgrown by a factor of 4 (a divergence of 0.75).
        await _in_batches(
            replanning_driver,
            "UNWIND range(1, $n) AS i CALL (i) { "
            "CREATE (:Entity {user_id: $crowd, key: 'e' + i, compact: 'e' + i}) "
            "} IN TRANSACTIONS OF 10000 ROWS",
            n=max(STATISTICS_GROWTH, 4 * nodes["n"]),
            crowd=crowd,
        )
        await asyncio.sleep(REPLAN_INTERVAL_S)
        after = await _retrieved(client, user.headers)
    assert not after["explain"]["graph"]["timed_out"]
    assert ids(after["results"]) == ids(before["results"])
    replanned = planned_again(used)
    assert replanned, "the growth made Neo4j plan nothing again: the test shows nothing"
    assert "retrieval/expand" not in replanned, replanned
