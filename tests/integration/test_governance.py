"""Governance against the graph: a long-deleted memory becomes collectable and its orphans go,
orphans left by other means are removed (only the user's own), and the scheduled governance
job runs once per scheduled run across instances, for the users with changes only."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.cron import cron_trigger
from app.registry import Registry
from app.scheduler import ScheduledJob, Scheduler, job_table
from app.services.governance import consolidate, sweep
from app.services.scope import MAIN, Scope
from app.services.versioning import snapshots
from tests.conftest import User, create_user, make_settings
from tests.support.governance import days_ago, run
from tests.support.http import request_ok
from tests.support.memories import store
from tests.support.neo4j_direct import query


async def _count(driver: AsyncDriver, cypher: str, **params: Any) -> int:
    [row] = await query(driver, cypher, **params)
    return int(row["n"])


async def test_a_long_deleted_memory_is_collected_and_its_orphans_removed(
    client: TestClientProtocol, user: User, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    gone = await store(
        client, user.headers, "Zephyr-cache runs on host cache-07.", session_id="ops-42"
    )
    await store(client, user.headers, "The weekly report goes out on Mondays.")
    response = await client.delete(f"/v1/memories/{gone['memory_id']}", headers=user.headers)
    assert response.status_code == 200
    await query(
        neo4j_driver,
        "MATCH (m:Memory {memory_id: $id}) SET m.deleted_at = datetime() - duration('P2D')",
        id=gone["memory_id"],
    )

    report = await run(client, user.headers, "governance")
    assert report["collectable"] == 1
    # While a snapshot can still restore it, its entity and session stay.
    consolidated = await run(client, user.headers, "consolidate")
    assert consolidated["orphan_entities"] == 0
    entities = "MATCH (e:Entity {user_id: $user_id, key: 'zephyr cache'}) RETURN count(e) AS n"
    assert await _count(neo4j_driver, entities, user_id=user.user_id) == 1

    # Once the safety snapshots are pruned, garbage collection takes its history...
    await query(neo4j_driver, "MATCH (s:Snapshot {user_id: $u}) DELETE s", u=user.user_id)
    while await snapshots.collect_garbage(registry):
        pass
    nodes = "MATCH (m:Memory|MemoryVersion {memory_id: $id}) RETURN count(m) AS n"
    assert await _count(neo4j_driver, nodes, id=gone["memory_id"]) == 0
    # ...and consolidate the entity and the session that pointed at nothing but it.
    consolidated = await run(client, user.headers, "consolidate")
    assert consolidated["orphan_entities"] >= 1
    assert consolidated["orphan_sessions"] == 1
    assert await _count(neo4j_driver, entities, user_id=user.user_id) == 0
    sessions = "MATCH (s:Session {user_id: $user_id, id: 'ops-42'}) RETURN count(s) AS n"
    assert await _count(neo4j_driver, sessions, user_id=user.user_id) == 0


async def test_orphans_left_by_other_means_are_removed_for_the_user_only(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    other = await create_user(client, "orphans")
    await store(client, user.headers, "The billing team owns invoice-api.")
    plant = (
        "CREATE (:Entity {user_id: $u, key: 'ghost', name: 'ghost', type: 'other'}) "
        "CREATE (:Session {user_id: $u, id: 'empty'}) "
        "CREATE (:Entity {user_id: $u, key: 'x', name: 'x', type: 'other'})"
        "-[:RELATES_TO {type: 'owns', memory_id: 'no-such-memory'}]->"
        "(:Entity {user_id: $u, key: 'y', name: 'y', type: 'other'})"
    )
    await query(neo4j_driver, plant, u=user.user_id)
    await query(neo4j_driver, plant, u=other.user_id)

    report = await run(client, user.headers, "consolidate")

    assert report["orphan_entities"] == 3
    assert report["orphan_sessions"] == 1
    assert report["dangling_links"] == 1
    keys = await query(
        neo4j_driver, "MATCH (e:Entity {user_id: $u}) RETURN e.key AS key", u=user.user_id
    )
    assert {row["key"] for row in keys} >= {"invoice api", "billing team"}
    assert not {row["key"] for row in keys} & {"ghost", "x", "y"}
    untouched = "MATCH (e:Entity {user_id: $u}) RETURN count(e) AS n"
    assert await _count(neo4j_driver, untouched, u=other.user_id) == 3


async def test_a_contradiction_whose_memory_went_before_it_was_recorded_is_not(
    client: TestClientProtocol, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    """Consolidate reads its pairs before its change: a memory deleted in between gets no new
    version, and the other is not lowered in its favour."""
    user = await create_user(client, "raced")
    older = await store(
        client,
        user.headers,
        "The invoice-api rate limit is 5000 a minute.",
        observed_at=days_ago(5),
    )
    newer = await store(client, user.headers, "The invoice-api rate limit is 9000 a minute.")
    scope = Scope(user.user_id, MAIN)
    pairs = await registry.graph.read(
        "governance/contradiction_pairs",
        **scope.params(),
        min_similarity=consolidate.MIN_SIMILARITY,
        hub_limit=consolidate.HUB_LIMIT,
        max_pairs=consolidate.MAX_PAIRS,
    )
    found = consolidate.find(pairs)
    assert [item.lowered for item in found] == [older["memory_id"]]
    response = await client.delete(f"/v1/memories/{newer['memory_id']}", headers=user.headers)
    assert response.status_code == 200

    assert await consolidate._record(registry, scope, found) == 0

    links = "MATCH (:Memory {user_id: $u})-[r:CONTRADICTS]->() RETURN count(r) AS n"
    assert await _count(neo4j_driver, links, u=user.user_id) == 0
    kept = await request_ok(client, "GET", f"/v1/memories/{older['memory_id']}", user.headers)
    assert kept["initial_confidence"] == 0.95


def test_the_job_table_runs_governance_on_its_own_schedule() -> None:
    table = job_table(make_settings(governance_cron="15 2 * * *"))
    [job] = [job for job in table if job.name == "governance"]
    assert job.run is sweep.govern_all


async def _runs_of(driver: AsyncDriver, user_id: str) -> list[tuple[str, str]]:
    rows = await query(
        driver,
        "MATCH (r:GovernanceRun {user_id: $u}) RETURN r.op AS op, r.trigger AS trigger "
        "ORDER BY r.at, r.op",
        u=user_id,
    )
    return [(row["op"], row["trigger"]) for row in rows]


async def test_scheduled_governance_goes_on_past_a_user_it_cannot_govern(
    client: TestClientProtocol, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    """A user checked out to a branch that is gone (left so by a release before the fix of
    checkouts racing deletes) is skipped, and everyone after it is governed."""
    await sweep.govern_all(registry)
    stranded = await create_user(client, "stranded")
    after = await create_user(client, "zz-after")
    await store(client, stranded.headers, "Stranded note")
    await store(client, after.headers, "Scratch", trust_tier="T4", initial_confidence=0.1)
    await query(
        neo4j_driver,
        "MATCH (u:User {id: $u}) SET u.active_branch = 'gone'",
        u=stranded.user_id,
    )

    report = await sweep.govern_all(registry)

    assert report["users_governed"] >= 1
    assert ("governance", "scheduled") in await _runs_of(neo4j_driver, after.user_id)
    assert await _runs_of(neo4j_driver, stranded.user_id) == []
    await query(
        neo4j_driver, "MATCH (u:User {id: $u}) SET u.active_branch = 'main'", u=stranded.user_id
    )


async def test_scheduled_governance_runs_once_per_run_for_users_with_changes(
    client: TestClientProtocol, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    await sweep.govern_all(registry)  # catches up every user other tests left behind
    changed = await create_user(client, "scheduled")
    quiet = await create_user(client, "quiet")
    await store(client, changed.headers, "Scratch note", trust_tier="T4", initial_confidence=0.1)
    await store(client, quiet.headers, "Nothing changes here")
    await sweep.govern_all(registry)
    await query(neo4j_driver, "MATCH (r:GovernanceRun {user_id: $u}) DELETE r", u=quiet.user_id)
    await store(
        client, changed.headers, "A second scratch note", trust_tier="T4", initial_confidence=0.1
    )

    job = ScheduledJob(
        f"governance-{uuid.uuid4().hex[:8]}", cron_trigger("* * * * *"), sweep.govern_all
    )
    schedulers = [
        Scheduler(
            replace(
                registry,
                settings=make_settings(scheduler_enabled=True),
                instance_id=f"instance-{n}",
            ),
            jobs=[job],
            lease=f"lease-{uuid.uuid4().hex[:8]}",  # each believes it holds the lease
        )
        for n in range(2)
    ]
    for scheduler in schedulers:
        await scheduler.renew()
    try:
        await asyncio.gather(*(scheduler.run(job) for scheduler in schedulers for _ in range(2)))
    finally:
        for scheduler in schedulers:
            await scheduler.stop()

    [job_run] = await query(
        neo4j_driver,
        "MATCH (r:JobRun {job: $job}) RETURN r.executions AS executions, "
        "r.result_users_governed AS governed",
        job=job.name,
    )
    assert job_run == {"executions": 1, "governed": 1}
    runs = await _runs_of(neo4j_driver, changed.user_id)
    assert runs[-2:] == [("consolidate", "scheduled"), ("governance", "scheduled")] or runs[
        -2:
    ] == [("governance", "scheduled"), ("consolidate", "scheduled")]
    assert len(runs) == 4  # two scheduled runs saw changes: the first and this one
    assert await _runs_of(neo4j_driver, quiet.user_id) == []
    listed = await client.get("/v1/memories", headers=changed.headers)
    assert (await listed.get_json())["items"] == []  # both notes were quarantined
