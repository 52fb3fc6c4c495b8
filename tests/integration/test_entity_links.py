"""Entity links are versioned with their memories: rollback, fork and merge bring a memory's
MENTIONS links back, over and along exactly as they do its content, so entity counts and the
graph stage of retrieval follow the memories a branch holds."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.branches import create_branch
from tests.support.entities import CHAIN, QUESTION, entity_counts, link_entities, mentions
from tests.support.http import request_ok
from tests.support.memories import correct, ids, ranked, store, store_batch
from tests.support.memory_links import current_nodes
from tests.support.snapshots import roll_back, take_snapshot

Headers = dict[str, str]

PORT = "The payment-service runs on port 8080."
PORT_CORRECTED = "The checkout-api runs on port 8080."
AUTO = {"source": "auto", "negated": False}


def _counts_of(counts: dict[str, int], *keys: str) -> dict[str, int]:
    """The counts of some entities, 0 for those not listed."""
    return {key: counts.get(key, 0) for key in keys}


async def _reaches(
    client: TestClientProtocol, headers: Headers, memory_id: str, branch: str
) -> bool:
    """Whether the graph walk of a retrieve on the branch for QUESTION reaches the memory: it is
    in the top 5 with a path (the memory may be there without one, as a filler of top_k)."""
    body = {"query": QUESTION, "top_k": 5, "branch": branch, "explain": "verbose"}
    answer = await request_ok(client, "POST", "/v1/memories/retrieve", headers, json=body)
    return any(
        result["memory_id"] == memory_id and result.get("graph_path")
        for result in answer["explain"]["ranking"]
    )


async def test_rollback_restores_the_links_of_a_memory_a_correction_replaced(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    original = await store(client, user.headers, PORT)
    await take_snapshot(client, user.headers, "before-correction")
    corrected = await correct(client, user.headers, original["memory_id"], PORT_CORRECTED)
    counts = await entity_counts(client, user.headers)
    assert _counts_of(counts, "payment service", "checkout api") == {
        "payment service": 0,
        "checkout api": 1,
    }

    await roll_back(client, user.headers, "before-correction")
    counts = await entity_counts(client, user.headers)
    assert _counts_of(counts, "payment service", "checkout api") == {
        "payment service": 1,
        "checkout api": 0,
    }
    assert await mentions(neo4j_driver, user.user_id, original["memory_id"]) == {
        "payment service": AUTO
    }
    assert corrected["memory_id"] not in await current_nodes(neo4j_driver, user.user_id, "main")


async def test_a_manual_link_made_after_a_snapshot_is_gone_after_rolling_back_to_it(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, PORT)
    memory_id = memory["memory_id"]
    await take_snapshot(client, user.headers, "before-link")
    await link_entities(
        client,
        user.headers,
        memory_id,
        [{"name": "Olga", "type": "person"}, {"name": "payment service"}],
    )
    manual = {"source": "manual", "negated": False}
    assert await mentions(neo4j_driver, user.user_id, memory_id) == {
        "olga": manual,
        "payment service": manual,
    }
    assert (await entity_counts(client, user.headers))["olga"] == 1

    undone = await roll_back(client, user.headers, "before-link")
    assert await mentions(neo4j_driver, user.user_id, memory_id) == {"payment service": AUTO}
    counts = await entity_counts(client, user.headers)
    assert _counts_of(counts, "olga", "payment service") == {"olga": 0, "payment service": 1}

    # Rolling back to the safety snapshot the rollback took brings the manual links back.
    await roll_back(client, user.headers, undone["safety_snapshot"])
    assert await mentions(neo4j_driver, user.user_id, memory_id) == {
        "olga": manual,
        "payment service": manual,
    }
    assert (await entity_counts(client, user.headers))["olga"] == 1


async def test_a_branch_created_from_main_reads_its_entity_links(
    client: TestClientProtocol, user: User
) -> None:
    chain = ids(await store_batch(client, user.headers, [{"content": text} for text in CHAIN]))
    on_main = await entity_counts(client, user.headers)
    await create_branch(client, user.headers, "exp")
    assert await entity_counts(client, user.headers, branch="exp") == on_main
    assert await _reaches(client, user.headers, chain[3], "exp")

    # Changes on the branch move its counts and its walk, not main's.
    await request_ok(
        client,
        "DELETE",
        f"/v1/memories/{chain[1]}",
        user.headers,
        query_string={"branch": "exp"},
    )
    await store(client, user.headers, "The cart-api calls invoice-api.", branch="exp")
    on_branch = await entity_counts(client, user.headers, branch="exp")
    assert _counts_of(on_branch, "billing team", "invoice api", "cart api") == {
        "billing team": 1,
        "invoice api": 2,
        "cart api": 1,
    }
    # Entities belong to the user, but main lists only those its own memories mention.
    assert await entity_counts(client, user.headers) == on_main
    assert not await _reaches(client, user.headers, chain[3], "exp")
    assert await _reaches(client, user.headers, chain[3], "main")


async def test_a_branch_forked_from_a_snapshot_has_the_links_of_then(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    original = await store(client, user.headers, PORT)
    await take_snapshot(client, user.headers, "port")
    await correct(client, user.headers, original["memory_id"], PORT_CORRECTED)
    await create_branch(client, user.headers, "then", from_snapshot="port")

    keys = ("payment service", "checkout api")
    assert _counts_of(await entity_counts(client, user.headers, branch="then"), *keys) == {
        "payment service": 1,
        "checkout api": 0,
    }
    assert _counts_of(await entity_counts(client, user.headers), *keys) == {
        "payment service": 0,
        "checkout api": 1,
    }
    assert await mentions(neo4j_driver, user.user_id, original["memory_id"], branch="then") == {
        "payment service": AUTO
    }


async def test_a_memory_merged_from_a_branch_brings_its_entity_links(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    head = await store_batch(client, user.headers, [{"content": CHAIN[0]}, {"content": CHAIN[2]}])
    await create_branch(client, user.headers, "work")
    added = [await store(client, user.headers, text, branch="work") for text in CHAIN[1::2]]
    keys = ("billing team", "invoice api", "lodash 4.17.15", "cve 2020 8203")
    before = _counts_of(await entity_counts(client, user.headers), *keys)
    assert before == {"billing team": 1, "invoice api": 1, "lodash 4.17.15": 1, "cve 2020 8203": 0}

    merged: dict[str, Any] = await request_ok(
        client, "POST", "/v1/branches/work/merge", user.headers, json={"strategy": "append"}
    )
    assert merged["added"] == 2
    after = _counts_of(await entity_counts(client, user.headers), *keys)
    assert after == {"billing team": 2, "invoice api": 2, "lodash 4.17.15": 2, "cve 2020 8203": 1}
    owns, cve = ids(added)
    assert await mentions(neo4j_driver, user.user_id, owns) == {
        "billing team": AUTO,
        "invoice api": AUTO,
    }
    assert set(await mentions(neo4j_driver, user.user_id, cve)) >= {
        "lodash 4.17.15",
        "cve 2020 8203",
    }
    # Main's walk now runs through the merged memories: Maria's question reaches the CVE.
    assert await _reaches(client, user.headers, cve, "main")
    assert ids(head)[0] in ids(await ranked(client, user.headers, "retrieve", QUESTION, top_k=5))
