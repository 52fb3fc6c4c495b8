"""Scheduled jobs: the job table (name -> trigger -> service function) and what makes them
run once across every instance of the service.

- One instance at a time is the scheduler: the holder of the Neo4j lease "scheduler", taken
  and renewed every third of its ttl (SCHEDULER_LEASE_S). Every instance keeps trying; when the
  holder dies its lease expires and another instance takes over.
- Each scheduled run is claimed once: the holder MERGEs (:JobRun {job, scheduled_for}), unique
  by constraint, and runs the job only if its own attempt created the node and it holds the
  lease in the database at that moment. A run is therefore never executed twice, even at a
  handover; a run that falls due while no instance holds the lease is skipped.
- Schedules are cron expressions in UTC, so every instance computes the same run times: five
  fields (minute hour day month weekday, weekdays numbered as in crontab, 0 or 7 = Sunday) or
  six with seconds first (for tests: "*/2 * * * * *" runs every two seconds).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from app import leases, metrics
from app.config import Settings
from app.cron import cron_trigger
from app.errors import Unavailable
from app.registry import Registry
from app.services import feedback
from app.services.governance import sweep
from app.services.versioning import snapshots

log = logging.getLogger(__name__)

LEASE = "scheduler"
MISFIRE_GRACE_S = 120  # a run that starts later than this after its time is skipped
RUNS_KEPT = timedelta(days=30)
STOP_GRACE_S = 10.0

JobFunction = Callable[[Registry], Awaitable[Mapping[str, int]]]


@dataclass(frozen=True)
class ScheduledJob:
    """One row of the job table: a service function run on a trigger, with the registry."""

    name: str
    trigger: CronTrigger
    run: JobFunction


async def collect_garbage(registry: Registry) -> dict[str, int]:
    """Removes the memory versions that no snapshot can see any more."""
    return {"versions_deleted": await snapshots.collect_garbage(registry)}


def job_table(settings: Settings) -> list[ScheduledJob]:
    """Every scheduled job; the lease and the run claims apply to every row."""
    return [
        ScheduledJob("autotune", cron_trigger(settings.autotune_cron), feedback.autotune_all),
        ScheduledJob("collect_garbage", cron_trigger(settings.gc_cron), collect_garbage),
        ScheduledJob("governance", cron_trigger(settings.governance_cron), sweep.govern_all),
    ]


def due_run(
    trigger: CronTrigger, now: datetime, horizon_s: float = MISFIRE_GRACE_S
) -> datetime | None:
    """The run a firing at `now` stands for: the trigger's latest fire time at or before `now`
    (within `horizon_s`). Every instance computes the same value for the same run."""
    fire: datetime | None = trigger.get_next_fire_time(None, now - timedelta(seconds=horizon_s))
    due: datetime | None = None
    while fire is not None and fire <= now:
        due = fire
        fire = trigger.get_next_fire_time(due, due + timedelta(microseconds=1))
    return due


class Scheduler:
    """An AsyncIOScheduler running the job table on the instance that holds the lease."""

    def __init__(
        self, registry: Registry, jobs: Sequence[ScheduledJob] | None = None, lease: str = LEASE
    ) -> None:
        self._registry = registry
        self._graph = registry.graph
        self._ttl_s = float(registry.settings.scheduler_lease_s)
        self._jobs = list(job_table(registry.settings) if jobs is None else jobs)
        self._lease = lease
        self.holder = f"{registry.instance_id}#{uuid.uuid4().hex[:8]}"
        self._held_until = 0.0
        self._stopping = False
        self._running: set[asyncio.Task[Any]] = set()
        self._scheduler: Any = None

    def holds_lease(self) -> bool:
        """Whether this instance holds the lease as of its last renewal (never longer)."""
        return time.monotonic() < self._held_until

    async def start(self) -> None:
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.add_job(
            self.renew,
            IntervalTrigger(seconds=max(self._ttl_s / 3, 0.2), timezone=UTC),
            id="lease",
            next_run_time=datetime.now(UTC),
            max_instances=1,
            coalesce=True,
        )
        for job in self._jobs:
            scheduler.add_job(
                self.run,
                job.trigger,
                args=[job],
                id=job.name,
                max_instances=1,
                coalesce=True,
                misfire_grace_time=MISFIRE_GRACE_S,
            )
        scheduler.start()
        self._scheduler = scheduler
        log.info("scheduler %s started: %s", self.holder, ", ".join(j.name for j in self._jobs))

    async def stop(self) -> None:
        """Stops scheduling, lets a run in progress finish (briefly), and gives up the lease."""
        self._stopping = True
        if self._running:
            await asyncio.wait(set(self._running), timeout=STOP_GRACE_S)
        if self._scheduler is not None and self._scheduler.running:
            self._scheduler.shutdown(wait=False)
            await asyncio.sleep(0)  # the shutdown itself runs on the next loop iteration
        self._scheduler = None
        if self._held_until:
            self._held_until = 0.0
            try:
                await leases.release(self._graph, self._lease, self.holder)
            except Unavailable:
                log.warning("could not release the scheduler lease: the database is unavailable")

    async def renew(self) -> None:
        """Takes or renews the lease; the local view of holding it never outlives it."""
        if self._stopping:
            return
        asked = time.monotonic()
        try:
            acquired = await leases.acquire(self._graph, self._lease, self.holder, self._ttl_s)
        except Unavailable:
            log.warning("scheduler lease not renewed: the database is unavailable")
            return
        was_holding = self.holds_lease()
        self._held_until = asked + self._ttl_s if acquired else 0.0
        if acquired and not was_holding:
            log.info("scheduler %s holds the lease %s", self.holder, self._lease)
        elif was_holding and not acquired:
            log.warning("scheduler %s lost the lease %s", self.holder, self._lease)

    async def run(self, job: ScheduledJob) -> None:
        """One firing of a job: claim the run, then execute it, on the lease holder only."""
        if self._stopping or not self.holds_lease():
            return
        due = due_run(job.trigger, datetime.now(UTC))
        if due is None:
            log.warning("job %s fired too late for any of its run times; skipped", job.name)
            metrics.JOB_RUNS.labels(job.name, "missed").inc()
            return
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            await self._run_once(job, due)
        except Unavailable:
            log.warning("job %s run %s: the database is unavailable", job.name, due.isoformat())
            metrics.JOB_RUNS.labels(job.name, "unavailable").inc()
        finally:
            if task is not None:
                self._running.discard(task)

    async def _run_once(self, job: ScheduledJob, due: datetime) -> None:
        claim = uuid.uuid4().hex
        keys = {"job": job.name, "scheduled_for": due, "claim": claim}
        rows = await self._graph.write(
            "scheduler/claim_run", lease=self._lease, holder=self.holder, **keys
        )
        if not rows or not rows[0]["claimed"]:
            return
        await self._graph.write("scheduler/start_run", **keys)
        started = time.perf_counter()
        try:
            result = await job.run(self._registry)
        except Exception as error:
            log.exception("job %s run %s failed", job.name, due.isoformat())
            metrics.JOB_RUNS.labels(job.name, "failed").inc()
            await self._graph.write(
                "scheduler/finish_run",
                status="failed",
                error=type(error).__name__,
                result={},
                **keys,
            )
            return
        metrics.JOB_RUNS.labels(job.name, "completed").inc()
        figures = {f"result_{name}": value for name, value in result.items()}
        await self._graph.write(
            "scheduler/finish_run", status="completed", error=None, result=figures, **keys
        )
        log.info(
            "job %s run %s completed in %.0f ms: %s",
            job.name,
            due.isoformat(),
            (time.perf_counter() - started) * 1000,
            dict(result),
        )
        await self._graph.write("scheduler/prune_runs", job=job.name, before=due - RUNS_KEPT)
