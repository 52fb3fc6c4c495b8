"""GET /metrics (master key only): the metric families operators chart, with routes as labels
and never a memory's content, a user id or a key; and the X-Request-Id on every response."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families
from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.http import error_detail, request_ok

FAMILIES = {
    "memory_http_requests",
    "memory_http_request_duration_seconds",
    "memory_retrieval_stage_seconds",
    "memory_neo4j_statement_seconds",
    "memory_encode_batch_size",
    "memory_encode_queue_wait_seconds",
    "memory_neo4j_errors",
    "memory_neo4j_available",
    "memory_rate_limit_rejections",
    "memory_scheduled_job_runs",
    "memory_tasks",
    "memory_mcp_tool_calls",
}


async def _metrics(client: TestClientProtocol) -> str:
    response = await client.get("/metrics", headers=MASTER)
    text = await response.get_data(as_text=True)
    assert response.status_code == 200, text
    assert response.mimetype == "text/plain"
    return text


async def test_metrics_need_the_master_key(client: TestClientProtocol, user: User) -> None:
    await error_detail(await client.get("/metrics"), 401)
    await error_detail(await client.get("/metrics", headers=user.headers), 403)


async def test_requests_and_retrieval_stages_are_counted_without_content_in_labels(
    client: TestClientProtocol, user: User
) -> None:
    content = "Quokka-7781 keeps the 发票 ledger in vault 42."
    stored = await request_ok(
        client, "POST", "/v1/memories", user.headers, json={"content": content}
    )
    await request_ok(
        client, "POST", "/v1/memories/retrieve", user.headers, json={"query": "Quokka-7781 ledger"}
    )
    await request_ok(client, "GET", f"/v1/memories/{stored['memory_id']}", user.headers)
    assert (await client.get("/v1/memories/no-key-given")).status_code == 401

    text = await _metrics(client)
    families = {family.name: family for family in text_string_to_metric_families(text)}
    assert set(families) >= FAMILIES
    requests = {
        (sample.labels["route"], sample.labels["method"], sample.labels["status"])
        for sample in families["memory_http_requests"].samples
    }
    assert ("/v1/memories/retrieve", "POST", "200") in requests
    assert ("/v1/memories/<memory_id>", "GET", "200") in requests  # the rule, not the id
    assert ("/v1/memories/<memory_id>", "GET", "401") in requests  # refused, still labelled
    stages = {
        sample.labels.get("stage") for sample in families["memory_retrieval_stage_seconds"].samples
    }
    assert {"embed", "candidates", "graph", "rank"} <= stages
    statements = {
        sample.labels.get("statement")
        for sample in families["memory_neo4j_statement_seconds"].samples
    }
    assert {"keys/verify", "versions/create", "retrieval/candidates", "memories/get"} <= statements
    assert families["memory_neo4j_available"].samples[0].value == 1
    secrets = ("Quokka", "发票", stored["memory_id"], user.user_id, user.raw_key)
    for family in families.values():
        for sample in family.samples:
            for value in sample.labels.values():
                assert not any(secret in value for secret in secrets), (sample.name, value)


async def test_every_response_carries_a_request_id(client: TestClientProtocol, user: User) -> None:
    given = await client.get("/v1/memories", headers={**user.headers, "X-Request-Id": "trace-17"})
    assert given.headers["X-Request-Id"] == "trace-17"
    made = await client.get("/v1/memories", headers=user.headers)
    failed = await client.get("/v1/no-such-route", headers=user.headers)
    hostile = await client.get("/health", headers={"X-Request-Id": "a b\tc" * 50})
    ids = [response.headers["X-Request-Id"] for response in (made, failed, hostile)]
    assert all(len(request_id) == 32 for request_id in ids)  # fresh ones
    assert len(set(ids)) == 3
    assert failed.status_code == 404
