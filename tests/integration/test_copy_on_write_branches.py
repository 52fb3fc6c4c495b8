"""Copy-on-write branches behave as full copies: reads, writes on either side, forks, merges.

A branch reads main's memories as of its fork wherever it has none of its own; these tests
check, through the HTTP API, that users see exactly what a full copy would show, and a few
storage facts that show the branch really copies only what changed.
"""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.branches import check_out, create_branch, merge
from tests.support.http import error_detail, request_ok
from tests.support.memories import (
    correct,
    delete,
    fulltext,
    ids,
    list_all,
    page_items,
    ranked,
    store,
    store_batch,
    without_confidence,
)
from tests.support.neo4j_direct import query
from tests.support.snapshots import roll_back, take_snapshot

Headers = dict[str, str]

FACTS = [
    "Nora works as a marine biologist in Lisbon",
    "Nora studies octopus behaviour at the aquarium",
    "Nora's sister Ines teaches piano in Porto",
    "Nora drinks green tea every morning",
    "Nora is allergic to peanuts",
    "Nora runs along the river on Sundays",
    "Nora drives an old blue Fiat",
    "Nora's cat is called Pimenta",
    "Nora speaks Portuguese, English and some Japanese",
    "Nora prefers window seats on long flights",
    "Nora visited Kyoto in the spring of 2022",
    "Nora plays the cello in an amateur orchestra",
    "Nora's favourite dish is grilled sardines",
    "Nora keeps a vegetable garden on her balcony",
    "Nora reads science fiction before sleeping",
    "Nora's birthday is on the ninth of March",
    "Nora uses a standing desk at the lab",
    "Nora dislikes loud restaurants",
    "Nora dives near the Berlengas islands every summer",
    "Nora's manager at the lab is Doctor Alves",
    "Nora takes the tram to work",
    "Nora volunteers at a beach cleanup once a month",
    "Nora is learning to bake sourdough bread",
    "Nora's laptop is a ten-year-old ThinkPad",
    "Nora supports Benfica but rarely watches football",
    "Nora wrote her thesis on coral reef bleaching",
    "Nora plans to adopt a second cat next year",
    "Nora's brother Tiago lives in Toronto",
    "Nora meditates for ten minutes after lunch",
    "Nora collects old maps of the Atlantic coast",
]
RETRIEVE_QUERIES = [
    "What does Nora do for work?",
    "pets and animals",
    "travel to Japan",
    "which musical instrument does she play",
    "food she likes to eat",
    "family members and where they live",
]
FULLTEXT_QUERIES = ["Nora cat", "lab", "sister brother", "coral reef diving", "Nora"]


async def _store_facts(
    client: TestClientProtocol, headers: Headers, facts: list[str]
) -> dict[str, str]:
    """Stores the facts on main in one batch; returns content -> memory_id."""
    stored = await store_batch(client, headers, [{"content": fact} for fact in facts])
    return {item["content"]: item["memory_id"] for item in stored}


async def _retrieve(
    client: TestClientProtocol, headers: Headers, text: str, branch: str, top_k: int = 100
) -> list[dict[str, Any]]:
    return await ranked(client, headers, "retrieve", text, branch=branch, min_score=0, top_k=top_k)


async def _fulltext(
    client: TestClientProtocol, headers: Headers, text: str, branch: str
) -> list[dict[str, Any]]:
    return await fulltext(client, headers, text, branch=branch, limit=100)


async def _listed(client: TestClientProtocol, headers: Headers, branch: str) -> dict[str, str]:
    """The branch's memories as memory_id -> content."""
    return {
        item["memory_id"]: item["content"] for item in await page_items(client, headers, branch)
    }


async def _counts(client: TestClientProtocol, headers: Headers) -> dict[str, int]:
    body = await request_ok(client, "GET", "/v1/branches", headers)
    return {item["name"]: item["memory_count"] for item in body["branches"]}


async def _own_nodes(driver: AsyncDriver, user_id: str, branch: str) -> list[dict[str, Any]]:
    """Every memory node (current or past) stored for the branch itself."""
    return await query(
        driver,
        "MATCH (m {user_id: $user_id, branch: $branch}) WHERE m:Memory OR m:MemoryVersion "
        "RETURN m.memory_id AS memory_id, m:Memory AS current",
        user_id=user_id,
        branch=branch,
    )


