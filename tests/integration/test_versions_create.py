"""Creating memories on a real Neo4j: a write whose cost cannot grow with other users' data."""

from __future__ import annotations

from app.graph import Graph
from tests.support.query_plans import operators


def reads_relationships(operator: str) -> bool:
    """An expansion from a node, or a scan, seek or lookup of relationships."""
    looks_up = any(way in operator for way in ("Scan", "Seek", "Lookup"))
    return "Expand" in operator or ("Relationship" in operator and looks_up)


async def test_creating_memories_reads_no_relationship_whatever_neo4j_plans(graph: Graph) -> None:
    # A MERGE of a new memory's links looked for existing ones, which Neo4j planned, on a
    # small database, as a scan of every relationship of the type: a 1,000-memory store then
    # ran for minutes once other users held 50,000 links (bench/scale.py). New memories have no
    # links to look for, so the statement must not read any.
    _, plan = await graph.profile("versions/create", seq=1, seq_text="1", memories=[])
    assert [operator for operator, _ in operators(plan) if reads_relationships(operator)] == []
