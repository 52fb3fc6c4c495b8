"""HTTP helpers for the entity endpoints: list, manual links and extraction candidates, and the
entity links of memories read straight from Neo4j."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.support.http import request_ok
from tests.support.memory_links import current_nodes
from tests.support.neo4j_direct import query

Headers = dict[str, str]

# A chain of four memories that only the memory graph joins: who -> team -> service ->
# dependency -> vulnerability.
CHAIN = [
    "Maria leads the billing team.",
    "The billing team owns invoice-api.",
    "invoice-api pins lodash 4.17.15.",
    "lodash 4.17.15 is affected by CVE-2020-8203.",
]
QUESTION = "Does anything Maria owns depend on a library with a known hole?"
# Memories that share nothing with the chain.
UNRELATED = [
    "Tom prefers green tea in the afternoon.",
    "The office moved to the third floor in March.",
    "Standup starts at 9:30 every weekday.",
    "Our staging cluster runs on Kubernetes 1.29.",
    "Priya is on vacation until Friday.",
]
# The question names no entity, or only one the user's graph lacks: a candidate's entities seed.
UNNAMED_QUESTION = "who is in charge of billing, and what do they run?"
UNKNOWN_QUESTION = "who is in charge of billing at Acme, and what do they run?"


async def entity_page(
    client: TestClientProtocol, headers: Headers, **params: Any
) -> dict[str, Any]:
    """One page of GET /v1/entities (asserts 200): {"items", "next_cursor"}."""
    page: dict[str, Any] = await request_ok(
        client, "GET", "/v1/entities", headers, query_string=params
    )
    return page


async def all_entities(
    client: TestClientProtocol, headers: Headers, **params: Any
) -> list[dict[str, Any]]:
    """Every entity of the list, following cursors."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(1000):
        page = await entity_page(
            client, headers, **params, **({"cursor": cursor} if cursor else {})
        )
        items.extend(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return items
    raise AssertionError("the entity listing never ended")


async def entity_counts(
    client: TestClientProtocol, headers: Headers, **params: Any
) -> dict[str, int]:
    """Each listed entity's key -> memory_count (active memories that mention it)."""
    return {
        item["key"]: item["memory_count"] for item in await all_entities(client, headers, **params)
    }


async def link_entities(
    client: TestClientProtocol,
    headers: Headers,
    memory_id: str,
    entities: list[dict[str, str]],
    **fields: Any,
) -> dict[str, Any]:
    """POST /v1/extract-entities/link (asserts 200) and returns the answer."""
    body: dict[str, Any] = await request_ok(
        client,
        "POST",
        "/v1/extract-entities/link",
        headers,
        json={"memory_id": memory_id, "entities": entities, **fields},
    )
    return body


async def candidates(
    client: TestClientProtocol, headers: Headers, **fields: Any
) -> list[dict[str, Any]]:
    """The items of POST /v1/extract-entities/candidates (asserts 200)."""
    body = await request_ok(client, "POST", "/v1/extract-entities/candidates", headers, json=fields)
    items: list[dict[str, Any]] = body["items"]
    return items


async def mentions(
    driver: AsyncDriver, user_id: str, memory_id: str, branch: str = "main"
) -> dict[str, dict[str, Any]]:
    """The MENTIONS links of a memory's current node on a branch (as the branch reads it):
    entity key -> the link's properties ({"source", "negated"})."""
    node = (await current_nodes(driver, user_id, branch))[memory_id]
    return {
        link.key: dict(props)
        for link, props in node.links.items()
        if link.type == "MENTIONS" and link.label == "Entity"
    }


async def llm_mentions(driver: AsyncDriver, user_id: str, memory_id: str) -> set[str]:
    """The keys of the entities an LLM linked to a memory (MENTIONS with source `llm`)."""
    linked = await mentions(driver, user_id, memory_id)
    return {key for key, link in linked.items() if link["source"] == "llm"}


async def relations(driver: AsyncDriver, user_id: str) -> set[tuple[str, str, str, str]]:
    """The user's RELATES_TO links between entities: (source key, type, target key, memory_id)."""
    rows = await query(
        driver,
        "MATCH (a:Entity {user_id: $user_id})-[r:RELATES_TO]->(b:Entity) "
        "RETURN a.key AS source, r.type AS type, b.key AS target, r.memory_id AS memory_id",
        user_id=user_id,
    )
    return {(row["source"], row["type"], row["target"], row["memory_id"]) for row in rows}
