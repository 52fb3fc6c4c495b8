"""Direct access to the test Neo4j, bypassing the service (the driver is the `neo4j_driver`
fixture of tests/conftest.py): to inspect what the service stored."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver


async def query(driver: AsyncDriver, cypher: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = await driver.execute_query(cypher, params, database_="neo4j")
    return [record.data() for record in records]


async def run_in_batches(driver: AsyncDriver, cypher: str, **params: Any) -> None:
    """Runs a statement that commits batches of its own (CALL ... IN TRANSACTIONS), which
    execute_query's transaction would refuse."""
    async with driver.session(database="neo4j") as session:
        await (await session.run(cypher, params)).consume()
