"""The task worker across instances: a task whose service process is killed mid-way is finished
by another instance once the lease runs out, a task abandoned too often is failed with the
reason, and finished tasks are pruned after their retention."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from neo4j import AsyncDriver

from app.registry import Registry
from app.tasks import TaskWorker
from tests.conftest import PATIENT_S, STARTUP_TIMEOUT_S
from tests.integration.conftest import StartService
from tests.support.fake_llm import FakeLlm
from tests.support.neo4j_direct import query
from tests.support.service_process import logs_of, new_user
from tests.support.summaries import FULL, SESSION
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow(1)

LEASE_S = 2
TAKEOVER_GUARD_S = 120.0  # how long the test waits for the second instance to finish the task


async def test_a_task_whose_instance_is_killed_is_finished_by_another(
    service_processes: StartService, neo4j_driver: AsyncDriver
) -> None:
    fake = FakeLlm().start()
    fake.reply = FULL
    fake.hold()  # the first instance's request waits until that instance is killed
    environment = {
        "LLM_API_KEY": "test",
        "LLM_BASE_URL": fake.base_url,
        "LLM_MAX_RETRIES": "0",
        "LLM_TIMEOUT_S": "600",  # the held answer does not time out before the kill
        "TASK_LEASE_S": str(LEASE_S),
        "TASK_POLL_S": "0.2",
        "SCHEDULER_ENABLED": "false",
    }
    suffix = uuid.uuid4().hex[:6]
    first = service_processes(f"tasks-a-{suffix}", **environment)
    services = [first]
    try:
        await first.wait_ready(STARTUP_TIMEOUT_S)
        async with httpx.AsyncClient(base_url=first.base_url, timeout=PATIENT_S) as http:
            _, raw_key = await new_user(http, f"tasks-{suffix}")
            headers = {"Authorization": f"Bearer {raw_key}"}
            for text in SESSION:
                stored = await http.post(
                    "/v1/memories", json={"content": text, "session_id": "deploy"}, headers=headers
                )
                assert stored.status_code == 201
            accepted = await http.post(
                "/v1/sessions/deploy/summary", json={"mode": "full"}, headers=headers
            )
            assert accepted.status_code == 202, accepted.text
            task_id = accepted.json()["task_id"]

        async def asked() -> bool:
            return bool(fake.requests)

        await wait_for("the first instance to ask the LLM", asked, 60, lambda: logs_of(services))
        second = service_processes(f"tasks-b-{suffix}", **environment)
        services.append(second)
        await second.wait_ready(STARTUP_TIMEOUT_S)
        first.kill()
        fake.release()

        async with httpx.AsyncClient(base_url=second.base_url, timeout=PATIENT_S) as http:

            async def finished() -> dict[str, Any] | None:
                task: dict[str, Any] = (
                    await http.get(f"/v1/tasks/{task_id}", headers=headers)
                ).json()
                return task if task["status"] != "processing" else None

            task = await wait_for(
                "the task to finish", finished, TAKEOVER_GUARD_S, lambda: logs_of(services)
            )
    finally:
        fake.stop()
    assert task["status"] == "completed", task
    assert task["result"]["memory_type"] == "episodic"
    [row] = await query(
        neo4j_driver,
        "MATCH (t:Task {task_id: $id}) RETURN t.claimed_by AS holder, t.attempts AS attempts",
        id=task_id,
    )
    assert row["holder"].startswith(second.instance_id)
    assert row["attempts"] == 2


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


async def _task(driver: AsyncDriver, task_id: str) -> dict[str, Any] | None:
    rows = await query(driver, "MATCH (t:Task {task_id: $id}) RETURN t {.*} AS t", id=task_id)
    return rows[0]["t"] if rows else None


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

    failed = await _task(neo4j_driver, abandoned)
    assert failed is not None and failed["status"] == "failed"
    assert failed["error"] == "abandoned: the instance running it stopped 2 times"
    assert await _task(neo4j_driver, old) is None
    assert await _task(neo4j_driver, recent) is not None
