"""POST /v1/branches/{name}/pick: promote chosen changes of a branch into main (or a target) by
memory ids, by a range of the branch's snapshots or by a query; conflicts with strategy fail
(409 with the list), skip or accept; dry runs that change nothing, paged; and a rollback that
undoes a pick."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.branches import correct_on_both_sides, create_branch
from tests.support.http import error_detail, request_ok
from tests.support.memories import correct, store
from tests.support.snapshots import roll_back, take_snapshot

TRAIN = ["The release train leaves on Tuesdays.", "The release train leaves on Wednesdays."]


async def _main_contents(client: TestClientProtocol, user: User) -> list[str]:
    page = await request_ok(client, "GET", "/v1/memories?branch=main&limit=100", user.headers)
    return sorted(memory["content"] for memory in page["items"])


async def _pick(client: TestClientProtocol, user: User, branch: str, **body: Any) -> Any:
    return await request_ok(client, "POST", f"/v1/branches/{branch}/pick", user.headers, json=body)


async def test_pick_by_ids_promotes_only_those_and_a_rollback_undoes_it(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Builds run on Jenkins.")
    await create_branch(client, user.headers, "trial")
    keep = await store(client, user.headers, "Builds run on GitHub Actions.", branch="trial")
    await store(client, user.headers, "Builds take 40 minutes.", branch="trial")

    picked = await _pick(client, user, "trial", memory_ids=[keep["memory_id"]])

    assert (picked["added"], picked["replaced"], picked["removed"]) == (1, 0, 0)
    assert [(i["memory_id"], i["action"]) for i in picked["items"]] == [(keep["memory_id"], "add")]
    assert await _main_contents(client, user) == [
        "Builds run on GitHub Actions.",
        "Builds run on Jenkins.",
    ]
    await roll_back(client, user.headers, picked["snapshot_name"])
    assert await _main_contents(client, user) == ["Builds run on Jenkins."]


async def test_picking_a_correction_retires_the_memory_it_corrects(
    client: TestClientProtocol, user: User
) -> None:
    old = await store(client, user.headers, "The API rate limit is 100 per minute.")
    await create_branch(client, user.headers, "limits")
    new = await correct(
        client,
        user.headers,
        old["memory_id"],
        "The API rate limit is 300 per minute.",
        branch="limits",
    )

    picked = await _pick(client, user, "limits", memory_ids=[new["memory_id"]])

    actions = {item["memory_id"]: item["action"] for item in picked["items"]}
    assert actions == {new["memory_id"]: "add", old["memory_id"]: "remove"}
    assert await _main_contents(client, user) == ["The API rate limit is 300 per minute."]


async def test_pick_by_a_range_of_the_branchs_snapshots(
    client: TestClientProtocol, user: User
) -> None:
    await create_branch(client, user.headers, "ranged")
    await store(client, user.headers, "Before the range.", branch="ranged")
    await take_snapshot(client, user.headers, "range-start", branch="ranged")
    inside = await store(client, user.headers, "Inside the range.", branch="ranged")
    await take_snapshot(client, user.headers, "range-end", branch="ranged")
    await store(client, user.headers, "After the range.", branch="ranged")

    picked = await _pick(
        client, user, "ranged", from_snapshot="range-start", to_snapshot="range-end"
    )

    assert [item["memory_id"] for item in picked["items"]] == [inside["memory_id"]]
    assert await _main_contents(client, user) == ["Inside the range."]
    await take_snapshot(client, user.headers, "of-main")
    response = await client.post(
        "/v1/branches/ranged/pick", json={"from_snapshot": "of-main"}, headers=user.headers
    )
    assert "not ranged" in await error_detail(response, 422)


async def test_pick_by_query_takes_the_best_matches(client: TestClientProtocol, user: User) -> None:
    await create_branch(client, user.headers, "queried")
    cache = await store(
        client, user.headers, "The Redis cache TTL is 60 seconds.", branch="queried"
    )
    await store(client, user.headers, "The office plant needs water on Fridays.", branch="queried")

    picked = await _pick(client, user, "queried", query="redis cache ttl", top_k=1)

    assert [item["memory_id"] for item in picked["items"]] == [cache["memory_id"]]
    assert await _main_contents(client, user) == ["The Redis cache TTL is 60 seconds."]


async def test_conflicts_fail_with_the_list_or_are_skipped_or_accepted(
    client: TestClientProtocol, user: User
) -> None:
    disputed = await store(client, user.headers, "The release train leaves on Mondays.")
    await create_branch(client, user.headers, "train")
    ours, _ = await correct_on_both_sides(
        client, user.headers, "train", disputed["memory_id"], TRAIN
    )
    before = await _main_contents(client, user)

    failed = await client.post(
        "/v1/branches/train/pick", json={"memory_ids": [ours["memory_id"]]}, headers=user.headers
    )
    assert "changed on main" in await error_detail(failed, 409)
    [conflict] = (await failed.get_json())["conflicts"]
    assert conflict["memory_id"] == ours["memory_id"]
    assert conflict["changed_on_target"] == disputed["memory_id"]
    assert conflict["target_content"] == "The release train leaves on Mondays."
    assert await _main_contents(client, user) == before  # a failed request changes nothing

    skipped = await _pick(client, user, "train", memory_ids=[ours["memory_id"]], strategy="skip")
    assert (skipped["added"], skipped["skipped"]) == (0, 1)
    assert await _main_contents(client, user) == before

    accepted = await _pick(client, user, "train", memory_ids=[ours["memory_id"]], strategy="accept")
    assert accepted["added"] == 1
    assert "The release train leaves on Tuesdays." in await _main_contents(client, user)


async def test_a_dry_run_changes_nothing_and_pages_its_previews(
    client: TestClientProtocol, user: User
) -> None:
    await create_branch(client, user.headers, "preview")
    stored = [
        await store(client, user.headers, f"Preview fact number {n}.", branch="preview")
        for n in range(5)
    ]
    ids = [memory["memory_id"] for memory in stored]

    first = await _pick(client, user, "preview", memory_ids=ids, dry_run=True, limit=2)
    second = await _pick(
        client, user, "preview", memory_ids=ids, dry_run=True, limit=2, cursor=first["next_cursor"]
    )

    assert first["dry_run"] and first["added"] == 5 and first["snapshot_name"] is None
    listed = [item["memory_id"] for item in first["items"] + second["items"]]
    assert listed == sorted(ids)[:4]
    assert first["items"][0]["preview"].startswith("Preview fact number")
    assert await _main_contents(client, user) == []


async def test_a_pick_into_another_branch(client: TestClientProtocol, user: User) -> None:
    await create_branch(client, user.headers, "source")
    await create_branch(client, user.headers, "sink")
    moved = await store(client, user.headers, "Picked across branches.", branch="source")

    picked = await _pick(client, user, "source", memory_ids=[moved["memory_id"]], target="sink")

    assert picked["target"] == "sink" and picked["added"] == 1
    sink = await request_ok(client, "GET", "/v1/memories?branch=sink", user.headers)
    assert [memory["content"] for memory in sink["items"]] == ["Picked across branches."]
    assert await _main_contents(client, user) == []


async def test_pick_rejects_bad_selectors_and_unknown_or_foreign_branches(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    await create_branch(client, other_user.headers, "theirs")
    foreign = await store(client, other_user.headers, "Not yours.", branch="theirs")
    await create_branch(client, user.headers, "mine")
    cases = [
        ("theirs", {"memory_ids": ["x"]}, 404),
        ("mine", {"memory_ids": [foreign["memory_id"]]}, 404),
        ("mine", {"memory_ids": ["no-such-memory"]}, 404),
        ("mine", {}, 422),
        ("mine", {"memory_ids": ["x"], "query": "y"}, 422),
        ("mine", {"memory_ids": ["x"], "strategy": "merge"}, 422),
        ("mine", {"memory_ids": ["x"], "target": "mine"}, 422),
        ("mine", {"memory_ids": ["x"], "target": "nowhere"}, 404),
    ]
    for branch, body, status in cases:
        response = await client.post(f"/v1/branches/{branch}/pick", json=body, headers=user.headers)
        await error_detail(response, status)


# --- Memoria's forms: a selector object, and apply ------------------------------------------------


async def test_memorias_selectors_pick_as_ours_do_and_its_dry_run_pages_by_offset(
    client: TestClientProtocol, user: User
) -> None:
    await create_branch(client, user.headers, "ranged")
    await take_snapshot(client, user.headers, "start", branch="ranged")
    stored = [
        await store(client, user.headers, f"Runbook step {n} checks the disk.", branch="ranged")
        for n in range(4)
    ]
    await take_snapshot(client, user.headers, "end", branch="ranged")
    ids = sorted(memory["memory_id"] for memory in stored)

    preview = await _pick(
        client,
        user,
        "ranged",
        selector={"type": "snapshot_range", "from_snapshot": "start", "to_snapshot": "end"},
        dry_run={"limit": 2, "offset": 1, "include_scores": False},
    )
    assert preview["dry_run"] is True and preview["added"] == 4
    assert [item["memory_id"] for item in preview["items"]] == ids[1:3]
    assert preview["result"] == (
        "Would pick 4 change(s) from branch 'ranged' into 'main' "
        "(4 added, 0 replaced, 0 removed, 0 skipped)"
    )
    assert await _main_contents(client, user) == []

    found = await _pick(
        client,
        user,
        "ranged",
        selector={"type": "retrieve", "query": "Which runbook step checks the disk?", "top_k": 1},
        dry_run=None,
    )
    assert (found["dry_run"], found["added"]) == (False, 1)
    by_keys = await _pick(
        client, user, "ranged", selector={"type": "key_list", "keys": ids}, strategy="skip"
    )
    assert by_keys["added"] == 3  # the one the query picked is on main already
    assert len(await _main_contents(client, user)) == 4

    bad = [
        {"selector": {"type": "key_list", "keys": []}},
        {"selector": {"type": "everything"}},
        {"selector": {"type": "snapshot_range", "from_snapshot": "start"}},
        {"selector": {"type": "retrieve", "query": "disk", "top_k": 0}},
        {"selector": {"type": "key_list", "keys": ids}, "dry_run": True},
        {"selector": {"type": "key_list", "keys": ids}, "strategy": "merge"},
    ]
    for body in bad:
        response = await client.post("/v1/branches/ranged/pick", json=body, headers=user.headers)
        await error_detail(response, 422)


async def test_apply_applies_the_entries_named_and_conflicts_only_once_accepted(
    client: TestClientProtocol, user: User
) -> None:
    disputed = await store(client, user.headers, "The release train leaves on Mondays.")
    vpn = await store(client, user.headers, "The VPN gateway is vpn1.")
    await create_branch(client, user.headers, "train")
    ours, _ = await correct_on_both_sides(
        client, user.headers, "train", disputed["memory_id"], TRAIN
    )
    moved = await correct(
        client, user.headers, vpn["memory_id"], "The VPN gateway is vpn2.", branch="train"
    )
    extra = await store(client, user.headers, "Trains carry a spare engineer.", branch="train")
    entries = await request_ok(client, "GET", "/v1/branches/train/diff-items", user.headers)
    [conflict] = entries["conflicts"]
    update = {"old_id": vpn["memory_id"], "new_id": moved["memory_id"]}

    applied = await request_ok(
        client,
        "POST",
        "/v1/branches/train/apply",
        user.headers,
        json={
            "adds": [extra["memory_id"]],
            "updates": [update],
            "removes": [],
            "accept_branch_conflicts": [],
        },
    )
    assert applied["applied_adds"] == [extra["memory_id"]]
    assert applied["applied_updates"] == [f"{vpn['memory_id']}→{moved['memory_id']}"]
    assert applied["snapshot_name"].startswith("pre_pick_")
    assert await _main_contents(client, user) == [
        "The VPN gateway is vpn2.",
        "The release train leaves on Wednesdays.",
        "Trains carry a spare engineer.",
    ]
    # The conflict stays until accepted; applying twice skips what is done.
    again = await request_ok(
        client,
        "POST",
        "/v1/branches/train/apply",
        user.headers,
        json={"adds": [extra["memory_id"]], "accept_branch_conflicts": [conflict["memory_id"]]},
    )
    assert (again["skipped_adds"], again["applied_conflicts"]) == (
        [extra["memory_id"]],
        [conflict["memory_id"]],
    )
    assert "The release train leaves on Tuesdays." in await _main_contents(client, user)
    assert ours["memory_id"] in {
        item["memory_id"]
        for item in (await request_ok(client, "GET", "/v1/memories", user.headers))["items"]
    }

    nothing = await request_ok(client, "POST", "/v1/branches/train/apply", user.headers, json={})
    assert nothing["snapshot_name"] is None and not any(
        value for key, value in nothing.items() if key != "snapshot_name"
    )
    for branch, body, status in [
        ("main", {}, 422),
        ("nowhere", {"adds": ["x"]}, 404),
        ("train", {"adds": "x"}, 422),
        ("train", {"updates": [{"old_id": "a"}]}, 422),
    ]:
        response = await client.post(
            f"/v1/branches/{branch}/apply", json=body, headers=user.headers
        )
        await error_detail(response, status)
