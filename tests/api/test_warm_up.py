"""A freshly started service has Neo4j plan its hot statements before the first requests: the
stores, retrieves and graph walks of every shape after the database lost its plans (as after a
restart) run on plans made while the service started. One start serves the module: clearing
Neo4j's plans makes every later test of the worker plan its statements again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from quart import Quart
from quart.testing.app import TestApp

from app import create_app
from app.embedding import Embedder
from tests.conftest import STARTUP_TIMEOUT_S, User, create_user, make_settings
from tests.support.branches import create_branch
from tests.support.entities import CHAIN, QUESTION, UNKNOWN_QUESTION, UNNAMED_QUESTION, UNRELATED
from tests.support.memories import explained, store, store_batch, stored_ids
from tests.support.neo4j_direct import query
from tests.support.query_plans import Plan, hot, made_elsewhere, plans_used, statements

pytestmark = pytest.mark.drops_plans


@dataclass
class FreshStart:
    """An app started after Neo4j lost its query plans, and the plans Neo4j made meanwhile."""

    app: Quart
    planned: set[Plan]


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def freshly_started(
    neo4j_driver: AsyncDriver, embedder: Embedder
) -> AsyncIterator[FreshStart]:
    """An app started after Neo4j lost its query plans, as after a database restart: the plans
    Neo4j made while it started are all that Neo4j has. Each test checks that the plans its
    requests ran on are among them (a plan an earlier test had Neo4j make lazily is not)."""
    await query(neo4j_driver, "CALL db.clearQueryCaches()")
    service = create_app(make_settings(instance_id="fresh-start"), embedder=embedder)
    harness = TestApp(service, startup_timeout=STARTUP_TIMEOUT_S)
    async with plans_used(neo4j_driver) as planned:
        await harness.startup()
    try:
        yield FreshStart(service, planned)
    finally:
        await harness.shutdown()


# Stores of every shape: few and many entities, English, Chinese and both, none at all, a
# session, every optional field, a branch.
STORES: list[dict[str, Any]] = [
    {"content": "payment-service runs on host-01."},
    {
        "content": "Maria leads the billing team; billing owns invoice-api and ledger-db and "
        "pays through stripe-gw.",
        "session_id": "onboarding",
    },
    {"content": "订单服务依赖 redis-cache 和 kafka-01, 由张伟负责。"},
    {"content": "A plain sentence that names nothing."},
    {
        "content": "invoice-api pins lodash 4.17.15 (CVE-2020-8203, JIRA-1234); see "
        "docs.example.com, auth-service, ledger-db, batch-runner-02, fx-rates and "
        "metrics-gateway.",
        "memory_type": "procedural",
        "subject_id": "billing",
        "trust_tier": "T2",
        "observed_at": "2026-01-02T03:04:05Z",
        "extra_metadata": {"source": "ticket", "priority": 2},
    },
    {"content": "The trial branch keeps its own notes about host-02.", "branch": "trial"},
]


async def test_a_freshly_started_service_stores_without_planning(
    freshly_started: FreshStart, neo4j_driver: AsyncDriver
) -> None:
    # A store of any shape, for users whose ids differ in length, must be served by the plans
    # the service has Neo4j make at startup: planning each of a store's statements takes 18-90
    # ms, which the first stores after the database lost its plans would wait for.
    client = freshly_started.app.test_client()
    owners: list[User] = []
    for prefix in ("u", "a-user-whose-id-is-much-longer"):
        owners.append(await create_user(client, prefix))
        await create_branch(client, owners[-1].headers, "trial")
    async with plans_used(neo4j_driver) as used:
        for owner in owners:
            for fields in STORES:
                await store(client, owner.headers, **fields)
            duplicate = await client.post("/v1/memories", json=STORES[0], headers=owner.headers)
            assert duplicate.status_code == 200
            for size in (3, 12):
                notes = [{"content": f"Note {n} of {size}, about host-{n}."} for n in range(size)]
                await store_batch(client, owner.headers, notes)
    assert {"versions/create", "entities/upsert"} <= statements(used)
    assert made_elsewhere(hot(used), freshly_started.planned) == []


FACTS = [
    "Plays tennis with friends every Saturday",
    "Lives in an apartment in Lisbon, Portugal",
    "Favourite novel is Dune by Frank Herbert",
    "Drives a blue electric hatchback to the office",
    "打网球是他们每周六的习惯。",
]

# Every kind of first stage: short and long questions, English and Chinese, type, subject and
# strict session filters, a larger top_k, a copy-on-write branch.
FIRST_STAGE_KINDS: list[dict[str, Any]] = [
    {"query": "tennis"},
    {"query": "which sport do they do on weekends, and who do they usually play it with?"},
    {"query": "他们周末做什么运动"},
    {"query": "what book do they like most", "memory_types": ["semantic"]},
    {"query": "what book do they like most", "memory_types": ["semantic", "profile"]},
    {"query": "what city is their home in", "subject_id": "partner"},
    {"query": "what city is their home in", "session_id": "onboarding", "session_scope": "only"},
    {"query": "what kind of car do they own", "top_k": 50},
    {"query": "what kind of car do they own", "branch": "trial"},
]


async def test_a_freshly_started_service_answers_its_first_retrieves_without_planning(
    freshly_started: FreshStart, neo4j_driver: AsyncDriver
) -> None:
    # Every kind of retrieve, for users whose ids differ in length, must be served by the plans
    # the service has Neo4j make at startup, or the first retrieve of each kind after the
    # database lost its plans waits for planning (a few hundred milliseconds for the first
    # stage, and its walk may run out of time).
    client = freshly_started.app.test_client()
    owners: dict[str, User] = {}
    for prefix in ("u", "a-user-whose-id-is-much-longer"):
        owners[prefix] = await create_user(client, prefix)
        await store_batch(
            client,
            owners[prefix].headers,
            [{"content": fact, "session_id": "onboarding"} for fact in FACTS],
        )
        await create_branch(client, owners[prefix].headers, "trial")
    async with plans_used(neo4j_driver) as used:
        for owner in owners.values():
            for fields in FIRST_STAGE_KINDS:
                for mode in ("retrieve", "search"):
                    response = await client.post(
                        f"/v1/memories/{mode}", json=fields, headers=owner.headers
                    )
                    assert response.status_code == 200, await response.get_data(as_text=True)
    assert "retrieval/candidates" in statements(used)
    assert made_elsewhere(hot(used), freshly_started.planned) == []


async def test_a_freshly_started_service_follows_the_graph_from_its_first_retrieves(
    freshly_started: FreshStart, neo4j_driver: AsyncDriver
) -> None:
    # Every kind of walk (from the question's entities, from a candidate's, from both; on main
    # and on a copy-on-write branch) must be served by the one plan the service has Neo4j make
    # at startup, or the first retrieve of that kind after the database lost its plans waits
    # for planning (longer than the walk's time limit: it answers without the graph).
    client = freshly_started.app.test_client()
    user = await create_user(client, "walks")
    await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    await create_branch(client, user.headers, "trial")  # reads main copy-on-write
    async with plans_used(neo4j_driver) as used:
        for branch in ("main", "trial"):
            for question in (QUESTION, UNNAMED_QUESTION, UNKNOWN_QUESTION):
                body = await explained(client, user.headers, "retrieve", question, branch=branch)
                graph = body["explain"]["graph"]
                assert not graph["timed_out"] and graph["reached"] > 0, (branch, question)
    assert "retrieval/expand" in statements(used)
    assert made_elsewhere(hot(used), freshly_started.planned) == []
