"""The service's Prometheus metrics (prometheus-client, the process's default registry).

Labels are routes (URL rules such as `/v1/memories/<memory_id>`), methods, statuses, stage,
operation, job, task, statement and LLM feature names: never memory content, ids, users or keys.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    start_http_server,
)

# Seconds, from a cached retrieve (a few ms) to a slow LLM call.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
STAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)

REQUESTS = Counter(
    "memory_http_requests_total", "HTTP requests answered", ["route", "method", "status"]
)
REQUEST_SECONDS = Histogram(
    "memory_http_request_duration_seconds",
    "Time to answer an HTTP request",
    ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
)
RETRIEVAL_STAGE_SECONDS = Histogram(
    "memory_retrieval_stage_seconds",
    "Time per stage of a hybrid retrieve or search",
    ["stage"],
    buckets=STAGE_BUCKETS,
)
STATEMENT_SECONDS = Histogram(
    "memory_neo4j_statement_seconds",
    "Time a named Cypher statement takes, from sending it to its last row (commit aside)",
    ["statement"],
    buckets=STAGE_BUCKETS,
)
ENCODE_BATCH_SIZE = Histogram(
    "memory_encode_batch_size", "Texts per embedding model call", buckets=BATCH_BUCKETS
)
ENCODE_QUEUE_SECONDS = Histogram(
    "memory_encode_queue_wait_seconds",
    "Time an encode waits for the model's thread",
    buckets=STAGE_BUCKETS,
)
NEO4J_ERRORS = Counter(
    "memory_neo4j_errors_total", "Neo4j calls that failed because the database was unavailable"
)
NEO4J_AVAILABLE = Gauge(
    "memory_neo4j_available", "1 while the last Neo4j call succeeded, 0 during an outage"
)
RATE_LIMITED = Counter(
    "memory_rate_limit_rejections_total", "Requests refused by a rate limit", ["operation"]
)
JOB_RUNS = Counter(
    "memory_scheduled_job_runs_total", "Scheduled job runs by outcome", ["job", "outcome"]
)
JOB_USER_FAILURES = Counter(
    "memory_scheduled_job_user_failures_total",
    "Users a scheduled job could not process (it went on with the others; its next run retries)",
    ["job"],
)
TASKS = Counter("memory_tasks_total", "Background task state changes", ["kind", "state"])
LLM_REQUESTS = Counter(
    "memory_llm_requests_total", "LLM requests by feature and outcome", ["feature", "outcome"]
)
TOOL_CALLS = Counter(
    "memory_mcp_tool_calls_total", "MCP tool calls by outcome", ["tool", "outcome"]
)


def serve_separately(host: str, port: int) -> Callable[[], None]:
    """Serves /metrics without credentials on its own port (for a scraper on a private
    network), on a thread; returns what stops it."""
    server, thread = start_http_server(port, addr=host)

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return stop


def exposition() -> tuple[bytes, str]:
    """The metrics in Prometheus's text format, and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST
