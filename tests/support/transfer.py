"""HTTP helpers for export and import (JSON Lines): a user with history, what a user sees of
their state (and the source's as an import on this instance shows it), what their graph holds."""

from __future__ import annotations

import json
from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.services.transfer.plan import derived_id
from tests.conftest import User
from tests.support.branches import create_branch
from tests.support.entities import all_entities
from tests.support.feedback import give_feedback
from tests.support.http import request_ok
from tests.support.memories import correct, page_items, ranked, store, without_confidence
from tests.support.neo4j_direct import query
from tests.support.snapshots import list_snapshots, take_snapshot

Headers = dict[str, str]
NDJSON = "application/x-ndjson"


async def export_lines(client: TestClientProtocol, headers: Headers) -> list[dict[str, Any]]:
    """GET /v1/export (asserts 200 and JSON Lines) as its records, in order."""
    response = await client.get("/v1/export", headers=headers)
    text = await response.get_data(as_text=True)
    assert response.status_code == 200, text
    assert response.mimetype == NDJSON
    return [json.loads(line) for line in text.splitlines()]


def as_body(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


async def import_body(client: TestClientProtocol, headers: Headers, body: bytes) -> Any:
    """POST /v1/import with a JSON Lines body; the response, whatever its status."""
    return await client.post("/v1/import", data=body, headers={**headers, "Content-Type": NDJSON})


async def import_ok(
    client: TestClientProtocol, headers: Headers, lines: list[dict[str, Any]]
) -> dict[str, Any]:
    """Imports records (asserts 200) and returns the report."""
    response = await import_body(client, headers, as_body(lines))
    assert response.status_code == 200, await response.get_data(as_text=True)
    report: dict[str, Any] = await response.get_json()
    return report


def of_kind(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["kind"] == kind]


async def graph_size(driver: AsyncDriver, user_id: str) -> dict[str, int]:
    """How many nodes of each label the user has, and how many relationships touch them."""
    rows = await query(
        driver,
        "MATCH (n {user_id: $user_id}) "
        "RETURN labels(n)[0] AS label, count(n) AS nodes, "
        "sum(COUNT { (n)--() }) AS links",
        user_id=user_id,
    )
    sizes = {row["label"]: row["nodes"] for row in rows}
    sizes["links"] = sum(row["links"] for row in rows)
    return sizes


async def user_with_history(client: TestClientProtocol, user: User) -> dict[str, Any]:
    """Gives a user everything an export carries: memories in a session and with metadata,
    feedback, a snapshot, a correction and a deletion after it (history), a manual feedback
    weight, and a branch with a memory of its own."""
    headers = user.headers
    tea = await store(client, headers, "Alice prefers green tea in the morning", session_id="s-1")
    await store(
        client,
        headers,
        "The billing team owns invoice-api",
        extra_metadata={"source": "wiki", "rank": 2},
    )
    office = await store(client, headers, "The office is in Berlin near the river")
    deploys = await store(client, headers, "Deploys happen on Fridays", session_id="s-1")
    await give_feedback(client, headers, tea["memory_id"], "useful", times=2)
    await give_feedback(client, headers, office["memory_id"], "irrelevant")
    await take_snapshot(client, headers, "before-changes", description="the first state")
    await correct(client, headers, office["memory_id"], "The office moved to Munich")
    response = await client.delete(f"/v1/memories/{deploys['memory_id']}", headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    await request_ok(
        client, "POST", "/v1/retrieval-params/tune", headers, json={"feedback_weight": 0.3}
    )
    await create_branch(client, headers, "experiment")
    await store(client, headers, "Try oolong tea on the experiment branch", branch="experiment")
    return {"tea": tea, "office": office, "deploys": deploys}


def as_imported(item: dict[str, Any], target: User) -> dict[str, Any]:
    """An item of the source user as the target shows it after an import on this instance:
    its ids replaced (another user holds them here), everything else the same."""
    mapped = without_confidence([item])[0]
    for key in ("memory_id", "id", "superseded_by"):
        if mapped.get(key):
            mapped[key] = derived_id(target.user_id, mapped[key])
    if "user_id" in mapped:
        mapped["user_id"] = target.user_id
    return mapped


async def visible_state(client: TestClientProtocol, user: User) -> dict[str, Any]:
    """What a user sees of their state: listings per branch, snapshots, branches,
    retrieval parameters, feedback statistics and entities."""
    headers = user.headers
    snapshots = await list_snapshots(client, headers)
    return {
        "main": await page_items(client, headers),
        "experiment": await page_items(client, headers, branch="experiment"),
        "snapshots": [{k: v for k, v in item.items() if k != "user_id"} for item in snapshots],
        "branches": await request_ok(client, "GET", "/v1/branches", headers),
        "params": await request_ok(client, "GET", "/v1/retrieval-params", headers),
        "stats": await request_ok(client, "GET", "/v1/feedback/stats", headers),
        "entities": await all_entities(client, headers),
    }


def mapped_state(state: dict[str, Any], target: User) -> dict[str, Any]:
    """A visible_state of the source user as the target shows it after the import."""
    mapped = dict(state)
    for branch in ("main", "experiment"):
        mapped[branch] = [as_imported(item, target) for item in state[branch]]
    return mapped


def unconfident(state: dict[str, Any]) -> dict[str, Any]:
    """A visible_state without confidences, which decay between two reads."""
    return {
        **state,
        "main": without_confidence(state["main"]),
        "experiment": without_confidence(state["experiment"]),
    }


async def ranked_ids(client: TestClientProtocol, user: User, query_text: str) -> list[str]:
    """The ids POST /v1/memories/retrieve answers for a query, best first."""
    return [
        item["memory_id"] for item in await ranked(client, user.headers, "retrieve", query_text)
    ]
