"""/v1/branches: create, list, checkout, per-branch memories, diff, merge and delete."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from tests.conftest import MASTER, PATIENT_S, User
from tests.support.branches import check_out, correct_on_both_sides, create_branch, merge
from tests.support.http import bearer, error_detail, issue_key, request_ok
from tests.support.memories import (
    correct,
    fulltext,
    ids,
    page_contents,
    page_items,
    ranked,
    store,
    store_batch,
    without_confidence,
)
from tests.support.neo4j_direct import query as cypher
from tests.support.snapshots import list_snapshots, roll_back, take_snapshot
from tests.support.waiting import wait_for

Headers = dict[str, str]


async def _listed(client: TestClientProtocol, headers: Headers) -> dict[str, Any]:
    body: dict[str, Any] = await request_ok(client, "GET", "/v1/branches", headers)
    return body


async def test_create_from_main_copies_its_memories(client: TestClientProtocol, user: User) -> None:
    await store(client, user.headers, "Rita is a pilot")
    await store(client, user.headers, "Rita flies to Rome on Fridays")
    created = await create_branch(client, user.headers, "experiment")
    assert created["name"] == "experiment"
    assert created["memory_count"] == 2
    on_branch = await page_items(client, user.headers, "experiment")
    on_main = await page_items(client, user.headers, "main")
    assert {item["content"] for item in on_branch} == {item["content"] for item in on_main}
    # The copies keep the memory ids, and belong to the branch.
    assert {item["memory_id"] for item in on_branch} == {item["memory_id"] for item in on_main}
    assert {item["branch"] for item in on_branch} == {"experiment"}


async def test_create_from_snapshot_forks_the_state_at_that_snapshot(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Sam owns a red bike")
    await take_snapshot(client, user.headers, "then")
    await store(client, user.headers, "Sam sold the red bike")
    created = await create_branch(client, user.headers, "from-then", from_snapshot="then")
    assert created["from_snapshot"] == "then"
    assert created["memory_count"] == 1
    assert await page_contents(client, user.headers, "from-then") == {"Sam owns a red bike"}
    await error_detail(
        await client.post(
            "/v1/branches", json={"name": "x", "from_snapshot": "nope"}, headers=user.headers
        ),
        404,
    )


async def test_list_marks_the_active_branch_and_includes_main(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Tom likes sushi")
    await create_branch(client, user.headers, "one")
    await create_branch(client, user.headers, "two")
    listed = await _listed(client, user.headers)
    assert listed["active_branch"] == "main"
    by_name = {item["name"]: item for item in listed["branches"]}
    assert set(by_name) == {"main", "one", "two"}
    assert by_name["main"]["active"] is True
    assert by_name["main"]["memory_count"] == 1
    assert by_name["one"]["active"] is False

    await check_out(client, user.headers, "two")
    listed = await _listed(client, user.headers)
    assert listed["active_branch"] == "two"
    assert [item["name"] for item in listed["branches"] if item["active"]] == ["two"]


async def test_checkout_is_persistent_and_memory_endpoints_follow_it(
    client: TestClientProtocol, user: User
) -> None:
    base = await store(client, user.headers, "Uma plays the violin")
    await create_branch(client, user.headers, "draft")
    await check_out(client, user.headers, "draft")

    # Later requests without `branch` work on the checked-out branch.
    local = await store(client, user.headers, "Uma switched to the viola")
    assert local["branch"] == "draft"
    assert await page_contents(client, user.headers) == {
        "Uma plays the violin",
        "Uma switched to the viola",
    }
    assert await page_contents(client, user.headers, "main") == {"Uma plays the violin"}

    corrected = await correct(
        client, user.headers, base["memory_id"], "Uma played the violin as a child"
    )
    assert corrected["branch"] == "draft"
    assert await page_contents(client, user.headers, "main") == {"Uma plays the violin"}

    deleted = await request_ok(client, "DELETE", f"/v1/memories/{local['memory_id']}", user.headers)
    assert deleted["deleted"] is True
    assert await page_contents(client, user.headers) == {"Uma played the violin as a child"}

    # A request that names a branch works there instead.
    on_main = await store(client, user.headers, "Uma lives in Vienna", branch="main")
    assert on_main["branch"] == "main"
    assert await page_contents(client, user.headers, "main") == {
        "Uma plays the violin",
        "Uma lives in Vienna",
    }

    # Snapshots follow the checked-out branch too.
    snapshot = await take_snapshot(client, user.headers, "d1")
    assert snapshot["branch"] == "draft"

    # So do batch store, search, full-text search, purge and the profile.
    batch = await request_ok(
        client,
        "POST",
        "/v1/memories/batch",
        user.headers,
        json={"memories": [{"content": "Uma's viola teacher is Ines", "memory_type": "profile"}]},
    )
    assert batch[0]["branch"] == "draft"
    found = await request_ok(
        client, "POST", "/v1/memories/search", user.headers, json={"query": "viola", "min_score": 0}
    )
    assert found and {item["branch"] for item in found} == {"draft"}
    text = await request_ok(
        client, "POST", "/v1/memories/fulltext-search", user.headers, json={"query": "viola"}
    )
    assert {item["content"] for item in text} == {"Uma's viola teacher is Ines"}
    profile = await request_ok(client, "GET", "/v1/profiles/me", user.headers)
    assert profile["profile"] == "Uma's viola teacher is Ines"
    purged = await request_ok(
        client, "POST", "/v1/memories/purge", user.headers, json={"memory_types": ["profile"]}
    )
    assert purged["purged"] == 1
    listed = {item["name"]: item for item in await list_snapshots(client, user.headers)}
    assert listed[purged["snapshot_name"]]["branch"] == "draft"
    assert await page_contents(client, user.headers) == {"Uma played the violin as a child"}

    await check_out(client, user.headers, "main")
    assert await page_contents(client, user.headers) == {
        "Uma plays the violin",
        "Uma lives in Vienna",
    }


async def test_checkout_holds_for_every_key_of_the_user(
    client: TestClientProtocol, user: User
) -> None:
    second = await issue_key(client, user.user_id, "second")
    as_master = {**MASTER, "X-User-Id": user.user_id}
    await create_branch(client, user.headers, "shared")
    await check_out(client, user.headers, "shared")
    stored = await store(client, bearer(second["raw_key"]), "Vera likes rowing")
    assert stored["branch"] == "shared"
    assert await page_contents(client, as_master) == {"Vera likes rowing"}
    assert (await _listed(client, as_master))["active_branch"] == "shared"
    assert await page_contents(client, user.headers, "main") == set()


async def test_branch_memories_are_invisible_on_main_before_a_merge(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Victor drinks green tea every morning")
    await create_branch(client, user.headers, "secret")
    local = await store(
        client,
        user.headers,
        "Victor is secretly learning the bagpipes",
        branch="secret",
        session_id="sess-v",
    )
    query = {"query": "Victor bagpipes", "min_score": 0, "top_k": 10}
    for mode in ("retrieve", "search"):
        on_branch = await request_ok(
            client, "POST", f"/v1/memories/{mode}", user.headers, json={**query, "branch": "secret"}
        )
        assert local["memory_id"] in [item["memory_id"] for item in on_branch]
        on_main = await request_ok(client, "POST", f"/v1/memories/{mode}", user.headers, json=query)
        assert local["memory_id"] not in [item["memory_id"] for item in on_main]
        assert all(item["branch"] == "main" for item in on_main)
    text = {"query": "bagpipes"}
    found = await request_ok(
        client,
        "POST",
        "/v1/memories/fulltext-search",
        user.headers,
        json={**text, "branch": "secret"},
    )
    assert [item["memory_id"] for item in found] == [local["memory_id"]]
    assert (
        await request_ok(client, "POST", "/v1/memories/fulltext-search", user.headers, json=text)
        == []
    )
    assert "Victor is secretly learning the bagpipes" not in await page_contents(
        client, user.headers
    )

    # After a merge main sees it everywhere.
    await merge(client, user.headers, "secret", "append")
    found = await request_ok(
        client, "POST", "/v1/memories/fulltext-search", user.headers, json=text
    )
    assert [item["content"] for item in found] == ["Victor is secretly learning the bagpipes"]
    on_main = await request_ok(client, "POST", "/v1/memories/search", user.headers, json=query)
    assert "Victor is secretly learning the bagpipes" in [item["content"] for item in on_main]


async def test_diff_previews_the_merge_against_main(client: TestClientProtocol, user: User) -> None:
    kept = await store(client, user.headers, "Wendy runs marathons")
    fixed = await store(client, user.headers, "Wendy's best time is 3:30")
    dropped = await store(client, user.headers, "Wendy trains on Sundays")
    await create_branch(client, user.headers, "season")
    empty = await request_ok(client, "GET", "/v1/branches/season/diff", user.headers)
    assert (empty["added"], empty["modified"], empty["removed"]) == ([], [], [])

    new = await store(client, user.headers, "Wendy joined a running club", branch="season")
    correction = await correct(
        client, user.headers, fixed["memory_id"], "Wendy's best time is 3:15", branch="season"
    )
    await request_ok(
        client,
        "DELETE",
        f"/v1/memories/{dropped['memory_id']}",
        user.headers,
        query_string={"branch": "season"},
    )
    # Main's own changes after the fork are not part of the branch's diff.
    await store(client, user.headers, "Wendy bought new shoes")

    diff = await request_ok(client, "GET", "/v1/branches/season/diff", user.headers)
    assert diff["branch"] == "season"
    assert {item["memory_id"] for item in diff["added"]} == {
        new["memory_id"],
        correction["memory_id"],
    }
    assert {item["memory_id"] for item in diff["removed"]} == {
        fixed["memory_id"],
        dropped["memory_id"],
    }
    assert diff["modified"] == []
    assert kept["memory_id"] not in str(diff)


async def _prepare_merge(client: TestClientProtocol, headers: Headers) -> dict[str, Any]:
    """Main with three memories; a branch that adds one, corrects one and deletes one."""
    kept = await store(client, headers, "Xena keeps bees")
    fixed = await store(client, headers, "Xena has 4 hives")
    dropped = await store(client, headers, "Xena sells honey at the market")
    await create_branch(client, headers, "work")
    new = await store(client, headers, "Xena bought a honey extractor", branch="work")
    correction = await correct(
        client, headers, fixed["memory_id"], "Xena has 6 hives", branch="work"
    )
    await request_ok(
        client,
        "DELETE",
        f"/v1/memories/{dropped['memory_id']}",
        headers,
        query_string={"branch": "work"},
    )
    main_only = await store(client, headers, "Xena moved to the countryside")
    return {
        "kept": kept,
        "fixed": fixed,
        "dropped": dropped,
        "new": new,
        "correction": correction,
        "main_only": main_only,
    }


async def test_merge_append_brings_only_what_main_lacks(
    client: TestClientProtocol, user: User
) -> None:
    made = await _prepare_merge(client, user.headers)
    merged = await merge(client, user.headers, "work", "append")
    assert merged["strategy"] == "append"
    assert merged["added"] == 2
    assert (merged["replaced"], merged["removed"]) == (0, 0)
    # The branch's new memories arrive; main keeps its own versions of the rest.
    assert await page_contents(client, user.headers, "main") == {
        "Xena keeps bees",
        "Xena has 4 hives",
        "Xena sells honey at the market",
        "Xena moved to the countryside",
        "Xena bought a honey extractor",
        "Xena has 6 hives",
    }
    on_main = {item["memory_id"] for item in await page_items(client, user.headers, "main")}
    assert made["new"]["memory_id"] in on_main
    # The branch is untouched by the merge.
    assert await page_contents(client, user.headers, "work") == {
        "Xena keeps bees",
        "Xena bought a honey extractor",
        "Xena has 6 hives",
    }


async def test_merge_replace_also_applies_corrections_and_deletions(
    client: TestClientProtocol, user: User
) -> None:
    made = await _prepare_merge(client, user.headers)
    before = await page_items(client, user.headers, "main")
    await take_snapshot(client, user.headers, "pre-merge")
    merged = await merge(client, user.headers, "work", "replace")
    assert merged["strategy"] == "replace"
    assert merged["added"] == 2
    assert merged["removed"] == 2
    items = await page_items(client, user.headers, "main")
    assert {item["content"] for item in items} == {
        "Xena keeps bees",
        "Xena moved to the countryside",
        "Xena bought a honey extractor",
        "Xena has 6 hives",
    }
    assert {item["branch"] for item in items} == {"main"}
    assert made["fixed"]["memory_id"] not in {item["memory_id"] for item in items}
    # After the merge the branch has nothing more to bring.
    diff = await request_ok(client, "GET", "/v1/branches/work/diff", user.headers)
    assert (diff["added"], diff["modified"], diff["removed"]) == ([], [], [])
    # A merge is a change like any other: main can be rolled back to before it.
    await roll_back(client, user.headers, "pre-merge")
    assert without_confidence(await page_items(client, user.headers, "main")) == without_confidence(
        before
    )


@pytest.mark.parametrize("strategy", ["append", "replace"])
async def test_merging_twice_changes_nothing(
    client: TestClientProtocol, user: User, strategy: str
) -> None:
    await _prepare_merge(client, user.headers)
    await merge(client, user.headers, "work", strategy)
    after_first = await page_items(client, user.headers, "main")
    await take_snapshot(client, user.headers, "merged-once")
    second = await merge(client, user.headers, "work", strategy)
    assert (second["added"], second["replaced"], second["removed"]) == (0, 0, 0)
    assert without_confidence(await page_items(client, user.headers, "main")) == without_confidence(
        after_first
    )
    diff = await request_ok(client, "GET", "/v1/snapshots/merged-once/diff", user.headers)
    assert diff["counts"] == {"added": 0, "removed": 0, "modified": 0}


async def test_merge_does_not_duplicate_what_main_stored_meanwhile(
    client: TestClientProtocol, user: User
) -> None:
    await create_branch(client, user.headers, "parallel")
    on_branch = await store(client, user.headers, "Zack adopted a puppy", branch="parallel")
    on_main = await store(client, user.headers, "Zack adopted a puppy")
    assert on_branch["memory_id"] != on_main["memory_id"]
    diff = await request_ok(client, "GET", "/v1/branches/parallel/diff", user.headers)
    assert diff["added"] == []
    merged = await merge(client, user.headers, "parallel", "append")
    assert merged["added"] == 0
    assert [item["content"] for item in await page_items(client, user.headers, "main")] == [
        "Zack adopted a puppy"
    ]


async def test_merge_rejects_an_unknown_strategy(client: TestClientProtocol, user: User) -> None:
    await create_branch(client, user.headers, "b")
    for strategy in ("squash", "", 3):
        response = await client.post(
            "/v1/branches/b/merge", json={"strategy": strategy}, headers=user.headers
        )
        await error_detail(response, 422)


async def test_merge_of_an_unknown_branch_is_404(client: TestClientProtocol, user: User) -> None:
    for method, path in (
        ("POST", "/v1/branches/ghost/merge"),
        ("POST", "/v1/branches/ghost/checkout"),
        ("GET", "/v1/branches/ghost/diff"),
        ("DELETE", "/v1/branches/ghost"),
    ):
        kwargs: dict[str, Any] = {"json": {"strategy": "append"}} if path.endswith("merge") else {}
        response = await client.open(path, method=method, headers=user.headers, **kwargs)
        await error_detail(response, 404)
    response = await client.get(
        "/v1/memories", query_string={"branch": "ghost"}, headers=user.headers
    )
    await error_detail(response, 404)


async def test_main_is_not_diffed_or_merged_into_itself(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Zara grows chillies")
    diff = await client.get("/v1/branches/main/diff", headers=user.headers)
    assert "main" in await error_detail(diff, 422)
    merge = await client.post(
        "/v1/branches/main/merge", json={"strategy": "append"}, headers=user.headers
    )
    assert "main" in await error_detail(merge, 422)
    assert await page_contents(client, user.headers) == {"Zara grows chillies"}


async def test_a_branch_in_the_query_string_works_like_one_in_the_body(
    client: TestClientProtocol, user: User
) -> None:
    await create_branch(client, user.headers, "trial")
    on_trial = {"branch": "trial"}
    stored = await request_ok(
        client,
        "POST",
        "/v1/memories",
        user.headers,
        json={"content": "Abel tunes pianos"},
        query_string=on_trial,
    )
    assert stored["branch"] == "trial"
    assert await page_contents(client, user.headers) == set()
    found = await request_ok(
        client,
        "POST",
        "/v1/memories/retrieve",
        user.headers,
        json={"query": "who tunes pianos"},
        query_string=on_trial,
    )
    assert [memory["memory_id"] for memory in found] == [stored["memory_id"]]
    # Feedback, too, goes to the branch the request names (body or query), not to main.
    path = f"/v1/memories/{stored['memory_id']}/feedback"
    await request_ok(
        client, "POST", path, user.headers, json={"signal": "useful"}, query_string=on_trial
    )
    await request_ok(client, "POST", path, user.headers, json={"signal": "useful", **on_trial})
    await error_detail(
        await client.post(path, json={"signal": "useful"}, headers=user.headers), 404
    )
    memory = await request_ok(
        client, "GET", f"/v1/memories/{stored['memory_id']}", user.headers, query_string=on_trial
    )
    assert memory["feedback"]["useful"] == 2
    # Two different branches in one request are refused, and nothing is stored.
    conflicting = await client.post(
        "/v1/memories",
        json={"content": "Abel tunes harps", "branch": "main"},
        query_string=on_trial,
        headers=user.headers,
    )
    assert "branch" in await error_detail(conflicting, 422)
    assert await page_contents(client, user.headers, branch="trial") == {"Abel tunes pianos"}


async def test_racing_deletes_of_one_branch_succeed_once(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Pia sails on lakes")
    await create_branch(client, user.headers, "raced")
    await store(client, user.headers, "Pia sails on seas", branch="raced")
    answers = await asyncio.gather(
        *(client.delete("/v1/branches/raced", headers=user.headers) for _ in range(8))
    )
    assert sorted(answer.status_code for answer in answers) == [200] + [404] * 7
    assert [branch["name"] for branch in (await _listed(client, user.headers))["branches"]] == [
        "main"
    ]


async def _blocked_transactions(driver: AsyncDriver, count: int) -> None:
    """Waits until `count` transactions wait for a lock (the requests found their branch)."""

    async def blocked() -> bool:
        rows = await cypher(
            driver, "SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN *"
        )
        return len(rows) >= count

    await wait_for(f"{count} requests to wait for the user", blocked, PATIENT_S)


async def test_changes_waiting_for_a_delete_of_their_branch_find_it_gone(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    """A store, a merge and a checkout that found the branch, then waited while a delete of it
    committed: each is 404 and leaves nothing behind (before, the store was acknowledged into
    the deleted branch, the merge answered 200 with nothing added and the user stayed checked
    out to a branch that no longer existed)."""
    await store(client, user.headers, "Ines knits scarves")
    await create_branch(client, user.headers, "doomed")
    await store(client, user.headers, "Ines knits hats", branch="doomed")
    async with neo4j_driver.session(database="neo4j") as session:
        delete = await session.begin_transaction()
        # A delete of the branch writes the user first, as this does: what comes after waits.
        await delete.run(
            "MATCH (u:User {id: $user_id}) SET u.snapshot_lock = coalesce(u.snapshot_lock, 0) + 1",
            user_id=user.user_id,
        )
        waiting = [
            asyncio.ensure_future(request)
            for request in (
                client.post(
                    "/v1/memories",
                    json={"content": "Ines knits gloves", "branch": "doomed"},
                    headers=user.headers,
                ),
                client.post(
                    "/v1/branches/doomed/merge", json={"strategy": "append"}, headers=user.headers
                ),
                client.post("/v1/branches/doomed/checkout", headers=user.headers),
            )
        ]
        await _blocked_transactions(neo4j_driver, 3)
        await delete.run(
            "MATCH (b:Branch {user_id: $user_id, name: 'doomed'}) DETACH DELETE b "
            "WITH 1 AS done MATCH (m:Memory {user_id: $user_id, branch: 'doomed'}) DETACH DELETE m",
            user_id=user.user_id,
        )
        await delete.commit()
    answers = await asyncio.gather(*waiting)
    for answer in answers:
        assert await error_detail(answer, 404) == "branch doomed not found"
    listed = await _listed(client, user.headers)
    assert listed["active_branch"] == "main"
    assert await page_contents(client, user.headers) == {"Ines knits scarves"}
    left = await cypher(
        neo4j_driver,
        "MATCH (m:Memory {user_id: $user_id, branch: 'doomed'}) RETURN m.content AS content",
        user_id=user.user_id,
    )
    assert left == []


async def test_searches_racing_a_delete_of_their_branch_never_fail(
    client: TestClientProtocol, user: User
) -> None:
    """Reads take no locks: a search may read nodes the delete is removing. It answers with
    what it could read, or 404, never a 500 (it was one, now and then)."""

    async def search(path: str, delay: float) -> int:
        await asyncio.sleep(delay)
        body = {"query": "kiln stoneware", "branch": "fleeting", "top_k": 10}
        return (await client.post(path, json=body, headers=user.headers)).status_code

    for _ in range(4):
        await create_branch(client, user.headers, "fleeting")
        items = [
            {"content": f"Kiln {index} fires stoneware at host-{index}"} for index in range(40)
        ]
        response = await client.post(
            "/v1/memories/batch",
            json={"branch": "fleeting", "memories": items},
            headers=user.headers,
        )
        assert response.status_code == 201
        searches = [
            search(path, index * 0.01)
            for index in range(12)
            for path in ("/v1/memories/retrieve", "/v1/memories/search")
        ]
        delete = client.delete("/v1/branches/fleeting", headers=user.headers)
        *statuses, deleted = await asyncio.gather(*searches, delete)
        assert deleted.status_code == 200
        assert set(statuses) <= {200, 404}, statuses


async def test_delete_branch_and_main_cannot_be_deleted(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Yuri collects vinyl")
    await create_branch(client, user.headers, "temp")
    await store(client, user.headers, "Yuri sold his vinyl", branch="temp")
    await take_snapshot(client, user.headers, "on-temp", branch="temp")
    await error_detail(await client.delete("/v1/branches/main", headers=user.headers), 422)

    await check_out(client, user.headers, "temp")
    deleted = await request_ok(client, "DELETE", "/v1/branches/temp", user.headers)
    assert deleted["deleted"] is True
    assert deleted["active_branch"] == "main"
    listed = await _listed(client, user.headers)
    assert listed["active_branch"] == "main"
    assert [item["name"] for item in listed["branches"]] == ["main"]
    # The user is back on main: requests without `branch` work there.
    assert await page_contents(client, user.headers) == {"Yuri collects vinyl"}
    stored = await store(client, user.headers, "Yuri bought a turntable")
    assert stored["branch"] == "main"
    # Its snapshots went with it.
    assert await list_snapshots(client, user.headers) == []
    # The name can be used again, and the new branch starts from main afresh.
    await create_branch(client, user.headers, "temp")
    assert await page_contents(client, user.headers, "temp") == {
        "Yuri collects vinyl",
        "Yuri bought a turntable",
    }


async def test_deleting_another_branch_keeps_the_checkout(
    client: TestClientProtocol, user: User
) -> None:
    await create_branch(client, user.headers, "keep")
    await create_branch(client, user.headers, "drop")
    await check_out(client, user.headers, "keep")
    deleted = await request_ok(client, "DELETE", "/v1/branches/drop", user.headers)
    assert deleted["active_branch"] == "keep"
    assert (await _listed(client, user.headers))["active_branch"] == "keep"


async def test_twenty_branches_at_most(client: TestClientProtocol, user: User) -> None:
    for number in range(20):
        await create_branch(client, user.headers, f"b{number}")
    response = await client.post("/v1/branches", json={"name": "b20"}, headers=user.headers)
    await error_detail(response, 409)
    await request_ok(client, "DELETE", "/v1/branches/b0", user.headers)
    await create_branch(client, user.headers, "b20")


async def test_duplicate_branch_name_is_409(client: TestClientProtocol, user: User) -> None:
    await create_branch(client, user.headers, "twin")
    for name in ("twin", "main"):
        response = await client.post("/v1/branches", json={"name": name}, headers=user.headers)
        await error_detail(response, 409)


@pytest.mark.parametrize("name", ["", "x" * 65, "has space", "a/b", "ça"])
async def test_bad_branch_name_is_422(client: TestClientProtocol, user: User, name: str) -> None:
    response = await client.post("/v1/branches", json={"name": name}, headers=user.headers)
    await error_detail(response, 422)
    assert [item["name"] for item in (await _listed(client, user.headers))["branches"]] == ["main"]


async def test_a_fresh_branch_retrieves_exactly_what_main_does(
    client: TestClientProtocol, user: User
) -> None:
    # More memories sharing the query's words than the full-text stage takes: the index must
    # hand each branch its own hits, not a mix of both branches' copies.
    await store_batch(
        client,
        user.headers,
        [
            {"content": f"Lighthouse log {n}: the keeper noted wind force {n % 9}"}
            for n in range(40)
        ],
    )
    await create_branch(client, user.headers, "twin")
    for query in ("lighthouse keeper wind", "keeper log 17", "wind 3 log"):
        for mode in ("retrieve", "search"):
            on_main = await ranked(client, user.headers, mode, query, top_k=10, min_score=0)
            on_twin = await ranked(
                client, user.headers, mode, query, top_k=10, min_score=0, branch="twin"
            )
            assert ids(on_twin) == ids(on_main), (mode, query)
            assert [memory["retrieval_score"] for memory in on_twin] == pytest.approx(
                [memory["retrieval_score"] for memory in on_main]
            )
        lexical = {
            branch: await fulltext(client, user.headers, query, limit=10, branch=branch)
            for branch in ("main", "twin")
        }
        assert ids(lexical["twin"]) == ids(lexical["main"]) and len(lexical["main"]) == 10


# --- Memoria's forms ----------------------------------------------------------------------------


async def test_create_from_a_timestamp_forks_main_as_it_was_then(
    client: TestClientProtocol, user: User
) -> None:
    bike = await store(client, user.headers, "Sam owns a red bike")
    # A snapshot's time lies between the change before it and the one after.
    mark = await take_snapshot(client, user.headers, "mark")
    await correct(client, user.headers, bike["memory_id"], "Sam owns a blue bike")
    await store(client, user.headers, "Sam rides to work")

    created = await create_branch(client, user.headers, "then", from_timestamp=mark["created_at"])

    assert created["from_timestamp"] == mark["created_at"]
    assert (created["from_snapshot"], created["memory_count"]) == (None, 1)
    assert await page_contents(client, user.headers, "then") == {"Sam owns a red bike"}
    assert await page_contents(client, user.headers, "main") == {
        "Sam owns a blue bike",
        "Sam rides to work",
    }
    # Memoria's spelling of a time (UTC, no zone); before the user's first change: nothing.
    before = await create_branch(
        client, user.headers, "before", from_timestamp="2001-01-01 00:00:00"
    )
    assert before["memory_count"] == 0
    # What main holds now that these branches do not: main's changes since their times.
    for name in ("then", "before"):
        items = await request_ok(client, "GET", f"/v1/branches/{name}/diff-items", user.headers)
        assert {entry["content"] for entry in items["behind_main"]} == {
            "Sam owns a blue bike",
            "Sam rides to work",
        }


@pytest.mark.parametrize(
    "body",
    [
        {"from_timestamp": "2999-01-01T00:00:00Z"},
        {"from_timestamp": "yesterday"},
        {"from_timestamp": "2024-01-01T00:00:00Z", "from_snapshot": "mark"},
    ],
    ids=["future", "not-a-time", "two-sources"],
)
async def test_create_from_a_bad_timestamp_is_422_and_creates_nothing(
    client: TestClientProtocol, user: User, body: dict[str, Any]
) -> None:
    await take_snapshot(client, user.headers, "mark")
    response = await client.post("/v1/branches", json={"name": "x", **body}, headers=user.headers)
    await error_detail(response, 422)
    listed = await request_ok(client, "GET", "/v1/branches", user.headers)
    assert [branch["name"] for branch in listed["branches"]] == ["main"]


async def test_checkout_answers_the_memory_count_and_accept_merges_as_replace(
    client: TestClientProtocol, user: User
) -> None:
    made = await _prepare_merge(client, user.headers)
    checked_out = await request_ok(client, "POST", "/v1/branches/work/checkout", user.headers)
    on_branch = await page_items(client, user.headers, "work")
    assert checked_out == {"active_branch": "work", "memory_count": len(on_branch)}

    merged = await merge(client, user.headers, "work", "accept")  # Memoria's default

    assert (merged["strategy"], merged["added"], merged["removed"]) == ("replace", 2, 2)
    assert made["fixed"]["memory_id"] not in ids(await page_items(client, user.headers, "main"))


async def test_diff_items_lists_each_change_conflicts_and_what_main_did_meanwhile(
    client: TestClientProtocol, user: User
) -> None:
    os_version = await store(client, user.headers, "Build agents run Ubuntu 20.04.")
    nightly = await store(client, user.headers, "Nightly builds start at 01:00.")
    disputed = await store(client, user.headers, "The release train leaves on Mondays.")
    await create_branch(client, user.headers, "infra")
    upgraded = await correct(
        client,
        user.headers,
        os_version["memory_id"],
        "Build agents run Ubuntu 22.04.",
        branch="infra",
    )
    await request_ok(
        client,
        "DELETE",
        f"/v1/memories/{nightly['memory_id']}",
        user.headers,
        query_string={"branch": "infra"},
    )
    ours, theirs = await correct_on_both_sides(
        client,
        user.headers,
        "infra",
        disputed["memory_id"],
        ["The release train leaves on Tuesdays.", "The release train leaves on Wednesdays."],
    )
    added = await store(client, user.headers, "Builds cache layers in S3.", branch="infra")
    news = await store(client, user.headers, "Release notes go out on Fridays.")

    items = await request_ok(client, "GET", "/v1/branches/infra/diff-items", user.headers)

    assert (items["branch"], items["against"]) == ("infra", "main")
    assert items["added"] == [
        {
            "memory_id": added["memory_id"],
            "content": "Builds cache layers in S3.",
            "memory_type": "semantic",
        }
    ]
    assert items["updated"] == [
        {
            "memory_id": upgraded["memory_id"],
            "content": "Build agents run Ubuntu 22.04.",
            "memory_type": "semantic",
            "old_memory_id": os_version["memory_id"],
            "old_content": "Build agents run Ubuntu 20.04.",
        }
    ]
    assert [entry["memory_id"] for entry in items["removed"]] == [nightly["memory_id"]]
    [conflict] = items["conflicts"]
    assert conflict["memory_id"] == disputed["memory_id"]
    assert conflict["branch"] == {
        "content": "The release train leaves on Mondays.",
        "is_active": False,
        "superseded_by": ours["memory_id"],
        "superseded_by_content": "The release train leaves on Tuesdays.",
    }
    assert conflict["main"] == {
        "content": "The release train leaves on Mondays.",
        "is_active": False,
        "superseded_by": theirs["memory_id"],
        "superseded_by_content": "The release train leaves on Wednesdays.",
    }
    assert [entry["memory_id"] for entry in items["behind_main"]] == [news["memory_id"]]
    limited = await request_ok(client, "GET", "/v1/branches/infra/diff-items?limit=1", user.headers)
    assert len(limited["added"]) == len(limited["updated"]) == 1
    for bad in ("limit=0", "limit=501", "limit=many"):
        response = await client.get(f"/v1/branches/infra/diff-items?{bad}", headers=user.headers)
        assert response.status_code in (400, 422)
    await error_detail(
        await client.get("/v1/branches/nowhere/diff-items", headers=user.headers), 404
    )
