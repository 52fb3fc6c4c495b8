"""The gateway on a real Neo4j: its poll (the server's start time, a statement it refuses) and
reads with a time limit."""

from __future__ import annotations

from neo4j import AsyncDriver

from app.graph import Graph, load_queries


async def test_the_server_says_when_it_started(neo4j_driver: AsyncDriver) -> None:
    graph = Graph(neo4j_driver, "neo4j", load_queries())
    first = await graph.probe("warm_up/server_started")
    again = await graph.probe("warm_up/server_started")
    assert first is not None and again == first
    assert isinstance(first[0]["started"], int) and first[0]["started"] > 1_600_000_000_000


async def test_a_statement_the_server_refuses_probes_as_nothing(neo4j_driver: AsyncDriver) -> None:
    # What a Neo4j that does not offer dbms.queryJmx (or denies it to the service's user)
    # answers: the service runs on without watching for restarts, rather than failing.
    graph = Graph(
        neo4j_driver, "neo4j", {"refused": "CALL dbms.noSuchProcedure() YIELD value RETURN 1"}
    )
    assert await graph.probe("refused") is None


async def test_a_read_past_its_time_limit_answers_nothing_and_the_next_read_works(
    neo4j_driver: AsyncDriver,
) -> None:
    # What the graph walk relies on: the server stops it, and retrieval answers without it.
    graph = Graph(
        neo4j_driver,
        "neo4j",
        {
            "slow": "UNWIND range(1, 100000000) AS x RETURN count(x) AS n",
            "echo": "RETURN $p.value AS value",
        },
    )
    assert await graph.read_within("slow", 0.05) is None
    assert await graph.read_within("echo", 5.0, value=1) == [{"value": 1}]
    assert await graph.read("echo", value="two") == [{"value": "two"}]
