"""Reading a user's memory as it stood at a past moment (`as_of`: a time or a snapshot name)
through each route that takes it, each read brought to one form: the active memories of a
branch by memory_id, as the list shows them (without the confidence, which decays with the
moment it is read for). A test compares these states with what it recorded, or one route's
with another's; READS names the readers, so that a route added later joins every test that goes
through them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from datetime import datetime
from typing import Any, get_args

from quart.typing import TestClientProtocol

from app.models.memories import MemoryType
from tests.support.http import error_detail, request_ok

Headers = dict[str, str]
Memory = dict[str, Any]
State = dict[str, Memory]  # memory_id -> memory, without `confidence`
EVERY_TYPE = list(get_args(MemoryType))
PAGE = 7  # small pages, so that reads as of a moment go through their cursors
# What a reader gets: the client, the user's headers, the moment, the branch (None: the
# checked-out one) and every memory id the user's history has made (for reads by id).
Reader = Callable[[TestClientProtocol, Headers, str, str | None, Collection[str]], Awaitable[State]]


def moment(value: datetime | str) -> str:
    """An as_of value as a request carries it."""
    return value.isoformat() if isinstance(value, datetime) else value


def stable(memory: Memory) -> Memory:
    return {key: value for key, value in memory.items() if key != "confidence"}


def _kept(found: list[Memory], branch: str | None) -> State:
    state: State = {}
    for memory in found:
        assert memory["memory_id"] not in state, "a memory shown twice"
        assert branch is None or memory["branch"] == branch
        state[memory["memory_id"]] = stable(memory)
    return state


async def _pages(
    client: TestClientProtocol, headers: Headers, method: str, path: str, args: dict[str, Any]
) -> list[Memory]:
    """Every item of a paged route (its arguments in the query string of a GET, else in the
    body), following its cursors; newest first, checked."""
    found: list[Memory] = []
    cursor: str | None = None
    where = "query_string" if method == "GET" else "json"
    while True:
        sent = {where: {**args, **({"cursor": cursor} if cursor else {})}}
        response = await client.open(path, method=method, headers=headers, **sent)
        assert response.status_code == 200, await response.get_data(as_text=True)
        page = await response.get_json()
        found += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            ids = [memory["memory_id"] for memory in found]
            assert ids == sorted(ids, reverse=True), "newest first"
            return found


async def listed(
    client: TestClientProtocol,
    headers: Headers,
    as_of: str,
    branch: str | None,
    _known: Collection[str] = (),
) -> State:
    """GET /v1/memories?as_of=..., every page."""
    query = {"as_of": as_of, "limit": PAGE, **({"branch": branch} if branch else {})}
    found = await _pages(client, headers, "GET", "/v1/memories", query)
    assert all(memory["is_active"] for memory in found)
    return _kept(found, branch)


async def queried(
    client: TestClientProtocol,
    headers: Headers,
    as_of: str,
    branch: str | None,
    _known: Collection[str] = (),
) -> State:
    """POST /v1/memories/query with every type (the filter the console lists with), inactive
    memories left out, every page."""
    body = {"as_of": as_of, "memory_types": EVERY_TYPE, "limit": PAGE, "branch": branch}
    found = await _pages(client, headers, "POST", "/v1/memories/query", body)
    return _kept(found, branch)


async def got(
    client: TestClientProtocol,
    headers: Headers,
    as_of: str,
    branch: str | None,
    known: Collection[str],
) -> State:
    """GET /v1/memories/{id}?as_of=... for every memory id the history made: the active ones
    (a memory not stored yet is 404; a corrected or deleted one is shown inactive)."""
    found: list[Memory] = []
    query = {"as_of": as_of, **({"branch": branch} if branch else {})}
    for memory_id in sorted(known):
        response = await client.get(
            f"/v1/memories/{memory_id}", headers=headers, query_string=query
        )
        if response.status_code == 404:
            await error_detail(response, 404)
            continue
        assert response.status_code == 200, await response.get_data(as_text=True)
        memory = await response.get_json()
        if memory["is_active"]:
            found.append(memory)
    return _kept(found, branch)


async def retrieved(
    client: TestClientProtocol,
    headers: Headers,
    as_of: str,
    branch: str | None,
    _known: Collection[str] = (),
) -> State:
    """POST /v1/memories/retrieve as of the moment, top_k 100 with no floor: every active
    memory of a small history is a candidate (the vector half fetches 400), the graph stage
    walks among them, and each is shown as the list shows it (without a score)."""
    body = {"query": "what do I know?", "as_of": as_of, "top_k": 100, "branch": branch}
    found = await request_ok(client, "POST", "/v1/memories/retrieve", headers, json=body)
    assert len(found) < 100, "a history too long for one retrieve to show every memory"
    assert all(memory["is_active"] for memory in found)
    return _kept([{**memory, "retrieval_score": None} for memory in found], branch)


READS: dict[str, Reader] = {"list": listed, "query": queried, "get": got, "retrieve": retrieved}
