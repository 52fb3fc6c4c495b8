"""Direct access to the test Neo4j, bypassing the service, to inspect what it stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio
from neo4j import AsyncDriver, AsyncGraphDatabase

from tests.conftest import NEO4J_URI


@pytest_asyncio.fixture(loop_scope="session")
async def neo4j_driver() -> AsyncIterator[AsyncDriver]:
    """A plain driver on the test database (import this fixture into a test module to use it)."""
    driver = AsyncGraphDatabase.driver(NEO4J_URI, auth=None, notifications_min_severity="OFF")
    yield driver
    await driver.close()


async def query(driver: AsyncDriver, cypher: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = await driver.execute_query(cypher, params, database_="neo4j")
    return [record.data() for record in records]
