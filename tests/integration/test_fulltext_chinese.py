"""V0008 recreates the full-text index with the CJK analyzer over the memories already stored."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.graph import Graph
from app.migrations import discover
from tests.conftest import create_user
from tests.support.memories import contents, fulltext, store_batch
from tests.support.neo4j_direct import query

pytestmark = pytest.mark.drops_plans

PAYMENT = "我们决定支付服务使用PostgreSQL数据库"
APART = "支持多种付款方式"  # 支 and 付, but never side by side


def _statements(name: str) -> list[str]:
    [migration] = [migration for migration in discover() if migration.name == name]
    return migration.statements


async def _analyzer(driver: AsyncDriver) -> str:
    rows = await query(
        driver,
        "SHOW FULLTEXT INDEXES YIELD name, options WHERE name = 'memory_content' "
        "RETURN options.indexConfig['fulltext.analyzer'] AS analyzer",
    )
    return str(rows[0]["analyzer"])


async def test_the_migration_reindexes_memories_stored_before_it(
    client: TestClientProtocol, graph: Graph, neo4j_driver: AsyncDriver
) -> None:
    assert await _analyzer(neo4j_driver) == "cjk"
    user = await create_user(client)
    [before_v0008] = [
        statement
        for statement in _statements("copy_on_write_branches")
        if statement.startswith("CREATE FULLTEXT INDEX memory_content")
    ]
    try:
        # The index as V0006 left it (the default analyzer), with memories in it.
        await graph.run_schema("DROP INDEX memory_content IF EXISTS")
        await graph.run_schema(before_v0008)
        await store_batch(client, user.headers, [{"content": PAYMENT}, {"content": APART}])
        await graph.read("schema/await_indexes")
        assert await _analyzer(neo4j_driver) == "standard-no-stop-words"
        # Single characters: a word finds memories where its characters stand apart.
        hits = await fulltext(client, user.headers, "支付")
        assert sorted(contents(hits)) == sorted([PAYMENT, APART])
    finally:
        for statement in _statements("fulltext_cjk"):
            await graph.run_schema(statement)
        await graph.read("schema/await_indexes")

    assert await _analyzer(neo4j_driver) == "cjk"
    assert contents(await fulltext(client, user.headers, "支付")) == [PAYMENT]
    assert contents(await fulltext(client, user.headers, "数据库")) == [PAYMENT]
    assert contents(await fulltext(client, user.headers, "付款")) == [APART]
