"""The task worker's housekeeping: a task abandoned too often is failed with the reason, and
finished tasks are pruned after their retention. (A task whose service process is killed mid-way
is finished by another instance: tests/integration/test_instances.py.)"""

from __future__ import annotations

import uuid
from typing import Any

from neo4j import AsyncDriver

from app.registry import Registry
from app.tasks import TaskWorker
from tests.support.neo4j_direct import query
from tests.support.summaries import stored_task


async def _plant_task(driver: AsyncDriver, **props: Any) -> str:
    task_id = uuid.uuid4().hex
    await query(
        driver,
        "CREATE (t:Task {task_id: $id, user_id: 'nobody', kind: 'summary', "
        "created_at: datetime()}) SET t += $props",
        id=task_id,
        props=props,
    )
    return task_id


async def test_a_task_abandoned_too_often_fails_with_the_reason_and_old_tasks_are_pruned(
    registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    abandoned = await _plant_task(neo4j_driver, status="processing", attempts=2)
    await query(
        neo4j_driver,
        "MATCH (t:Task {task_id: $id}) SET t.lease_until = datetime() - duration('PT5S')",
        id=abandoned,
    )
    old, recent = [
        await _plant_task(neo4j_driver, status="completed", result="{}") for _ in range(2)
    ]
    await query(
        neo4j_driver,
        "MATCH (t:Task {task_id: $id}) SET t.updated_at = datetime() - duration('P2D')",
        id=old,
    )
    await query(
        neo4j_driver, "MATCH (t:Task {task_id: $id}) SET t.updated_at = datetime()", id=recent
    )

    await TaskWorker(registry).poll_once()

    failed = await stored_task(neo4j_driver, abandoned)
    assert failed is not None and failed["status"] == "failed"
    assert failed["error"] == "abandoned: the instance running it stopped 2 times"
    assert await stored_task(neo4j_driver, old) is None
    assert await stored_task(neo4j_driver, recent) is not None
