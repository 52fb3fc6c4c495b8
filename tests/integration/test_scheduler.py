"""The scheduler: one lease holder runs the jobs, each scheduled run is claimed exactly once,
and another instance takes over when the holder dies (real separate service processes)."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import AsyncDriver
from neo4j.time import DateTime
from quart.typing import TestClientProtocol

from app.cron import cron_trigger
from app.registry import Registry
from app.scheduler import ScheduledJob, Scheduler, collect_garbage, job_table
from app.services import feedback
from tests.conftest import STARTUP_TIMEOUT_S, User, make_settings
from tests.integration.conftest import StartService
from tests.support.feedback import give_feedback
from tests.support.memories import store
from tests.support.neo4j_direct import query
from tests.support.service_process import logs_of
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow(1)

EVERY_MINUTE = "* * * * *"
PERIOD_S = 2
LEASE_TTL_S = 4
RUNS_GUARD_S = 120.0  # how long the test waits for the runs it needs at most


class CountingJob:
    """A job function that counts its calls in this process."""

    def __init__(self, fail: bool = False, wanted: int = 1) -> None:
        self.calls = 0
        self.fail = fail
        self.wanted = wanted
        self.enough = asyncio.Event()

    async def __call__(self, registry: Registry) -> Mapping[str, int]:
        self.calls += 1
        if self.calls >= self.wanted:
            self.enough.set()
        await asyncio.sleep(0.05)
        if self.fail:
            raise RuntimeError("the job broke")
        return {"calls": self.calls}


def _scheduler(registry: Registry, job: ScheduledJob, lease: str, ttl_s: int = 30) -> Scheduler:
    settings = make_settings(scheduler_enabled=True, scheduler_lease_s=ttl_s)
    instance = replace(registry, settings=settings, instance_id=f"test-{uuid.uuid4().hex[:6]}")
    return Scheduler(instance, jobs=[job], lease=lease)


def _native(run: dict[str, Any]) -> dict[str, Any]:
    """A JobRun's properties with Neo4j temporal values as Python datetimes."""
    return {
        key: value.to_native() if isinstance(value, DateTime) else value
        for key, value in run.items()
    }


async def _runs(driver: AsyncDriver, job: str) -> list[dict[str, Any]]:
    rows = await query(
        driver,
        "MATCH (r:JobRun {job: $job}) RETURN r {.*} AS run ORDER BY r.scheduled_for",
        job=job,
    )
    return [{"run": _native(row["run"])} for row in rows]


async def _away_from_a_minute_boundary() -> None:
    # Both claimants must compute the same run (the current minute) for the race to be real:
    # with ten seconds to spare, however slow the machine.
    second = datetime.now(UTC).second
    if second >= 50:
        await asyncio.sleep(61 - second)


def test_the_job_table_has_the_autotune_and_garbage_collection_jobs() -> None:
    table = job_table(make_settings(autotune_cron="*/5 * * * * *", gc_cron="30 3 * * *"))
    assert [job.name for job in table] == ["autotune", "collect_garbage", "governance"]
    assert table[0].run is feedback.autotune_all
    assert table[1].run is collect_garbage


