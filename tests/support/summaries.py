"""HTTP helpers for session summaries and tasks, the fake LLM's answers for them, and a task
as Neo4j holds it."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.memories import store
from tests.support.neo4j_direct import query
from tests.support.waiting import wait_for

SESSION = [
    "Deploy of invoice-api 2.3 to staging failed on a missing DATABASE_URL.",
    "Added DATABASE_URL to the staging secrets of invoice-api.",
    "Redeployed invoice-api 2.3 to staging; health checks pass.",
]
FULL = {
    "topic": "Deploying invoice-api 2.3 to staging",
    "action": "Added the missing DATABASE_URL secret and redeployed",
    "outcome": "The deploy succeeded and health checks pass",
}
BULLETS = {
    "bullets": [
        "invoice-api 2.3 failed on staging without DATABASE_URL",
        "The secret was added",
        "The redeploy passed its health checks",
    ]
}
TASK_WAIT_S = 180.0  # a guard: how long a test waits for a task at most


async def session(client: TestClientProtocol, user: User, session_id: str = "deploy") -> list[str]:
    """Stores the session's memories (other sessions' named after them) and one elsewhere."""
    texts = SESSION if session_id == "deploy" else [f"{session_id}: {text}" for text in SESSION]
    ids = [
        (await store(client, user.headers, text, session_id=session_id))["memory_id"]
        for text in texts
    ]
    await store(client, user.headers, f"Maria prefers tea ({session_id}).", session_id="other")
    return ids


async def summarize(
    client: TestClientProtocol, user: User, session_id: str = "deploy", **body: Any
) -> Any:
    return await client.post(f"/v1/sessions/{session_id}/summary", json=body, headers=user.headers)


async def finished(client: TestClientProtocol, user: User, task_id: str) -> dict[str, Any]:
    """The task once it is no longer processing."""

    async def done() -> dict[str, Any] | None:
        response = await client.get(f"/v1/tasks/{task_id}", headers=user.headers)
        assert response.status_code == 200, await response.get_data(as_text=True)
        task: dict[str, Any] = await response.get_json()
        return task if task["status"] != "processing" else None

    found: dict[str, Any] = await wait_for(f"task {task_id} to finish", done, TASK_WAIT_S)
    return found


async def stored_task(driver: AsyncDriver, task_id: str) -> dict[str, Any] | None:
    """The task's node as Neo4j holds it (its claim, attempts, lease), or None."""
    rows = await query(driver, "MATCH (t:Task {task_id: $id}) RETURN t {.*} AS t", id=task_id)
    return rows[0]["t"] if rows else None
