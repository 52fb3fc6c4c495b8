"""Current by default: a retrieve or search without `as_of` never returns a version that a later
one replaced, whichever way it was replaced (a correction, a merge that replaces, a rollback, a
contradiction consolidate resolved, quarantine, purge, delete). Each result is the memory's
current version, exactly as GET /v1/memories/{id} shows it now."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.branches import create_branch, merge
from tests.support.governance import days_ago, run
from tests.support.http import request_ok
from tests.support.memories import correct, delete, ranked, store
from tests.support.snapshots import roll_back, take_snapshot

QUERY = "What is the invoice-api rate limit?"
LIMIT = "The invoice-api rate limit is 5000 requests per minute."
RAISED = "The invoice-api rate limit is now 9000 requests per minute."
OTHER = "invoice-api is deployed to eu-west-1."
# Fields that say which version a result is (its score and decayed confidence aside).
VERSION = (
    "content",
    "is_active",
    "initial_confidence",
    "trust_tier",
    "superseded_by",
    "updated_at",
    "feedback",
)
# A way to replace a memory: it makes the user's memories, replaces one, and returns the
# contents and ids a retrieve must no longer return.
Replace = Callable[[TestClientProtocol, User], Awaitable[tuple[set[str], set[str]]]]


async def _correction(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    old = await store(client, user.headers, LIMIT)
    await correct(client, user.headers, old["memory_id"], RAISED)
    return {LIMIT}, {old["memory_id"]}


async def _merge_replacing(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    old = await store(client, user.headers, LIMIT)
    await create_branch(client, user.headers, "raise")
    await correct(client, user.headers, old["memory_id"], RAISED, branch="raise")
    await merge(client, user.headers, "raise", "replace")
    return {LIMIT}, {old["memory_id"]}


async def _rollback(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    kept = await store(client, user.headers, LIMIT)
    await take_snapshot(client, user.headers, "before")
    later = await correct(client, user.headers, kept["memory_id"], RAISED)
    await roll_back(client, user.headers, "before")
    return {RAISED}, {later["memory_id"]}


async def _consolidate(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    older = await store(client, user.headers, LIMIT, observed_at=days_ago(20))
    await store(client, user.headers, RAISED, observed_at=days_ago(1))
    report = await run(client, user.headers, "consolidate")
    assert report["confidence_lowered"] == 1
    lowered = await request_ok(client, "GET", f"/v1/memories/{older['memory_id']}", user.headers)
    assert lowered["initial_confidence"] < older["initial_confidence"]
    return set(), set()  # the older memory stays, as its lowered version (checked below)


async def _quarantine(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    stale = await store(client, user.headers, LIMIT, trust_tier="T4", observed_at=days_ago(60))
    report = await run(client, user.headers, "governance")
    assert report["quarantined"] == 1
    return {LIMIT}, {stale["memory_id"]}


async def _purge(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    gone = await store(client, user.headers, LIMIT)
    body = {"memory_ids": [gone["memory_id"]]}
    purged = await request_ok(client, "POST", "/v1/memories/purge", user.headers, json=body)
    assert purged["purged"] == 1
    return {LIMIT}, {gone["memory_id"]}


async def _delete(client: TestClientProtocol, user: User) -> tuple[set[str], set[str]]:
    gone = await store(client, user.headers, LIMIT)
    await delete(client, user.headers, gone["memory_id"])
    return {LIMIT}, {gone["memory_id"]}


@pytest.mark.parametrize(
    "replace",
    [
        pytest.param(_correction, id="correction"),
        pytest.param(_merge_replacing, id="merge-replace"),
        pytest.param(_rollback, id="rollback"),
        pytest.param(_consolidate, id="consolidate"),
        pytest.param(_quarantine, id="quarantine"),
        pytest.param(_purge, id="purge"),
        pytest.param(_delete, id="delete"),
    ],
)
@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_a_replaced_version_is_never_returned(
    client: TestClientProtocol, user: User, replace: Replace, mode: str
) -> None:
    await store(client, user.headers, OTHER)
    replaced_contents, replaced_ids = await replace(client, user)
    found = await ranked(client, user.headers, mode, QUERY, top_k=100, min_score=0)
    assert found, "the memories that stand are found"
    assert not {memory["content"] for memory in found} & replaced_contents
    assert not {memory["memory_id"] for memory in found} & replaced_ids
    for memory in found:
        now = await request_ok(client, "GET", f"/v1/memories/{memory['memory_id']}", user.headers)
        assert now["is_active"], memory
        assert _version(memory) == _version(now)


def _version(memory: dict[str, Any]) -> dict[str, Any]:
    return {field: memory[field] for field in VERSION}
