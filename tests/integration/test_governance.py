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
from app.models.governance import Skipped
from app.registry import Registry
from app.scheduler import ScheduledJob, Scheduler, job_table
from app.services.governance import consolidate, paging, sweep
from app.services.scope import MAIN, Caller, Scope
from app.services.versioning import snapshots
from tests.conftest import User, create_user, make_settings
from tests.support.governance import days_ago, run
from tests.support.http import request_ok
from tests.support.memories import listed_ids, store, store_batch
from tests.support.neo4j_direct import query
from tests.support.snapshots import roll_back


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
    page = await registry.graph.read(
        "governance/contradiction_pairs",
        **scope.params(),
        source=MAIN,
        through=2**62,
        **paging.Cursor.created_after(0).params(),
        batch=10,
        min_similarity=consolidate.MIN_SIMILARITY,
        hub_limit=consolidate.HUB_LIMIT,
        partners=consolidate.PARTNERS,
    )
    _, found = consolidate.find(page, set())
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
    assert report["users_failed"] >= 1

    # Not marked governed, the stranded user is the next run's work.
    retried = await sweep.govern_all(registry)

    assert retried["users_failed"] == 0
    assert ("governance", "scheduled") in await _runs_of(neo4j_driver, stranded.user_id)
    # ...and only them: the others were done.
    assert sorted(await _runs_of(neo4j_driver, after.user_id)) == [
        ("consolidate", "scheduled"),
        ("governance", "scheduled"),
    ]


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


def _paged(registry: Registry) -> Registry:
    """The registry with maintenance pages of two memory nodes, without pauses."""
    return replace(registry, settings=make_settings(maintenance_batch=2, maintenance_pause_s=0))


async def _note_ids(client: TestClientProtocol, user: User) -> list[str]:
    """Seven decayed T4 notes, five of them stored together (one seq for five nodes)."""
    decayed = {"trust_tier": "T4", "initial_confidence": 0.1}
    stored = await store_batch(
        client,
        user.headers,
        [{"content": f"Scratch note number {n} of the week", **decayed} for n in range(5)],
    )
    stored += [
        await store(client, user.headers, f"Loose scratch note {n}", **decayed) for n in "ab"
    ]
    return [memory["memory_id"] for memory in stored]


async def test_the_pages_of_a_walk_hold_every_memory_node_once(
    client: TestClientProtocol, registry: Registry
) -> None:
    user = await create_user(client, "paged-walk")
    notes = await _note_ids(client, user)
    scope = Scope(user.user_id, MAIN)
    criteria = {
        "threshold": sweep.QUARANTINE_BELOW,
        "decay_days": {tier: 1e9 for tier in ("T1", "T2", "T3", "T4")},
        "expire_hours": {},
        "collectable_hours": 24,
    }
    seen: list[str] = []
    paged = 0
    cursor = paging.Cursor.created_after(0)
    while rows := await registry.graph.read(
        "governance/stale", **scope.params(), **criteria, source=MAIN, batch=2, **cursor.params()
    ):
        [page] = rows
        paged += page["paged"]
        seen += [found["memory_id"] for found in page["found"]]
        cursor = paging.Cursor.past(page)
    assert paged == len(notes)
    assert sorted(seen) == sorted(notes)  # each of them found once, on some page

    compared: list[str] = []
    cursor = paging.Cursor.created_after(0)
    while page := await registry.graph.read(
        "governance/contradiction_pairs",
        **scope.params(),
        source=MAIN,
        through=2**62,
        **cursor.params(),
        batch=2,
        min_similarity=consolidate.MIN_SIMILARITY,
        hub_limit=consolidate.HUB_LIMIT,
        partners=consolidate.PARTNERS,
    ):
        assert len(page) <= 2
        compared += [row["memory_id"] for row in page]
        cursor = paging.Cursor.past(page[-1])
    assert sorted(compared) == sorted(notes)


async def test_governance_in_small_pages_quarantines_every_decayed_note_once(
    client: TestClientProtocol, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    user = await create_user(client, "paged-governance")
    notes = await _note_ids(client, user)
    kept = await store(client, user.headers, "The ledger-db keeps 30 days of logs.")

    report = await sweep.govern(_paged(registry), Caller(user.user_id), force=True)

    assert not isinstance(report, Skipped)
    assert report.quarantined == len(notes)
    assert report.snapshot_name is not None
    assert await listed_ids(client, user.headers) == [kept["memory_id"]]
    snapshots_taken = (
        "MATCH (s:Snapshot {user_id: $u}) WHERE s.name STARTS WITH 'pre_governance' "
        "RETURN count(s) AS n"
    )
    assert await _count(neo4j_driver, snapshots_taken, u=user.user_id) == 1
    # A rollback to the run's one snapshot brings every page's quarantine back.
    await roll_back(client, user.headers, report.snapshot_name)
    assert sorted(await listed_ids(client, user.headers)) == sorted([*notes, kept["memory_id"]])


async def test_consolidate_in_small_pages_finds_each_contradiction_once_and_then_only_new_ones(
    client: TestClientProtocol, registry: Registry
) -> None:
    user = await create_user(client, "paged-consolidate")
    facts = [
        ("The ledger-db keeps 30 days of logs.", "The ledger-db keeps 14 days of logs."),
        (
            "The billing-api retries a payment 3 times.",
            "The billing-api retries a payment 5 times.",
        ),
        ("The search-api runs 4 replicas.", "The search-api runs 6 replicas."),
    ]
    for older, _ in facts:
        await store(client, user.headers, older, observed_at=days_ago(3))
    await store(client, user.headers, "The auth-api token lives 60 minutes.")
    for _, newer in facts:
        await store(client, user.headers, newer)
    paged = _paged(registry)
    caller = Caller(user.user_id)

    first = await consolidate.consolidate(paged, caller, force=True)
    again = await consolidate.consolidate(paged, caller, force=True)
    await store(client, user.headers, "The auth-api token lives 15 minutes.")
    after_a_new_one = await consolidate.consolidate(paged, caller, force=True)

    assert not isinstance(first, Skipped) and not isinstance(again, Skipped)
    assert not isinstance(after_a_new_one, Skipped)
    assert (first.contradictions, first.confidence_lowered) == (3, 3)
    assert again.contradictions == 0
    assert after_a_new_one.contradictions == 1