async def test_two_claimants_of_one_run_execute_it_once(
    registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    job_fn = CountingJob()
    job = ScheduledJob(f"test-{uuid.uuid4().hex[:8]}", cron_trigger(EVERY_MINUTE), job_fn)
    # Two schedulers that both believe they may run jobs (each holds a lease of its own):
    # only the uniqueness of the run claim stands between them.
    first = _scheduler(registry, job, f"lease-{uuid.uuid4().hex[:8]}")
    second = _scheduler(registry, job, f"lease-{uuid.uuid4().hex[:8]}")
    await first.renew()
    await second.renew()
    assert first.holds_lease() and second.holds_lease()
    await _away_from_a_minute_boundary()
    try:
        await asyncio.gather(first.run(job), second.run(job), first.run(job), second.run(job))
    finally:
        await first.stop()
        await second.stop()

    assert job_fn.calls == 1
    [row] = await _runs(neo4j_driver, job.name)
    run = row["run"]
    assert run["executions"] == 1
    assert run["status"] == "completed"
    assert run["result_calls"] == 1
    assert run["claimed_by"] in (first.holder, second.holder)
    assert run["scheduled_for"].second == 0


async def test_without_the_lease_nothing_runs(
    registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    job_fn = CountingJob()
    job = ScheduledJob(f"test-{uuid.uuid4().hex[:8]}", cron_trigger(EVERY_MINUTE), job_fn)
    lease = f"lease-{uuid.uuid4().hex[:8]}"
    holder = _scheduler(registry, job, lease)
    other = _scheduler(registry, job, lease)
    await holder.renew()
    await other.renew()
    assert holder.holds_lease()
    assert not other.holds_lease()
    await other.run(job)
    assert job_fn.calls == 0
    assert await _runs(neo4j_driver, job.name) == []

    # Released on stop: the other instance takes the lease at its next renewal.
    await holder.stop()
    await other.renew()
    assert other.holds_lease()
    await _away_from_a_minute_boundary()
    await other.run(job)
    await other.stop()
    assert job_fn.calls == 1
    [row] = await _runs(neo4j_driver, job.name)
    assert row["run"]["claimed_by"] == other.holder


async def test_a_failing_job_is_recorded_and_not_retried(
    registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    job_fn = CountingJob(fail=True)
    job = ScheduledJob(f"test-{uuid.uuid4().hex[:8]}", cron_trigger(EVERY_MINUTE), job_fn)
    scheduler = _scheduler(registry, job, f"lease-{uuid.uuid4().hex[:8]}")
    await scheduler.renew()
    await _away_from_a_minute_boundary()
    await scheduler.run(job)
    await scheduler.run(job)
    await scheduler.stop()
    assert job_fn.calls == 1
    [row] = await _runs(neo4j_driver, job.name)
    assert row["run"]["status"] == "failed"
    assert row["run"]["error"] == "RuntimeError"
    assert row["run"]["executions"] == 1


async def test_the_scheduler_runs_a_seconds_schedule_and_releases_its_lease(
    registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    job_fn = CountingJob(wanted=3)
    job = ScheduledJob(f"test-{uuid.uuid4().hex[:8]}", cron_trigger("* * * * * *"), job_fn)
    lease = f"lease-{uuid.uuid4().hex[:8]}"
    scheduler = _scheduler(registry, job, lease, ttl_s=2)
    await scheduler.start()
    try:
        await asyncio.wait_for(job_fn.enough.wait(), timeout=RUNS_GUARD_S)
    finally:
        await scheduler.stop()
    assert job_fn.calls >= 3
    runs = [row["run"] for row in await _runs(neo4j_driver, job.name)]
    assert len(runs) == job_fn.calls
    assert all(run["executions"] == 1 and run["status"] == "completed" for run in runs)
    # Runs of whole seconds, each once (a busy machine may skip a second: runs coalesce).
    times = [run["scheduled_for"] for run in runs]
    assert all(time.microsecond == 0 for time in times), times
    assert all(a < b for a, b in itertools.pairwise(times)), times
    [lease_row] = await query(
        neo4j_driver, "MATCH (l:Lease {name: $name}) RETURN l.holder AS holder", name=lease
    )
    assert lease_row["holder"] is None


async def test_autotune_job_tunes_users_with_new_feedback_only(
    client: TestClientProtocol, user: User, registry: Registry
) -> None:
    memory = await store(client, user.headers, "The build cache lives on the NAS")
    await give_feedback(client, user.headers, memory["memory_id"], "useful", 10)

    async def params() -> dict[str, Any]:
        body: dict[str, Any] = await (
            await client.get("/v1/retrieval-params", headers=user.headers)
        ).get_json()
        return body

    first = await feedback.autotune_all(registry)
    assert first["users_tuned"] >= 1
    tuned = await params()
    assert (tuned["source"], tuned["tuned_signals"], tuned["feedback_weight"]) == (
        "auto",
        10,
        0.2185,
    )

    # No new feedback: the user is not tuned again.
    await feedback.autotune_all(registry)
    assert await params() == tuned

    await give_feedback(client, user.headers, memory["memory_id"], "useful")
    await feedback.autotune_all(registry)
    retuned = await params()
    assert retuned["tuned_signals"] == 11
    assert retuned["tuned_at"] != tuned["tuned_at"]
    assert retuned["feedback_weight"] > tuned["feedback_weight"]


# --- two real service processes --------------------------------------------------------------


async def _lease_holder(driver: AsyncDriver) -> str | None:
    rows = await query(
        driver,
        "MATCH (l:Lease {name: 'scheduler'}) WHERE l.expires_at > datetime() "
        "RETURN l.holder AS holder",
    )
    return rows[0]["holder"] if rows else None


async def _autotune_runs(driver: AsyncDriver, since: datetime) -> list[dict[str, Any]]:
    rows = await query(
        driver,
        "MATCH (r:JobRun {job: 'autotune'}) WHERE r.scheduled_for >= $since "
        "RETURN r {.*} AS run ORDER BY r.scheduled_for",
        since=since,
    )
    return [_native(row["run"]) for row in rows]


def _instance(run: dict[str, Any]) -> str:
    return str(run["claimed_by"]).split("#", 1)[0]


async def test_two_processes_run_each_scheduled_run_once_and_hand_over(
    client: TestClientProtocol,
    user: User,
    neo4j_driver: AsyncDriver,
    service_processes: StartService,
) -> None:
    # A user whose feedback the scheduled job will tune.
    memory = await store(client, user.headers, "The on-call phone is in the top drawer")
    await give_feedback(client, user.headers, memory["memory_id"], "wrong", 10)

    since = datetime.now(UTC).replace(microsecond=0)
    tag = uuid.uuid4().hex[:6]
    env = {
        "SCHEDULER_ENABLED": "true",
        "AUTOTUNE_CRON": f"*/{PERIOD_S} * * * * *",
        "SCHEDULER_LEASE_S": str(LEASE_TTL_S),
    }
    services = [service_processes(f"sched-{name}-{tag}", **env) for name in ("a", "b")]
    # Each process imports torch and loads the embedding model first: slow on a busy machine.
    await asyncio.gather(*(service.wait_ready(STARTUP_TIMEOUT_S) for service in services))
    by_id = {service.instance_id: service for service in services}

    async def known_holder() -> str | None:
        holder = await _lease_holder(neo4j_driver)
        name = holder.split("#", 1)[0] if holder else None
        return name if name in by_id else None

    def account() -> str:
        return logs_of(services)

    holder_id = await wait_for("a lease holder", known_holder, RUNS_GUARD_S, account)
    holder = by_id[holder_id]
    [survivor] = [service for service in services if service is not holder]

    async def holder_ran_three() -> bool:
        return len(await _autotune_runs(neo4j_driver, since)) >= 3

    await wait_for("three runs by the holder", holder_ran_three, RUNS_GUARD_S, account)
    holder.kill()  # SIGKILL: no shutdown, the lease is left to expire

    async def survivor_ran_three() -> bool:
        runs = await _autotune_runs(neo4j_driver, since)
        return sum(_instance(run) == survivor.instance_id for run in runs) >= 3

    await wait_for("three runs by the survivor", survivor_ran_three, RUNS_GUARD_S, account)
    assert survivor.terminate() == 0, survivor.log_tail()

    runs = await _autotune_runs(neo4j_driver, since)
    before = [run for run in runs if _instance(run) == holder.instance_id]
    after = [run for run in runs if _instance(run) == survivor.instance_id]
    assert len(before) + len(after) == len(runs), "a run was claimed by a third instance"
    # Each scheduled run executed exactly once: one node per run time, one execution each.
    assert len({run["scheduled_for"] for run in runs}) == len(runs)
    finished = [run for run in runs if run["status"] == "completed"]
    assert all(run["executions"] == 1 for run in finished), runs
    # The holder ran until it was killed, the survivor from its takeover on (every run of the
    # schedule, unless the machine was too busy to start one in time: runs coalesce); nobody
    # ran while the other held the lease.
    assert len(before) >= 3 and len(after) >= 3
    assert max(run["scheduled_for"] for run in before) < min(r["scheduled_for"] for r in after)
    assert all(run["scheduled_for"].second % PERIOD_S == 0 for run in runs), runs
    # All completed, except perhaps the one run the killed holder was in the middle of: it was
    # claimed (and perhaps started) once, and nobody ran it again.
    unfinished = [run for run in runs if run["status"] != "completed"]
    assert len(unfinished) <= 1, unfinished
    for run in unfinished:
        assert run == before[-1]
        assert (run["status"], run["executions"]) in (("claimed", 0), ("running", 1)), run
    # The graceful stop released the lease.
    assert await _lease_holder(neo4j_driver) is None
    # The job did its work: the user was tuned automatically, once, by the first run.
    params = await (await client.get("/v1/retrieval-params", headers=user.headers)).get_json()
    assert params["source"] == "auto"
    assert params["tuned_signals"] == 10
    assert params["feedback_weight"] == 0.2185  # 10 consistent signals on one memory
    assert min(run["result_users_tuned"] for run in before[:1]) >= 1
