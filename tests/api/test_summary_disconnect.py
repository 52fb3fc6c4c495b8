"""A sync summary whose client goes away (the service's own HTTP server, a real HTTP client): its
work is cancelled cleanly. The task ends at once, failed with the reason, so its place under the
lightweight limit is free again and no instance runs it later; the access log and the metrics
record 499 (client closed request), never a 500 that was not sent. In a module of its own, so
that the served app's worker meets no other module's tasks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import httpx
import pytest
from neo4j import AsyncDriver
from prometheus_client import REGISTRY

from app.services.summaries import CLIENT_CLOSED
from tests.support.fake_llm import FakeLlm
from tests.support.http import bearer
from tests.support.neo4j_direct import query
from tests.support.service_process import new_user
from tests.support.summaries import BULLETS, SESSION

ROUTE = "/v1/sessions/<session_id>/summary"
WAIT_S = 30.0


def _answered(status: int) -> float:
    """How many summary requests the metrics record with `status`."""
    labels = {"route": ROUTE, "method": "POST", "status": str(status)}
    return REGISTRY.get_sample_value("memory_http_requests_total", labels) or 0.0


async def _eventually(what: str, check: Any) -> Any:
    """Polls `check` (a coroutine function) until it returns something truthy."""
    for _ in range(int(WAIT_S / 0.1)):
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: not within {WAIT_S} s")


async def test_a_sync_summary_whose_client_goes_away_ends_its_task_at_once(
    served: str, llm: FakeLlm, neo4j_driver: AsyncDriver, caplog: pytest.LogCaptureFixture
) -> None:
    async with httpx.AsyncClient(base_url=served, timeout=30) as http:
        user_id, raw_key = await new_user(http, "disconnect")
        headers = bearer(raw_key)
        for text in SESSION:
            stored = await http.post(
                "/v1/memories", json={"content": text, "session_id": "deploy"}, headers=headers
            )
            assert stored.status_code == 201, stored.text
    closed_before, failed_before = _answered(499), _answered(500)
    llm.reply = BULLETS
    llm.hold()
    body = {"mode": "lightweight", "sync": True}

    with caplog.at_level(logging.INFO, logger="app.access"):
        async with httpx.AsyncClient(base_url=served, timeout=30) as leaving:
            pending = asyncio.ensure_future(
                leaving.post("/v1/sessions/deploy/summary", json=body, headers=headers)
            )
            await llm.asked(0)  # the request now waits on the LLM
            pending.cancel()  # the client gives up and closes its connection
            with contextlib.suppress(asyncio.CancelledError):
                await pending

        async def failed_task() -> dict[str, Any] | None:
            rows = await query(
                neo4j_driver,
                "MATCH (t:Task {user_id: $user_id}) RETURN t {.*} AS task",
                user_id=user_id,
            )
            return rows[0]["task"] if rows and rows[0]["task"]["status"] != "processing" else None

        task = await _eventually("the task to end", failed_task)
        await _eventually("the access log line", lambda: _closed_line(caplog))

    assert (task["status"], task["error"]) == ("failed", CLIENT_CLOSED)
    assert (_answered(499), _answered(500)) == (closed_before + 1, failed_before)
    assert not [r for r in caplog.records if getattr(r, "status", None) == 500]

    # Its place is free at once (its lease still had most of TASK_LEASE_S to run): three
    # lightweight summaries fit; and nobody ran the given-up task again.
    llm.clear()
    async with httpx.AsyncClient(base_url=served, timeout=30) as http:
        for n in range(3):
            llm.reply = {"bullets": [f"bullet {n}.{i}" for i in range(3)]}
            made = await http.post("/v1/sessions/deploy/summary", json=body, headers=headers)
            assert made.status_code == 200, made.text
    assert len(llm.requests) == 3
    [row] = await query(
        neo4j_driver, "MATCH (t:Task {task_id: $id}) RETURN t {.*} AS task", id=task["task_id"]
    )
    assert row["task"] == task


async def _closed_line(caplog: pytest.LogCaptureFixture) -> bool:
    return any(
        record.name == "app.access" and getattr(record, "status", None) == 499
        for record in caplog.records
    )
