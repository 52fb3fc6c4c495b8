"""Tasks in Neo4j: reading one for its user, and running one under a lease that its runner
renews, so that exactly one instance runs it and another takes it over when that one dies."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from app import metrics
from app.errors import DomainError, NotFound, Unavailable
from app.graph import Row
from app.models.tasks import Task
from app.registry import Registry
from app.services.scope import Caller

log = logging.getLogger(__name__)

TaskRun = Callable[[Registry, Row], Awaitable[dict[str, Any]]]
INTERNAL_ERROR = "internal error while running the task"


def _task(row: Row) -> Task:
    return Task(
        task_id=row["task_id"],
        kind=row["kind"],
        status=row["status"],
        result=json.loads(row["result"]) if row.get("result") else None,
        error=row.get("error"),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


async def get(registry: Registry, caller: Caller, task_id: str) -> Task:
    """GET /v1/tasks/{task_id}: one of the caller's tasks; another user's is not found."""
    rows = await registry.graph.read("tasks/get", user_id=caller.user_id, task_id=task_id)
    if not rows:
        raise NotFound("task not found")
    return _task(rows[0]["task"])


async def _renew(registry: Registry, task_id: str, holder: str) -> None:
    """Keeps renewing the claim while the task runs (a third of the lease apart)."""
    lease_s = registry.settings.task_lease_s
    while True:
        await asyncio.sleep(lease_s / 3)
        try:
            [row] = await registry.graph.write(
                "tasks/renew", task_id=task_id, holder=holder, lease_s=lease_s
            )
        except Unavailable:
            log.warning("task %s: lease not renewed, the database is unavailable", task_id)
            continue
        if not row["renewed"]:
            log.warning("task %s: another instance has taken it over", task_id)
            return


async def _finish(
    registry: Registry, task: Row, holder: str, result: dict[str, Any] | None, error: str | None
) -> None:
    status = "failed" if error is not None else "completed"
    metrics.TASKS.labels(task["kind"], status).inc()
    await registry.graph.write(
        "tasks/finish",
        task_id=task["task_id"],
        holder=holder,
        status=status,
        result=None if result is None else json.dumps(result, ensure_ascii=False),
        error=error,
    )


async def give_up(registry: Registry, task: Row, holder: str, reason: str) -> None:
    """Ends a task its holder stops running for good (a sync request whose client went away):
    failed with the reason, so that it holds nothing from now on and no instance runs it
    again."""
    await _finish(registry, task, holder, None, reason)


async def execute(registry: Registry, task: Row, holder: str, run: TaskRun) -> dict[str, Any]:
    """Runs a task `holder` has claimed, renewing the claim meanwhile, and records how it ended:
    `completed` with its result, or `failed` with the error's message (a domain error's detail,
    or a generic message for a bug, which is logged). Returns the result; re-raises the error."""
    metrics.TASKS.labels(task["kind"], "started").inc()
    renewal = asyncio.create_task(_renew(registry, task["task_id"], holder))
    try:
        result = await run(registry, task)
    except DomainError as error:
        await _finish(registry, task, holder, None, error.detail)
        raise
    except Exception:
        log.exception("task %s (%s) failed", task["task_id"], task["kind"])
        await _finish(registry, task, holder, None, INTERNAL_ERROR)
        raise
    finally:
        renewal.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewal
    await _finish(registry, task, holder, result, None)
    return result
