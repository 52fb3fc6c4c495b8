"""Raw API keys are shown once and kept nowhere: not in the graph, not in the logs."""

from __future__ import annotations

import hashlib
import logging
import uuid
from typing import Any

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.support.http import bearer, issue_key
from tests.support.neo4j_direct import query


def _strings(value: Any) -> list[str]:
    """Every value of a property (lists walked) as text."""
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return [str(value)]


async def _issue_use_rotate(client: TestClientProtocol) -> tuple[str, list[dict[str, Any]]]:
    """Issues a key, uses it, rotates it, uses the new one; returns the user and both bodies."""
    user_id = f"secret-{uuid.uuid4().hex[:12]}"
    issued = await issue_key(client, user_id, "secret")
    assert (await client.get("/auth/keys", headers=bearer(issued["raw_key"]))).status_code == 200
    rotated_response = await client.put(
        f"/auth/keys/{issued['key_id']}/rotate", headers=bearer(issued["raw_key"])
    )
    assert rotated_response.status_code == 201
    rotated = await rotated_response.get_json()
    shown = await client.get(f"/auth/keys/{rotated['key_id']}", headers=bearer(rotated["raw_key"]))
    assert shown.status_code == 200
    # A failed attempt with the retired key must not leak it either.
    assert (await client.get("/auth/keys", headers=bearer(issued["raw_key"]))).status_code == 401
    return user_id, [issued, rotated]


async def test_graph_holds_hash_and_prefix_but_never_the_raw_key(
    client: TestClientProtocol, neo4j_driver: AsyncDriver
) -> None:
    user_id, bodies = await _issue_use_rotate(client)
    raw_keys = [body["raw_key"] for body in bodies]

    # Every property of every node and relationship, embeddings aside (they are numbers).
    nodes = await query(
        neo4j_driver,
        "MATCH (n) RETURN labels(n) AS labels, "
        "[k IN keys(n) WHERE k <> 'embedding' | n[k]] AS values",
    )
    relationships = await query(
        neo4j_driver, "MATCH ()-[r]->() RETURN [k IN keys(r) | r[k]] AS values"
    )
    texts = [text for row in nodes + relationships for v in row["values"] for text in _strings(v)]
    assert texts, "the graph scan found nothing to check"
    for raw_key in raw_keys:
        secret_part = raw_key.removeprefix("sk-")
        leaks = [text for text in texts if raw_key in text or secret_part in text]
        assert leaks == [], "a raw key is stored in the graph"

    # What is stored instead: the SHA-256 hash and the 12-character prefix.
    stored = await query(
        neo4j_driver,
        "MATCH (k:ApiKey)-[:BELONGS_TO]->(:User {id: $user_id}) "
        "RETURN k.id AS key_id, k.hash AS hash, k.prefix AS prefix",
        user_id=user_id,
    )
    by_id = {row["key_id"]: row for row in stored}
    assert set(by_id) == {body["key_id"] for body in bodies}
    for body in bodies:
        row = by_id[body["key_id"]]
        assert row["hash"] == hashlib.sha256(body["raw_key"].encode()).hexdigest()
        assert row["prefix"] == body["raw_key"][:12]


async def test_logs_never_contain_the_raw_key(
    client: TestClientProtocol, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("neo4j", "quart", "uvicorn", "app"):
        caplog.set_level(logging.DEBUG, logger=name)

    _, bodies = await _issue_use_rotate(client)

    records = caplog.records
    assert records, "nothing was logged at DEBUG: the check would prove nothing"
    # The driver logs each query with its parameters at DEBUG: the hash is there, the key is not.
    hashes = [hashlib.sha256(body["raw_key"].encode()).hexdigest() for body in bodies]
    logged = "\n".join(
        f"{record.name} {record.getMessage()} {record.exc_text or ''} {record.args!r}"
        for record in records
    )
    assert any(digest in logged for digest in hashes), "query parameters were not logged"
    for body in bodies:
        assert body["raw_key"] not in logged
        assert body["raw_key"].removeprefix("sk-") not in logged
        assert body["raw_key"].removeprefix("sk-") not in caplog.text
