"""Creating memories on a real Neo4j: a write whose cost cannot grow with other users' data."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from app.graph import load_queries


def operators(plan: Any) -> list[str]:
    return [plan.get("operatorType", "")] + [
        name for child in plan.get("children", []) for name in operators(child)
    ]


async def test_creating_memories_reads_no_relationship_whatever_neo4j_plans(
    neo4j_driver: AsyncDriver,
) -> None:
    # A MERGE of a new memory's links looked for existing ones, which Neo4j planned, on a
    # small database, as a scan of every relationship of the type: a 1,000-memory store then
    # ran for minutes once other users held 50,000 links (bench/scale.py). New memories have no
    # links to look for, so the statement must not read any.
    statement = load_queries()["versions/create"].replace("CYPHER 25", "CYPHER 25 EXPLAIN", 1)
    async with neo4j_driver.session() as session:
        result = await session.run(statement, p={"seq": 1, "seq_text": "1", "memories": []})
        summary = await result.consume()
    assert summary.plan is not None
    reads = [
        name
        for name in operators(summary.plan)
        if "Expand" in name
        or ("Relationship" in name and any(way in name for way in ("Scan", "Seek", "Lookup")))
    ]
    assert reads == []