async def _assert_reads(
    client: TestClientProtocol,
    headers: Headers,
    branch: str,
    found: list[tuple[str, str]],
    missing: list[tuple[str, str]],
) -> None:
    """On the branch, retrieve ranks each `found` memory first for its text and full-text
    search finds it; neither returns a `missing` memory for its text. Pairs: (text, id)."""
    for text, memory_id in found:
        assert ids(await _retrieve(client, headers, text, branch))[0] == memory_id, text
        assert memory_id in ids(await _fulltext(client, headers, text, branch)), text
    for text, memory_id in missing:
        assert memory_id not in ids(await _retrieve(client, headers, text, branch)), text
        assert memory_id not in ids(await _fulltext(client, headers, text, branch)), text


def _assert_same_hits(
    main_hits: list[dict[str, Any]], side_hits: list[dict[str, Any]], text: str
) -> None:
    """The branch's hits are main's: same memories, order and scores, under its own name."""
    assert ids(side_hits) == ids(main_hits), text
    assert {item["branch"] for item in side_hits} == {"side"}, text
    assert [item["retrieval_score"] for item in side_hits] == pytest.approx(
        [item["retrieval_score"] for item in main_hits], rel=1e-6
    ), text


async def test_a_fresh_branch_of_main_stores_nothing_and_reads_exactly_like_main(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    headers = user.headers
    await _store_facts(client, headers, FACTS)
    created = await create_branch(client, headers, "side")
    assert created["memory_count"] == len(FACTS)

    assert await _own_nodes(neo4j_driver, user.user_id, "side") == []

    on_main = await page_items(client, headers, "main")
    on_side = await page_items(client, headers, "side")
    assert len(on_main) == len(FACTS)
    assert ids(on_side) == ids(on_main)
    assert {item["branch"] for item in on_side} == {"side"}
    assert [{**item, "branch": "main"} for item in without_confidence(on_side)] == (
        without_confidence(on_main)
    )
    # Paging through the branch in small pages gives the same memories in the same order.
    paged = await list_all(client, headers, branch="side", limit=7)
    assert ids(paged) == ids(on_main)
    assert {item["branch"] for item in paged} == {"side"}

    assert await _counts(client, headers) == {"main": len(FACTS), "side": len(FACTS)}

    for text in RETRIEVE_QUERIES:
        main_hits = await _retrieve(client, headers, text, "main", top_k=10)
        side_hits = await _retrieve(client, headers, text, "side", top_k=10)
        assert len(main_hits) == 10, text
        _assert_same_hits(main_hits, side_hits, text)
    for text in FULLTEXT_QUERIES:
        main_hits = await _fulltext(client, headers, text, "main")
        side_hits = await _fulltext(client, headers, text, "side")
        assert main_hits, text
        _assert_same_hits(main_hits, side_hits, text)
    # Reading stored nothing either.
    assert await _own_nodes(neo4j_driver, user.user_id, "side") == []


async def test_main_changes_after_the_fork_stay_out_of_the_branch(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    headers = user.headers
    facts = FACTS[:12]
    by_content = await _store_facts(client, headers, facts)
    await create_branch(client, headers, "side")
    forked = await _listed(client, headers, "side")

    tea = by_content["Nora drinks green tea every morning"]
    fiat = by_content["Nora drives an old blue Fiat"]
    coffee = await correct(client, headers, tea, "Nora drinks black coffee every morning")
    await delete(client, headers, fiat, "main")
    bike = await store(client, headers, "Nora bought a red electric bike")

    # Main shows its changes.
    main_now = await _listed(client, headers, "main")
    assert tea not in main_now and fiat not in main_now
    assert main_now[coffee["memory_id"]] == "Nora drinks black coffee every morning"
    assert main_now[bike["memory_id"]] == "Nora bought a red electric bike"
    # The branch still shows main as it was at the fork.
    assert await _listed(client, headers, "side") == forked
    assert await _counts(client, headers) == {"main": len(facts), "side": len(facts)}

    originals = [
        ("Nora drinks green tea every morning", tea),
        ("Nora drives an old blue Fiat", fiat),
    ]
    changes = [
        ("Nora drinks black coffee every morning", coffee["memory_id"]),
        ("Nora bought a red electric bike", bike["memory_id"]),
    ]
    await _assert_reads(client, headers, "side", found=originals, missing=changes)
    await _assert_reads(client, headers, "main", found=changes, missing=originals)

    # The branch keeps copies of only the two memories main rewrote.
    own = await _own_nodes(neo4j_driver, user.user_id, "side")
    assert sorted(row["memory_id"] for row in own) == sorted([tea, fiat])


async def test_branch_writes_to_memories_it_reads_through_main_leave_main_alone(
    client: TestClientProtocol, user: User
) -> None:
    headers = user.headers
    by_content = await _store_facts(client, headers, FACTS)
    await create_branch(client, headers, "side")
    main_before = without_confidence(await page_items(client, headers, "main"))

    gone_text = "Nora's cat is called Pimenta"
    old_text = "Nora plays the cello in an amateur orchestra"
    new_text = "Nora plays the double bass in a jazz trio"
    gone = by_content[gone_text]
    old = by_content[old_text]
    await delete(client, headers, gone, "side")
    corrected = await correct(client, headers, old, new_text, branch="side")
    assert corrected["branch"] == "side"

    # Main is unchanged.
    assert without_confidence(await page_items(client, headers, "main")) == main_before
    assert ids(await _retrieve(client, headers, gone_text, "main"))[0] == gone
    assert gone in ids(await _fulltext(client, headers, gone_text, "main"))
    assert ids(await _retrieve(client, headers, old_text, "main"))[0] == old
    assert corrected["memory_id"] not in ids(await _retrieve(client, headers, new_text, "main"))
    assert corrected["memory_id"] not in ids(await _fulltext(client, headers, new_text, "main"))

    # On the branch, the deleted memory is gone everywhere, main's node of it included.
    side = await _listed(client, headers, "side")
    assert gone not in side and old not in side
    assert side[corrected["memory_id"]] == new_text
    assert len(side) == len(FACTS) - 1
    for text in (gone_text, "Pimenta", "Nora cat"):
        assert gone not in ids(await _retrieve(client, headers, text, "side")), text
        assert gone not in ids(await _fulltext(client, headers, text, "side")), text
    for text in (old_text, "cello orchestra"):
        assert old not in ids(await _retrieve(client, headers, text, "side")), text
        assert old not in ids(await _fulltext(client, headers, text, "side")), text
    assert ids(await _retrieve(client, headers, new_text, "side"))[0] == corrected["memory_id"]
    assert ids(await _fulltext(client, headers, new_text, "side"))[0] == corrected["memory_id"]
    # Deleting it again on the branch finds nothing; main still has it.
    await error_detail(
        await client.delete(
            f"/v1/memories/{gone}", query_string={"branch": "side"}, headers=headers
        ),
        404,
    )
    assert await _counts(client, headers) == {"main": len(FACTS), "side": len(FACTS) - 1}


async def test_feedback_on_the_branch_leaves_mains_counters_alone(
    client: TestClientProtocol, user: User
) -> None:
    headers = user.headers
    by_content = await _store_facts(client, headers, FACTS[:6])
    await create_branch(client, headers, "side")
    target = by_content["Nora is allergic to peanuts"]

    await check_out(client, headers, "side")
    await request_ok(
        client, "POST", f"/v1/memories/{target}/feedback", headers, json={"signal": "useful"}
    )
    await request_ok(
        client, "POST", f"/v1/memories/{target}/feedback", headers, json={"signal": "useful"}
    )
    zero = {"useful": 0, "irrelevant": 0, "outdated": 0, "wrong": 0}
    main_items = {item["memory_id"]: item for item in await page_items(client, headers, "main")}
    assert main_items[target]["feedback"] == zero
    assert {item["memory_id"]: item["feedback"] for item in main_items.values()} == dict.fromkeys(
        by_content.values(), zero
    )
    side_items = {item["memory_id"]: item for item in await page_items(client, headers, "side")}
    assert side_items[target]["feedback"] == {**zero, "useful": 2}
    [main_hit, *_] = await _retrieve(client, headers, "Nora is allergic to peanuts", "main")
    assert main_hit["memory_id"] == target and main_hit["feedback"] == zero

    # Feedback on main afterwards stays on main.
    await check_out(client, headers, "main")
    await request_ok(
        client, "POST", f"/v1/memories/{target}/feedback", headers, json={"signal": "wrong"}
    )
    main_items = {item["memory_id"]: item for item in await page_items(client, headers, "main")}
    side_items = {item["memory_id"]: item for item in await page_items(client, headers, "side")}
    assert main_items[target]["feedback"] == {**zero, "wrong": 1}
    assert side_items[target]["feedback"] == {**zero, "useful": 2}


async def test_rolling_main_back_past_the_fork_leaves_the_branch_as_it_was(
    client: TestClientProtocol, user: User
) -> None:
    headers = user.headers
    facts = FACTS[:12]
    by_content = await _store_facts(client, headers, facts)
    await take_snapshot(client, headers, "before")
    main_at_snapshot = await _listed(client, headers, "main")
    # Main changes between the snapshot and the fork ...
    dropped = by_content["Nora visited Kyoto in the spring of 2022"]
    await delete(client, headers, dropped, "main")
    added = await store(client, headers, "Nora moved to a flat near the harbour")
    await create_branch(client, headers, "side")
    side_at_fork = without_confidence(await page_items(client, headers, "side"))
    # ... and after it.
    tea = by_content["Nora drinks green tea every morning"]
    fiat = by_content["Nora drives an old blue Fiat"]
    coffee = await correct(client, headers, tea, "Nora drinks black coffee every morning")
    await delete(client, headers, fiat, "main")
    bike = await store(client, headers, "Nora bought a red electric bike")

    await roll_back(client, headers, "before")
    assert await _listed(client, headers, "main") == main_at_snapshot

    assert without_confidence(await page_items(client, headers, "side")) == side_at_fork
    side = {item["memory_id"] for item in side_at_fork}
    assert added["memory_id"] in side and dropped not in side and tea in side and fiat in side
    assert await _counts(client, headers) == {"main": len(facts), "side": len(facts)}

    found = [
        ("Nora moved to a flat near the harbour", added["memory_id"]),
        ("Nora drinks green tea every morning", tea),
        ("Nora drives an old blue Fiat", fiat),
    ]
    missing = [
        ("Nora visited Kyoto in the spring of 2022", dropped),
        ("Nora drinks black coffee every morning", coffee["memory_id"]),
        ("Nora bought a red electric bike", bike["memory_id"]),
    ]
    await _assert_reads(client, headers, "side", found, missing)


async def test_a_fork_of_a_snapshot_of_main_sees_main_as_it_was_then(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    headers = user.headers
    facts = FACTS[:10]
    by_content = await _store_facts(client, headers, facts)
    await take_snapshot(client, headers, "then")
    main_then = await _listed(client, headers, "main")

    tea = by_content["Nora drinks green tea every morning"]
    fiat = by_content["Nora drives an old blue Fiat"]
    coffee = await correct(client, headers, tea, "Nora drinks black coffee every morning")
    await delete(client, headers, fiat, "main")
    bike = await store(client, headers, "Nora bought a red electric bike")

    created = await create_branch(client, headers, "old", from_snapshot="then")
    assert created["memory_count"] == len(facts)
    assert await _listed(client, headers, "old") == main_then
    assert {item["branch"] for item in await page_items(client, headers, "old")} == {"old"}
    assert await _counts(client, headers) == {"main": len(facts), "old": len(facts)}
    # Only the versions that ended since the snapshot were copied.
    own = await _own_nodes(neo4j_driver, user.user_id, "old")
    assert sorted(row["memory_id"] for row in own) == sorted([tea, fiat])

    # Main changes after the fork stay out too.
    cat = by_content["Nora's cat is called Pimenta"]
    await correct(client, headers, cat, "Nora's cat is called Canela")
    assert await _listed(client, headers, "old") == main_then

    found = [
        ("Nora drinks green tea every morning", tea),
        ("Nora drives an old blue Fiat", fiat),
        ("Nora's cat is called Pimenta", cat),
    ]
    missing = [
        ("Nora drinks black coffee every morning", coffee["memory_id"]),
        ("Nora bought a red electric bike", bike["memory_id"]),
    ]
    await _assert_reads(client, headers, "old", found, missing)


async def test_a_fork_of_a_snapshot_of_a_branch_sees_that_branch_as_it_was_then(
    client: TestClientProtocol, user: User
) -> None:
    headers = user.headers
    facts = FACTS[:12]
    by_content = await _store_facts(client, headers, facts)
    await create_branch(client, headers, "a")
    # Main rewrites one memory after a's fork and before the snapshot of a.
    orchestra = by_content["Nora plays the cello in an amateur orchestra"]
    await correct(client, headers, orchestra, "Nora plays the cello in a string quartet")
    # a's own changes before its snapshot.
    tea = by_content["Nora drinks green tea every morning"]
    fiat = by_content["Nora drives an old blue Fiat"]
    coffee = await correct(
        client, headers, tea, "Nora drinks black coffee every morning", branch="a"
    )
    await delete(client, headers, fiat, "a")
    harbour = await store(client, headers, "Nora moved to a flat near the harbour", branch="a")
    await take_snapshot(client, headers, "a-then", branch="a")
    a_then = await _listed(client, headers, "a")
    assert harbour["memory_id"] in a_then and coffee["memory_id"] in a_then
    assert orchestra in a_then

    # After the snapshot: a changes more, and so does main.
    cat = by_content["Nora's cat is called Pimenta"]
    await correct(client, headers, cat, "Nora's cat is called Canela", branch="a")
    await delete(client, headers, harbour["memory_id"], "a")
    garden = await store(client, headers, "Nora started a rooftop bee hive", branch="a")
    peanuts = by_content["Nora is allergic to peanuts"]
    await delete(client, headers, peanuts, "main")
    runs = by_content["Nora runs along the river on Sundays"]
    await correct(client, headers, runs, "Nora swims in the sea on Sundays")
    bike = await store(client, headers, "Nora bought a red electric bike")

    created = await create_branch(client, headers, "b", from_snapshot="a-then")
    assert created["memory_count"] == len(a_then)
    assert await _listed(client, headers, "b") == a_then
    assert {item["branch"] for item in await page_items(client, headers, "b")} == {"b"}

    # Changes on a and main after b's fork stay out of b.
    sister = by_content["Nora's sister Ines teaches piano in Porto"]
    await delete(client, headers, sister, "main")
    await delete(client, headers, coffee["memory_id"], "a")
    assert await _listed(client, headers, "b") == a_then
    counts = await _counts(client, headers)
    assert counts["b"] == len(a_then)

    found = [
        ("Nora plays the cello in an amateur orchestra", orchestra),
        ("Nora drinks black coffee every morning", coffee["memory_id"]),
        ("Nora moved to a flat near the harbour", harbour["memory_id"]),
        ("Nora's cat is called Pimenta", cat),
        ("Nora is allergic to peanuts", peanuts),
        ("Nora runs along the river on Sundays", runs),
        ("Nora's sister Ines teaches piano in Porto", sister),
    ]
    missing = [
        ("Nora drinks green tea every morning", tea),
        ("Nora drives an old blue Fiat", fiat),
        ("Nora started a rooftop bee hive", garden["memory_id"]),
        ("Nora bought a red electric bike", bike["memory_id"]),
    ]
    await _assert_reads(client, headers, "b", found, missing)


async def test_merging_a_branch_applies_its_corrections_and_deletions_once(
    client: TestClientProtocol, user: User
) -> None:
    headers = user.headers
    facts = FACTS[:8]
    by_content = await _store_facts(client, headers, facts)
    await create_branch(client, headers, "side")

    tea = by_content["Nora drinks green tea every morning"]
    fiat = by_content["Nora drives an old blue Fiat"]
    coffee = await correct(
        client, headers, tea, "Nora drinks black coffee every morning", branch="side"
    )
    await delete(client, headers, fiat, "side")
    # Main changes other memories meanwhile; the merge must keep them.
    peanuts = by_content["Nora is allergic to peanuts"]
    cashews = await correct(client, headers, peanuts, "Nora is allergic to cashews")
    bike = await store(client, headers, "Nora bought a red electric bike")

    diff = await request_ok(client, "GET", "/v1/branches/side/diff", headers)
    assert [item["memory_id"] for item in diff["added"]] == [coffee["memory_id"]]
    assert sorted(item["memory_id"] for item in diff["removed"]) == sorted([tea, fiat])
    assert diff["modified"] == []

    merged = await merge(client, headers, "side", "replace")
    assert (merged["added"], merged["replaced"], merged["removed"]) == (1, 0, 2)
    expected = {
        memory_id: content
        for content, memory_id in by_content.items()
        if memory_id not in (tea, fiat, peanuts)
    }
    expected[coffee["memory_id"]] = "Nora drinks black coffee every morning"
    expected[cashews["memory_id"]] = "Nora is allergic to cashews"
    expected[bike["memory_id"]] = "Nora bought a red electric bike"
    main_after = await page_items(client, headers, "main")
    assert {item["memory_id"]: item["content"] for item in main_after} == expected

    for text, memory_id in [
        ("Nora drinks green tea every morning", tea),
        ("Nora drives an old blue Fiat", fiat),
    ]:
        assert memory_id not in ids(await _retrieve(client, headers, text, "main")), text
        assert memory_id not in ids(await _fulltext(client, headers, text, "main")), text
    coffee_text = "Nora drinks black coffee every morning"
    assert ids(await _retrieve(client, headers, coffee_text, "main"))[0] == coffee["memory_id"]

    again = await merge(client, headers, "side", "replace")
    assert (again["added"], again["replaced"], again["removed"]) == (0, 0, 0)
    assert without_confidence(await page_items(client, headers, "main")) == without_confidence(
        main_after
    )
