"""/v1/entities and /v1/extract-entities: the entities every write links, the list with its
counts, paging and filters, manual links, the extraction candidates, and LLM extraction (with a
fake OpenAI-compatible server on loopback); one user never sees or links another's."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from neo4j import AsyncDriver
from quart import Quart
from quart.typing import TestClientProtocol

from tests.conftest import User, create_user
from tests.support.entities import (
    CHAIN,
    all_entities,
    candidates,
    entity_counts,
    entity_page,
    link_entities,
    llm_mentions,
    mentions,
    relations,
)
from tests.support.fake_llm import FakeLlm
from tests.support.http import error_detail, post_created, request_ok
from tests.support.memories import correct, delete, store, store_batch, stored_ids
from tests.support.neo4j_direct import query

Headers = dict[str, str]

UNKNOWN_ID = "01ffffffffffffffffffffffffffffff"


def _by_key(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["key"]: item for item in items}


# --- the list ------------------------------------------------------------------------------------


async def test_list_counts_the_active_memories_that_mention_each_entity(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    listed = await all_entities(client, user.headers)
    keys = [item["key"] for item in listed]
    assert keys == sorted(keys)
    assert len(keys) == len(set(keys))
    entities = _by_key(listed)
    expected = {
        "maria": 1,
        "billing team": 2,
        "invoice api": 2,
        "lodash 4.17.15": 2,
        "cve 2020 8203": 1,
    }
    assert {key: entities[key]["memory_count"] for key in expected} == expected
    assert (entities["billing team"]["name"], entities["billing team"]["type"]) == (
        "billing team",
        "team",
    )
    assert (entities["invoice api"]["name"], entities["invoice api"]["type"]) == (
        "invoice-api",
        "service",
    )
    assert (entities["cve 2020 8203"]["name"], entities["cve 2020 8203"]["type"]) == (
        "CVE-2020-8203",
        "identifier",
    )
    assert entities["lodash 4.17.15"]["type"] == "version"
    assert entities["invoice api"]["aliases"] == ["invoice-api"]

    # A deleted memory no longer counts.
    await delete(client, user.headers, chain[1])
    counts = await entity_counts(client, user.headers)
    assert (counts["billing team"], counts["invoice api"]) == (1, 1)
    assert (counts["maria"], counts["lodash 4.17.15"]) == (1, 2)


async def test_every_write_path_links_the_entities_its_memories_mention(
    client: TestClientProtocol, user: User
) -> None:
    alpha = await store(client, user.headers, "The alpha-api is slow.")
    await store_batch(client, user.headers, [{"content": "The beta-api is fast."}])
    await correct(client, user.headers, alpha["memory_id"], "The gamma-api is slow.")
    observed = await post_created(
        client,
        "/v1/observe",
        user.headers,
        {"messages": [{"role": "user", "content": "I restarted the delta-api today."}]},
    )
    assert len(observed["memories"]) == 1  # no LLM: the message is stored as it is
    counts = await entity_counts(client, user.headers)
    # The corrected memory is inactive: nothing active mentions its entity, which is not listed.
    expected = {"alpha api": None, "beta api": 1, "gamma api": 1, "delta api": 1}
    assert {key: counts.get(key) for key in expected} == expected


async def test_paging_follows_the_cursor_in_key_order(
    client: TestClientProtocol, user: User
) -> None:
    await store(
        client,
        user.headers,
        "The cart-api, pay-api, ship-api, mail-api and auth-api are deployed together.",
    )
    everything = [item["key"] for item in (await entity_page(client, user.headers))["items"]]
    assert everything == ["auth api", "cart api", "mail api", "pay api", "ship api"]

    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = await entity_page(client, user.headers, **params)
        pages.append([item["key"] for item in page["items"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert isinstance(cursor, str) and cursor
    assert pages == [["auth api", "cart api"], ["mail api", "pay api"], ["ship api"]]
    # A page that holds exactly what is left says so.
    assert (await entity_page(client, user.headers, limit=5))["next_cursor"] is None


async def test_type_and_prefix_filter_the_list(client: TestClientProtocol, user: User) -> None:
    await stored_ids(client, user.headers, CHAIN)

    async def keys(**params: Any) -> list[str]:
        return [item["key"] for item in await all_entities(client, user.headers, **params)]

    assert await keys(type="team") == ["billing team"]
    versions = await all_entities(client, user.headers, type="version")
    assert "lodash 4.17.15" in [item["key"] for item in versions]
    assert {item["type"] for item in versions} == {"version"}
    lodash = await keys(prefix="lod")
    assert "lodash 4.17.15" in lodash
    assert all(key.startswith("lod") for key in lodash)
    # The prefix is normalised like a name.
    assert await keys(prefix="INVOICE-") == ["invoice api"]
    assert await keys(prefix="lod", type="version") == ["lodash 4.17.15"]
    assert await keys(prefix="zzz") == []


async def test_spellings_of_one_name_meet_in_one_entity(
    client: TestClientProtocol, user: User
) -> None:
    for text in (
        "The payment-service times out under load.",
        "Payment Service was restarted by Maria.",
        "Restarted payment_service at noon.",
    ):
        await store(client, user.headers, text)
    retired = await store(client, user.headers, "We retired the payment service last week.")
    linked = await link_entities(
        client, user.headers, retired["memory_id"], [{"name": "payment service"}]
    )
    assert [entity["key"] for entity in linked["entities"]] == ["payment service"]

    [entity] = await all_entities(client, user.headers, prefix="payment")
    assert entity["key"] == "payment service"
    assert entity["name"] == "payment-service"  # as first seen
    assert entity["type"] == "service"
    assert entity["aliases"] == [
        "payment-service",
        "Payment Service",
        "payment_service",
        "payment service",
    ]
    assert entity["memory_count"] == 4


async def test_a_batch_keeps_every_spelling_of_a_name(
    client: TestClientProtocol, user: User
) -> None:
    await stored_ids(
        client,
        user.headers,
        [
            "The payment-service times out under load.",
            "Payment Service was restarted by Maria.",
            "Restarted payment_service at noon.",
        ],
    )
    [entity] = await all_entities(client, user.headers, prefix="payment")
    assert entity["memory_count"] == 3
    assert sorted(entity["aliases"]) == sorted(
        ["payment-service", "Payment Service", "payment_service"]
    )


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"limit": 0}, 422),
        ({"limit": 501}, 422),
        ({"type": "gadget"}, 422),
        ({"limit": "many"}, 400),
        ({"cursor": "not-a-cursor!"}, 400),
    ],
    ids=["limit-0", "limit-too-big", "unknown-type", "limit-text", "foreign-cursor"],
)
async def test_invalid_list_queries_are_rejected(
    client: TestClientProtocol, user: User, params: dict[str, Any], status: int
) -> None:
    response = await client.get("/v1/entities", query_string=params, headers=user.headers)
    await error_detail(response, status)


async def test_list_of_an_unknown_branch_is_404(client: TestClientProtocol, user: User) -> None:
    response = await client.get(
        "/v1/entities", query_string={"branch": "nowhere"}, headers=user.headers
    )
    await error_detail(response, 404)


# --- manual links --------------------------------------------------------------------------------


async def test_manual_link_adds_entities_to_a_memory(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    memory = await store(client, user.headers, "The nightly export failed again.")
    assert await entity_counts(client, user.headers) == {}
    linked = await link_entities(
        client,
        user.headers,
        memory["memory_id"],
        [{"name": "  Nightly Export ", "type": "service"}, {"name": "Olga", "type": "person"}],
    )
    assert linked == {
        "memory_id": memory["memory_id"],
        "entities": [
            {"key": "nightly export", "name": "Nightly Export", "type": "service"},
            {"key": "olga", "name": "Olga", "type": "person"},
        ],
        "entities_created": 2,
        "entities_reused": 0,
        "edges_created": 2,
    }
    entities = _by_key(await all_entities(client, user.headers))
    assert set(entities) == {"nightly export", "olga"}
    assert entities["olga"] == {
        "key": "olga",
        "name": "Olga",
        "type": "person",
        "aliases": ["Olga"],
        "memory_count": 1,
    }
    assert entities["nightly export"]["memory_count"] == 1
    links = await mentions(neo4j_driver, user.user_id, memory["memory_id"])
    assert {key: link["source"] for key, link in links.items()} == {
        "nightly export": "manual",
        "olga": "manual",
    }

    # Linking again changes nothing, and the answer shows the entity as it is stored.
    again = await link_entities(client, user.headers, memory["memory_id"], [{"name": "olga"}])
    assert again["entities"] == [{"key": "olga", "name": "Olga", "type": "person"}]
    assert (again["entities_created"], again["entities_reused"], again["edges_created"]) == (
        0,
        1,
        0,
    )
    assert (await entity_counts(client, user.headers))["olga"] == 1


async def test_manual_link_to_an_unknown_or_deleted_memory_is_404(
    client: TestClientProtocol, user: User
) -> None:
    for memory_id in (UNKNOWN_ID, "not-a-memory-id"):
        response = await client.post(
            "/v1/extract-entities/link",
            json={"memory_id": memory_id, "entities": [{"name": "Olga"}]},
            headers=user.headers,
        )
        await error_detail(response, 404)
    memory = await store(client, user.headers, "The nightly export failed again.")
    await delete(client, user.headers, memory["memory_id"])
    response = await client.post(
        "/v1/extract-entities/link",
        json={"memory_id": memory["memory_id"], "entities": [{"name": "Olga"}]},
        headers=user.headers,
    )
    await error_detail(response, 404)
    assert "olga" not in await entity_counts(client, user.headers)


@pytest.mark.parametrize(
    "body",
    [
        {"entities": []},
        {},
        {"entities": [{"name": ""}]},
        {"entities": [{"name": "---"}]},
        {"entities": [{"type": "person"}]},
        {"entities": [{"name": "Olga", "type": "wizard"}]},
        {"entities": [{"name": "Olga", "colour": "red"}]},
        {"entities": [{"name": f"n{index}"} for index in range(51)]},
        {"entities": [{"name": "x" * 201}]},
        {"entities": "Olga"},
        {"entities": [{"name": "Olga"}], "memory_id": ""},
    ],
    ids=[
        "empty-entities",
        "no-entities",
        "empty-name",
        "name-without-word",
        "no-name",
        "unknown-type",
        "unknown-field",
        "too-many",
        "name-too-long",
        "entities-string",
        "empty-memory-id",
    ],
)
async def test_invalid_manual_links_are_422(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    memory = await store(client, user.headers, "The nightly export failed again.")
    response = await client.post(
        "/v1/extract-entities/link",
        json={"memory_id": memory["memory_id"], **body},
        headers=user.headers,
    )
    await error_detail(response, 422)
    assert await entity_counts(client, user.headers) == {}


async def test_memorias_link_form_links_several_memories_in_one_change_or_none(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    export, backup = await stored_ids(
        client, user.headers, ["The nightly export failed again.", "The backup job is slow."]
    )
    linked = await request_ok(
        client,
        "POST",
        "/v1/extract-entities/link",
        user.headers,
        json={
            "entities": [
                {
                    "memory_id": export,
                    "entities": [
                        {"name": "Olga", "type": "person"},
                        {"name": "Airflow", "type": "tech"},
                    ],
                },
                {
                    "memory_id": backup,
                    "entities": [{"name": "olga"}, {"name": "Restic", "type": "repo"}],
                },
            ],
            "branch": None,
        },
    )
    assert (linked["entities_created"], linked["entities_reused"], linked["edges_created"]) == (
        3,
        0,
        4,
    )
    by_memory = {
        link["memory_id"]: {(e["key"], e["type"]) for e in link["entities"]}
        for link in linked["links"]
    }
    # Memoria's types in ours (tech: package, repo: identifier); no type: concept, as Memoria
    # has it, but an entity that exists keeps its own.
    assert by_memory == {
        export: {("olga", "person"), ("airflow", "package")},
        backup: {("olga", "person"), ("restic", "identifier")},
    }
    assert {
        key: link["source"]
        for key, link in (await mentions(neo4j_driver, user.user_id, backup)).items()
    } == {"olga": "manual", "restic": "manual"}

    # One unknown memory: 404, and nothing of the request is linked.
    response = await client.post(
        "/v1/extract-entities/link",
        json={
            "entities": [
                {"memory_id": export, "entities": [{"name": "Zed"}]},
                {"memory_id": UNKNOWN_ID, "entities": [{"name": "Zed"}]},
            ]
        },
        headers=user.headers,
    )
    await error_detail(response, 404)
    assert "zed" not in await entity_counts(client, user.headers)
    for body in (
        {"entities": []},
        {"entities": [{"memory_id": export}]},
        {"entities": [{"memory_id": export, "entities": [{"type": "tech"}]}]},
        {"entities": [{"memory_id": export, "entities": []}], "extra": 1},
    ):
        response = await client.post("/v1/extract-entities/link", json=body, headers=user.headers)
        await error_detail(response, 422)


# --- candidates and extraction without an LLM ---------------------------------------------------


async def test_candidates_are_active_memories_with_proposed_entities_oldest_first(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    await delete(client, user.headers, chain[0])
    items = await candidates(client, user.headers)
    assert [item["memory_id"] for item in items] == chain[1:]
    assert [item["content"] for item in items] == CHAIN[1:]
    proposed = {entity["key"]: (entity["name"], entity["type"]) for entity in items[0]["entities"]}
    assert proposed["billing team"] == ("billing team", "team")
    assert proposed["invoice api"] == ("invoice-api", "service")
    assert "cve 2020 8203" in {entity["key"] for entity in items[2]["entities"]}

    limited = await candidates(client, user.headers, limit=2)
    assert [item["memory_id"] for item in limited] == chain[1:3]
    # The body is optional.
    response = await client.post("/v1/extract-entities/candidates", headers=user.headers)
    assert response.status_code == 200
    assert (await response.get_json())["items"] == items


@pytest.mark.parametrize(
    "body",
    [{"limit": 0}, {"limit": 101}, {"limit": "5"}, {"limit": 5, "extra": True}],
    ids=["limit-0", "limit-too-big", "limit-text", "unknown-field"],
)
async def test_invalid_candidate_requests_are_422(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    response = await client.post("/v1/extract-entities/candidates", json=body, headers=user.headers)
    await error_detail(response, 422)


async def test_extraction_without_an_llm_is_503_and_candidates_mode_still_answers(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    # No body (it is optional), an empty one, and LLM mode named.
    bodies: list[dict[str, Any]] = [
        {},
        {"json": {}},
        {"json": {"mode": "llm", "limit": 2}},
        {"json": {"mode": "internal"}},  # Memoria's name for it
    ]
    for body in bodies:
        response = await client.post("/v1/extract-entities", headers=user.headers, **body)
        detail = await error_detail(response, 503)
        assert "candidates" in detail
    # Nothing was processed: every memory is still a candidate.
    expected = await candidates(client, user.headers, limit=3)
    assert [item["memory_id"] for item in expected] == chain[:3]
    answer = await request_ok(
        client,
        "POST",
        "/v1/extract-entities",
        user.headers,
        json={"mode": "candidates", "limit": 3},
    )
    assert answer["items"] == expected
    auto = await request_ok(
        client, "POST", "/v1/extract-entities", user.headers, json={"mode": "auto", "limit": 3}
    )
    assert auto == answer  # `auto` with no LLM configured: the candidates
    # Memoria's view of the same candidates, as its clients read it.
    assert (answer["status"], answer["unlinked"]) == ("candidates", 3)
    assert answer["memories"] == [
        {"memory_id": item["memory_id"], "content": item["content"]} for item in expected
    ]
    listed = await all_entities(client, user.headers)
    assert answer["existing_entities"] == [
        {"name": entity["name"], "entity_type": entity["type"]} for entity in listed
    ]


async def test_invalid_extraction_requests_are_422(client: TestClientProtocol, user: User) -> None:
    for body in ({"mode": "magic"}, {"limit": 0}, {"mode": "llm", "extra": 1}):
        response = await client.post("/v1/extract-entities", json=body, headers=user.headers)
        await error_detail(response, 422)


# --- extraction with an LLM ---------------------------------------------------------------------


def _given(llm: FakeLlm) -> list[dict[str, str]]:
    """The memories the last LLM request handed over: [{memory_id, content}]."""
    messages = llm.requests[-1].body["messages"]
    given: list[dict[str, str]] = json.loads(messages[-1]["content"])
    return given


async def test_llm_extraction_writes_nothing_to_a_memory_deleted_while_the_llm_answered(
    llm_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    kept, gone = await stored_ids(
        client, owner.headers, ["Ledger feeds the payroll run.", "Olga owns the payroll run."]
    )
    llm.reply = {
        "memories": [
            {"memory_id": memory_id, "entities": [{"name": "Payroll", "type": "concept"}]}
            for memory_id in (kept, gone)
        ]
    }
    llm.hold()
    seen = len(llm.requests)
    try:
        pending = asyncio.ensure_future(
            request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
        )
        await llm.asked(seen)
        await delete(client, owner.headers, gone)
    finally:
        llm.release()
    answer = await pending
    assert answer["processed"] == 1
    linked = await query(
        neo4j_driver,
        "MATCH (m {user_id: $user_id})-[:MENTIONS {source: 'llm'}]->() "
        "RETURN DISTINCT m.memory_id AS memory_id",
        user_id=owner.user_id,
    )
    assert [row["memory_id"] for row in linked] == [kept]


async def test_llm_extraction_links_entities_and_relations_of_the_memories_it_was_given(
    llm_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    ledger, payroll, cheese = await stored_ids(
        client,
        owner.headers,
        [
            "Our ledger feeds the payroll run every Friday.",
            "Payroll is owned by Olga.",
            "Zed likes cheese.",
        ],
    )
    llm.reply = {
        "memories": [
            {
                "memory_id": ledger,
                "entities": [
                    {"name": "Ledger", "type": "service"},
                    {"name": "payroll run", "type": "concept"},
                ],
                "relations": [
                    {"source": "Ledger", "target": "payroll run", "type": "feeds"},
                    # An end that is not one of this memory's entities is dropped.
                    {"source": "Ledger", "target": "Mars", "type": "orbits"},
                ],
            },
            {
                "memory_id": payroll,
                "entities": [{"name": "Payroll", "type": "concept"}, {"name": "Olga"}],
                "relations": [{"source": "Olga", "target": "Payroll", "type": "owns"}],
            },
            # A memory id the LLM invents is ignored.
            {
                "memory_id": UNKNOWN_ID,
                "entities": [{"name": "Phantom", "type": "person"}],
                "relations": [],
            },
        ]
    }
    answer = await request_ok(
        client, "POST", "/v1/extract-entities", owner.headers, json={"limit": 2}
    )
    # Left out: the invented memory's item and the relation to Mars.
    assert answer == {"processed": 2, "entities_linked": 4, "relations": 2, "dropped": 2}
    assert len(llm.requests) == 1
    assert _given(llm) == [
        {"memory_id": ledger, "content": "Our ledger feeds the payroll run every Friday."},
        {"memory_id": payroll, "content": "Payroll is owned by Olga."},
    ]

    entities = _by_key(await all_entities(client, owner.headers))
    assert "phantom" not in entities
    assert (entities["ledger"]["type"], entities["ledger"]["memory_count"]) == ("service", 1)
    assert entities["payroll run"]["memory_count"] == 1
    llm_links = {
        memory_id: await llm_mentions(neo4j_driver, owner.user_id, memory_id)
        for memory_id in (ledger, payroll, cheese)
    }
    assert llm_links == {
        ledger: {"ledger", "payroll run"},
        payroll: {"payroll", "olga"},
        cheese: set(),
    }
    assert await relations(neo4j_driver, owner.user_id) == {
        ("ledger", "feeds", "payroll run", ledger),
        ("olga", "owns", "payroll", payroll),
    }

    # Processed memories are no longer candidates; the next call takes the rest, then nothing
    # is left and the LLM is not asked again.
    assert [item["memory_id"] for item in await candidates(client, owner.headers)] == [cheese]
    llm.reply = {"memories": [{"memory_id": cheese, "entities": [], "relations": []}]}
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers)
    assert answer == {"processed": 1, "entities_linked": 0, "relations": 0, "dropped": 0}
    assert [item["memory_id"] for item in _given(llm)] == [cheese]
    assert await candidates(client, owner.headers) == []
    asked = len(llm.requests)
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
    assert answer == {"processed": 0, "entities_linked": 0, "relations": 0, "dropped": 0}
    assert len(llm.requests) == asked


async def test_memories_a_clean_answer_leaves_out_are_processed_those_an_unclean_one_does_wait(
    llm_app: Quart, llm: FakeLlm
) -> None:
    """An item without its memory id is dropped: the memories the answer does not name may
    have been its own, so they wait for next time; a clean answer that names one memory of
    two had nothing to say about the other."""
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    ledger, olga, cheese = await stored_ids(
        client, owner.headers, ["Ledger feeds payroll.", "Olga owns payroll.", "Zed likes cheese."]
    )
    llm.reply = {
        "memories": [
            {"memory_id": ledger, "entities": [{"name": "Ledger", "type": "service"}]},
            {"entities": [{"name": "Olga", "type": "person"}]},
        ]
    }
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
    assert (answer["processed"], answer["dropped"]) == (1, 1)
    assert [item["memory_id"] for item in await candidates(client, owner.headers)] == [olga, cheese]

    llm.reply = {
        "memories": [{"memory_id": olga, "entities": [{"name": "Olga", "type": "person"}]}]
    }
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
    assert (answer["processed"], answer["dropped"]) == (2, 0)
    assert await candidates(client, owner.headers) == []


def _nameless(memory_id: str) -> dict[str, Any]:
    """An answer about a memory whose every entity lacks its name (its relation then has no
    ends either)."""
    return {
        "memory_id": memory_id,
        "entities": [{"type": "person"}, {"type": "service"}],
        "relations": [{"source": "Olga", "target": "payroll", "type": "owns"}],
    }


async def test_a_memory_whose_every_entity_lacks_its_name_stays_unprocessed(
    llm_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    """Such an item says nothing usable about its memory: it is dropped, and the memory waits
    for next time with nothing linked. When every item is so, the request is 503 and nothing
    is processed or linked; an item with some usable entities links those."""
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    ledger, olga = await stored_ids(
        client, owner.headers, ["Ledger feeds payroll.", "Olga owns payroll."]
    )
    llm.reply = {"memories": [_nameless(ledger), _nameless(olga)]}
    response = await client.post("/v1/extract-entities", json={}, headers=owner.headers)
    detail = await error_detail(response, 503)
    assert detail == "none of the 2 items of the LLM's answer was usable"
    assert [item["memory_id"] for item in await candidates(client, owner.headers)] == [ledger, olga]
    for memory_id in (ledger, olga):
        assert await llm_mentions(neo4j_driver, owner.user_id, memory_id) == set()
    assert await relations(neo4j_driver, owner.user_id) == set()

    usable = {"memory_id": ledger, "entities": [{"name": "Ledger"}, {"type": "concept"}]}
    llm.reply = {"memories": [usable, _nameless(olga)]}
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
    # Dropped: Ledger's nameless entity, and Olga's item.
    assert answer == {"processed": 1, "entities_linked": 1, "relations": 0, "dropped": 2}
    assert [item["memory_id"] for item in await candidates(client, owner.headers)] == [olga]
    assert await llm_mentions(neo4j_driver, owner.user_id, ledger) == {"ledger"}
    assert await llm_mentions(neo4j_driver, owner.user_id, olga) == set()


async def test_an_llm_entity_type_replaces_other_but_never_a_known_type(
    llm_app: Quart, llm: FakeLlm
) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    [memory_id] = await stored_ids(
        client, owner.headers, ["Alice approved the deploy of invoice-api."]
    )
    automatic = _by_key(await all_entities(client, owner.headers))
    assert (automatic["alice"]["type"], automatic["invoice api"]["type"]) == ("other", "service")
    llm.reply = {
        "memories": [
            {
                "memory_id": memory_id,
                "entities": [
                    {"name": "Alice", "type": "person"},
                    {"name": "invoice-api", "type": "package"},
                ],
            }
        ]
    }
    await request_ok(client, "POST", "/v1/extract-entities", owner.headers, json={})
    refined = _by_key(await all_entities(client, owner.headers))
    assert (refined["alice"]["type"], refined["invoice api"]["type"]) == ("person", "service")


async def test_llm_extraction_ignores_another_users_memory_id(
    llm_app: Quart, llm: FakeLlm, neo4j_driver: AsyncDriver
) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    stranger = await create_user(client, "stranger")
    [own] = await stored_ids(client, owner.headers, ["Zed likes cheese."])
    [foreign] = await stored_ids(client, stranger.headers, ["Yara likes olives."])
    llm.reply = {
        "memories": [
            {"memory_id": own, "entities": [{"name": "Zed", "type": "person"}]},
            {"memory_id": foreign, "entities": [{"name": "Intruder", "type": "person"}]},
        ]
    }
    answer = await request_ok(client, "POST", "/v1/extract-entities", owner.headers)
    assert answer == {"processed": 1, "entities_linked": 1, "relations": 0, "dropped": 1}
    assert await mentions(neo4j_driver, stranger.user_id, foreign) == {
        "yara": {"source": "auto", "negated": False}
    }
    assert "intruder" not in await entity_counts(client, owner.headers)
    assert "intruder" not in await entity_counts(client, stranger.headers)
    # The stranger's memory is still theirs to extract.
    assert [item["memory_id"] for item in await candidates(client, stranger.headers)] == [foreign]


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("not json at all", 200),
        ("[1, 2, 3]", 200),
        ({"memories": "Zed likes cheese"}, 200),
        ({"memories": 5}, 200),
        ({"nope": 1}, 200),
        ({"memories": []}, 500),
    ],
    ids=["text", "json-array", "memories-string", "memories-number", "no-memories", "llm-error"],
)
async def test_an_unusable_llm_answer_is_503_and_processes_nothing(
    llm_app: Quart, llm: FakeLlm, reply: Any, status: int
) -> None:
    client = llm_app.test_client()
    owner = await create_user(client, "extract")
    [memory_id] = await stored_ids(client, owner.headers, ["Zed likes cheese."])
    llm.reply, llm.status = reply, status
    response = await client.post("/v1/extract-entities", headers=owner.headers)
    await error_detail(response, 503)
    assert len(llm.requests) == (3 if status >= 500 else 1)  # a 5xx is retried twice
    assert [item["memory_id"] for item in await candidates(client, owner.headers)] == [memory_id]


# --- isolation -----------------------------------------------------------------------------------


async def test_another_users_entities_never_appear(client: TestClientProtocol) -> None:
    a = await create_user(client, "ent-a")
    b = await create_user(client, "ent-b")
    await stored_ids(client, a.headers, CHAIN)
    b_ids = await stored_ids(client, b.headers, [*CHAIN, "Bea runs the secret-api."])

    a_counts = await entity_counts(client, a.headers)
    assert "secret api" not in a_counts and "bea" not in a_counts
    assert a_counts["billing team"] == 2  # the same text in B's memories counts for B only
    assert await all_entities(client, a.headers, prefix="secret") == []
    b_counts = await entity_counts(client, b.headers)
    assert (b_counts["secret api"], b_counts["billing team"]) == (1, 2)
    # Neither candidates nor extraction in candidates mode show B's memories to A.
    for items in (
        await candidates(client, a.headers, limit=100),
        (
            await request_ok(
                client,
                "POST",
                "/v1/extract-entities",
                a.headers,
                json={"mode": "candidates", "limit": 100},
            )
        )["items"],
    ):
        assert len(items) == len(CHAIN)
        assert not {item["memory_id"] for item in items} & set(b_ids)


async def test_another_users_memory_cannot_be_linked(
    client: TestClientProtocol, neo4j_driver: AsyncDriver
) -> None:
    a = await create_user(client, "ent-a")
    b = await create_user(client, "ent-b")
    foreign = await store(client, b.headers, "Bea runs the secret-api.")
    before = await all_entities(client, b.headers)
    response = await client.post(
        "/v1/extract-entities/link",
        json={"memory_id": foreign["memory_id"], "entities": [{"name": "Hijack"}]},
        headers=a.headers,
    )
    await error_detail(response, 404)
    assert await all_entities(client, b.headers) == before
    assert await all_entities(client, a.headers) == []
    assert set(await mentions(neo4j_driver, b.user_id, foreign["memory_id"])) == {
        "bea",
        "secret api",
    }
