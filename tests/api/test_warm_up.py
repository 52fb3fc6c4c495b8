"""A freshly started service has Neo4j plan its hot statements before the first requests."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from tests.api.conftest import FreshStart
from tests.conftest import User, create_user
from tests.support.branches import create_branch
from tests.support.memories import store, store_batch
from tests.support.query_plans import hot, made_elsewhere, plans_used, statements

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
