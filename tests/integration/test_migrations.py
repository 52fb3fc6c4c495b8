"""Migrations against the real database: once only, safe from two instances, checksummed."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.graph import Graph
from app.migrations import (
    MIGRATIONS_DIR,
    Migration,
    MigrationError,
    apply,
    discover,
    ensure_vector_index,
)
from app.registry import Registry
from tests.conftest import NEO4J_URI, create_user
from tests.support.http import request_ok
from tests.support.memories import correct, store
from tests.support.neo4j_direct import query

pytestmark = pytest.mark.drops_plans

TEST_VERSIONS = [9001, 9002]


async def _recorded(driver: AsyncDriver) -> list[dict[str, Any]]:
    return await query(
        driver,
        "MATCH (m:Migration) RETURN m.version AS version, m.name AS name, "
        "m.checksum AS checksum, toString(m.applied_at) AS applied_at ORDER BY version",
    )


async def _lease_holder(driver: AsyncDriver) -> Any:
    rows = await query(driver, "MATCH (l:Lease {name: 'migrations'}) RETURN l.holder AS holder")
    return rows[0]["holder"] if rows else None


async def _probe_count(driver: AsyncDriver, token: str) -> int:
    rows = await query(
        driver, "MATCH (p:MigrationProbe {token: $token}) RETURN count(p) AS n", token=token
    )
    return int(rows[0]["n"])


@pytest_asyncio.fixture(loop_scope="session")
async def second_graph() -> AsyncIterator[Graph]:
    """Another connection pool, as a second service instance would have."""
    gateway = Graph.connect(NEO4J_URI, "", "", "neo4j")
    yield gateway
    await gateway.close()


@pytest_asyncio.fixture(loop_scope="session")
async def probe(neo4j_driver: AsyncDriver) -> AsyncIterator[str]:
    """A token for test-only migrations; their Migration and probe nodes are removed after."""
    token = uuid.uuid4().hex
    yield token
    await query(
        neo4j_driver,
        "MATCH (m:Migration) WHERE m.version IN $versions DELETE m",
        versions=TEST_VERSIONS,
    )
    await query(neo4j_driver, "MATCH (p:MigrationProbe {token: $token}) DELETE p", token=token)


def _probe_migrations(directory: Path, token: str) -> list[Migration]:
    (directory / "V9001__probe_first.cypher").write_text(
        f"// test only\nCREATE (:MigrationProbe {{token: '{token}', step: 1}});\n",
        encoding="utf-8",
    )
    (directory / "V9002__probe_second.cypher").write_text(
        f"CREATE (:MigrationProbe {{token: '{token}', step: 2}});\n"
        f"CREATE (:MigrationProbe {{token: '{token}', step: 3}});\n",
        encoding="utf-8",
    )
    return discover(directory)


async def test_applying_twice_changes_nothing(graph: Graph, neo4j_driver: AsyncDriver) -> None:
    await apply(graph)  # brings the database up to date, whatever ran before
    before = await _recorded(neo4j_driver)
    shipped = {m.version: m.checksum for m in discover()}
    recorded = {row["version"]: row["checksum"] for row in before}
    assert {v: recorded.get(v) for v in shipped} == shipped

    assert await apply(graph) == []
    assert await _recorded(neo4j_driver) == before
    assert await _lease_holder(neo4j_driver) is None


async def test_schema_of_the_migrations_is_in_place(
    graph: Graph, neo4j_driver: AsyncDriver
) -> None:
    await apply(graph)
    rows = await query(neo4j_driver, "SHOW CONSTRAINTS YIELD name RETURN collect(name) AS names")
    names = set(rows[0]["names"])
    assert {"user_id", "api_key_id", "api_key_hash", "migration_version", "lease_name"} <= names


async def test_a_vector_index_of_quantized_vectors_is_made_again_with_whole_ones(
    graph: Graph, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    # As earlier versions made it, with Neo4j's default binary quantization, whose rescoring
    # fails filtered searches once the index holds deleted memories (tests/api/test_retrieval).
    dimensions = registry.embedder.dimensions
    await query(neo4j_driver, "DROP INDEX memory_embedding IF EXISTS")
    await query(
        neo4j_driver,
        "CYPHER 25 CREATE VECTOR INDEX memory_embedding FOR (m:Memory) ON m.embedding "
        "WITH [m.user_id, m.branch, m.is_active, m.created_seq, m.memory_type] "
        "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions}}",
        dimensions=dimensions,
    )
    assert await _quantized(graph)

    await ensure_vector_index(graph, dimensions)
    assert not await _quantized(graph)
    await ensure_vector_index(graph, dimensions)  # now as wanted: left alone
    assert not await _quantized(graph)


async def _quantized(graph: Graph) -> bool:
    [index] = await graph.read("schema/vector_index", name="memory_embedding")
    return bool(index["quantized"])


async def test_two_instances_applying_at_once_both_succeed(
    graph: Graph, second_graph: Graph, neo4j_driver: AsyncDriver
) -> None:
    first, second = await asyncio.wait_for(asyncio.gather(apply(graph), apply(second_graph)), 60)
    assert not (first and second), "both instances applied the same migrations"
    versions = [row["version"] for row in await _recorded(neo4j_driver)]
    assert len(versions) == len(set(versions))
    assert {m.version for m in discover()} <= set(versions)
    assert await _lease_holder(neo4j_driver) is None


async def test_new_migrations_run_exactly_once_across_instances(
    graph: Graph,
    second_graph: Graph,
    neo4j_driver: AsyncDriver,
    probe: str,
    tmp_path: Path,
) -> None:
    migrations = _probe_migrations(tmp_path, probe)
    results = await asyncio.wait_for(
        asyncio.gather(apply(graph, migrations), apply(second_graph, migrations)), 60
    )
    assert sorted(results) == [[], TEST_VERSIONS]

    steps = await query(
        neo4j_driver,
        "MATCH (p:MigrationProbe {token: $token}) RETURN p.step AS step ORDER BY step",
        token=probe,
    )
    assert [row["step"] for row in steps] == [1, 2, 3]
    recorded = {row["version"]: row for row in await _recorded(neo4j_driver)}
    for migration in migrations:
        assert recorded[migration.version]["name"] == migration.name
        assert recorded[migration.version]["checksum"] == migration.checksum

    # A third run, from either instance, does nothing more.
    assert await apply(second_graph, migrations) == []
    assert await _probe_count(neo4j_driver, probe) == 3

    # Editing an applied migration is refused, and nothing of the edit runs.
    path = tmp_path / "V9002__probe_second.cypher"
    path.write_text(
        path.read_text(encoding="utf-8") + f"CREATE (:MigrationProbe {{token: '{probe}'}});\n",
        encoding="utf-8",
    )
    with pytest.raises(MigrationError, match="V9002"):
        await apply(graph, discover(tmp_path))
    assert await _probe_count(neo4j_driver, probe) == 3


async def test_changed_shipped_migration_is_refused(
    graph: Graph, neo4j_driver: AsyncDriver, tmp_path: Path
) -> None:
    await apply(graph)
    before = await _recorded(neo4j_driver)
    copy = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, copy)
    first = sorted(copy.glob("V0001__*.cypher"))[0]
    first.write_text(first.read_text(encoding="utf-8") + "// edited\n", encoding="utf-8")

    with pytest.raises(MigrationError, match="V0001 changed after it was applied"):
        await apply(graph, discover(copy))

    assert await _recorded(neo4j_driver) == before
    # The lease was given back: the next start does not wait for it to expire.
    assert await _lease_holder(neo4j_driver) is None
    assert await asyncio.wait_for(apply(graph), 5) == []


async def test_history_reads_migrate_a_database_that_holds_memories(
    graph: Graph, neo4j_driver: AsyncDriver, client: TestClientProtocol
) -> None:
    """V0015 and V0016 on a database as earlier versions left it (past versions without
    ended_seq_text, no full-text index of past versions): every version is kept and found as
    of its time."""
    owner = await create_user(client, "migrated")
    first = await store(client, owner.headers, "The quarterly report goes to Ines")
    await correct(client, owner.headers, first["memory_id"], "The quarterly report goes to Omar")
    versions = (
        "MATCH (v:MemoryVersion {user_id: $user_id}) WHERE v.branch IS NOT NULL "
        "RETURN v.ended_seq AS ended, v.ended_seq_text AS text"
    )
    before = await query(neo4j_driver, versions, user_id=owner.user_id)
    assert before and all(row["text"] is not None for row in before)
    await query(
        neo4j_driver,
        "MATCH (v:MemoryVersion {user_id: $user_id}) REMOVE v.ended_seq_text",
        user_id=owner.user_id,
    )
    await query(neo4j_driver, "DROP INDEX memory_version_content IF EXISTS")
    await query(neo4j_driver, "DROP INDEX change_user_time IF EXISTS")
    await query(neo4j_driver, "MATCH (m:Migration) WHERE m.version IN [15, 16] DELETE m")

    assert await apply(graph) == [15, 16]
    await query(neo4j_driver, "CALL db.awaitIndexes(300)")

    after = await query(neo4j_driver, versions, user_id=owner.user_id)
    assert sorted(after, key=str) == sorted(before, key=str)
    history = await request_ok(
        client, "GET", f"/v1/memories/{first['memory_id']}/history", owner.headers
    )
    stored_at = history["versions"][0]["at"]
    found = await request_ok(
        client,
        "POST",
        "/v1/memories/fulltext-search",
        owner.headers,
        json={"query": "quarterly report", "as_of": stored_at},
    )
    assert [memory["content"] for memory in found] == ["The quarterly report goes to Ines"]
    indexes = await query(neo4j_driver, "SHOW FULLTEXT INDEXES YIELD name RETURN name")
    names = {row["name"] for row in indexes}
    assert "memory_version_content" in names and "memory_history_content" not in names
