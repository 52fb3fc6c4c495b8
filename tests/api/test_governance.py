"""Governance over HTTP: quarantine of decayed memories (and rollback bringing them back),
expiry of stale working memory, cooldowns and force, and the admin trigger."""

from __future__ import annotations

import asyncio

from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User, create_user
from tests.support.governance import days_ago, run, trigger
from tests.support.http import error_detail
from tests.support.memories import contents, listed_ids, ranked, store
from tests.support.snapshots import roll_back


async def test_a_decayed_low_tier_memory_is_quarantined_and_rollback_brings_it_back(
    client: TestClientProtocol, user: User
) -> None:
    # T4 starts at 0.40 and decays with e-folding time 30 days: 60 days old it is at 0.054.
    stale = await store(
        client,
        user.headers,
        "The staging VPN password rotates every Tuesday.",
        trust_tier="T4",
        observed_at=days_ago(60),
    )
    fresh = await store(client, user.headers, "The staging VPN uses WireGuard.", trust_tier="T4")
    old_but_trusted = await store(
        client, user.headers, "The production VPN uses IPsec.", observed_at=days_ago(400)
    )

    report = await run(client, user.headers, "governance")

    assert report["skipped"] is False
    assert report["quarantined"] == 1
    assert report["snapshot_name"].startswith("pre_governance_")
    listed = await listed_ids(client, user.headers)
    assert stale["memory_id"] not in listed
    assert {fresh["memory_id"], old_but_trusted["memory_id"]} <= set(listed)
    found = await ranked(client, user.headers, "retrieve", "staging VPN password", min_score=0)
    assert stale["content"] not in contents(found)

    await roll_back(client, user.headers, report["snapshot_name"])
    assert stale["memory_id"] in await listed_ids(client, user.headers)
    found = await ranked(client, user.headers, "retrieve", "staging VPN password")
    assert contents(found)[0] == stale["content"]


async def test_stale_working_memory_and_old_tool_results_expire(
    client: TestClientProtocol, user: User
) -> None:
    old_working = await store(
        client,
        user.headers,
        "Currently editing invoice.py line 40",
        memory_type="working",
        observed_at=days_ago(2),
    )
    new_working = await store(
        client, user.headers, "Currently reviewing PR 812", memory_type="working"
    )
    old_result = await store(
        client,
        user.headers,
        "ls returned 14 files",
        memory_type="tool_result",
        observed_at=days_ago(8),
    )
    recent_result = await store(
        client,
        user.headers,
        "pytest passed 212 tests",
        memory_type="tool_result",
        observed_at=days_ago(3),
    )

    report = await run(client, user.headers, "governance")

    assert report["expired"] == 2
    assert report["quarantined"] == 0
    listed = set(await listed_ids(client, user.headers))
    assert old_working["memory_id"] not in listed and old_result["memory_id"] not in listed
    assert {new_working["memory_id"], recent_result["memory_id"]} <= listed


async def test_governance_with_nothing_to_do_takes_no_snapshot(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "The team standup is at 09:30.")
    report = await run(client, user.headers, "governance")
    assert report == {
        "skipped": False,
        "quarantined": 0,
        "expired": 0,
        "collectable": 0,
        "orphan_graph_cleaned": 0,
        "cleaned_stale": 0,
        "feedback_tuned": False,
        "feedback_weight": 0.1,
        "snapshot_name": None,
    }


async def test_a_second_run_inside_the_cooldown_is_skipped_unless_forced(
    client: TestClientProtocol, user: User
) -> None:
    first = await run(client, user.headers, "governance", force=False)
    assert first["skipped"] is False

    skipped = await run(client, user.headers, "governance", force=False)
    assert skipped == {"skipped": True, "cooldown_remaining_s": skipped["cooldown_remaining_s"]}
    assert 3500 < skipped["cooldown_remaining_s"] <= 3600

    by_query = await run(client, user.headers, "governance", force=True)
    assert by_query["skipped"] is False
    by_body = await client.post("/v1/governance", json={"force": True}, headers=user.headers)
    assert (await by_body.get_json())["skipped"] is False

    # Each operation has a cooldown of its own: 30 minutes for consolidate.
    assert (await run(client, user.headers, "consolidate", force=False))["skipped"] is False
    again = await run(client, user.headers, "consolidate", force=False)
    assert 1700 < again["cooldown_remaining_s"] <= 1800


async def test_cooldowns_are_per_user(client: TestClientProtocol, user: User) -> None:
    other = await create_user(client, "cooldown")
    await run(client, user.headers, "governance", force=False)
    assert (await run(client, other.headers, "governance", force=False))["skipped"] is False


async def test_bad_force_values_are_rejected(client: TestClientProtocol, user: User) -> None:
    response = await client.post(
        "/v1/governance", query_string={"force": "perhaps"}, headers=user.headers
    )
    assert response.status_code in (400, 422)
    await error_detail(response, response.status_code)
    response = await client.post("/v1/governance", json={"force": "yes"}, headers=user.headers)
    await error_detail(response, 422)
    response = await client.post("/v1/consolidate", json={"forse": True}, headers=user.headers)
    await error_detail(response, 422)


async def test_the_admin_trigger_runs_each_operation_as_the_user_ignoring_cooldowns(
    client: TestClientProtocol, user: User
) -> None:
    await store(
        client,
        user.headers,
        "Old scratch note about the printer.",
        trust_tier="T4",
        observed_at=days_ago(90),
    )
    await run(client, user.headers, "governance", force=False)  # starts the cooldown
    await store(
        client,
        user.headers,
        "Another old scratch note about the fax.",
        trust_tier="T4",
        observed_at=days_ago(90),
    )

    governed = await trigger(client, user.user_id, "governance")
    assert governed.status_code == 200
    assert (await governed.get_json())["quarantined"] == 1

    consolidated = await trigger(client, user.user_id, "consolidate")
    assert consolidated.status_code == 200
    assert (await consolidated.get_json())["skipped"] is False

    # Without an LLM, the LLM operations say so.
    for op in ("reflect", "extract_entities"):
        detail = await error_detail(await trigger(client, user.user_id, op), 503)
        assert "LLM" in detail


async def test_the_admin_trigger_checks_its_input_and_its_caller(
    client: TestClientProtocol, user: User
) -> None:
    await error_detail(await trigger(client, user.user_id, "defragment"), 422)
    await error_detail(await trigger(client, "nobody-" + user.user_id, "governance"), 404)
    response = await client.post(
        f"/admin/governance/{user.user_id}/trigger",
        query_string={"op": "governance"},
        headers=user.headers,
    )
    await error_detail(response, 403)
    response = await client.post(
        f"/admin/governance/{user.user_id}/trigger", query_string={"op": "governance"}
    )
    await error_detail(response, 401)
    assert MASTER  # the trigger helper sends the master key


async def test_another_users_governance_touches_nothing_of_mine(
    client: TestClientProtocol, user: User
) -> None:
    mine = await store(
        client,
        user.headers,
        "My stale low-trust note.",
        trust_tier="T4",
        observed_at=days_ago(90),
    )
    other = await create_user(client, "governs")
    report = await run(client, other.headers, "governance")
    assert report["quarantined"] == 0
    assert mine["memory_id"] in await listed_ids(client, user.headers)


async def test_two_simultaneous_calls_run_once(client: TestClientProtocol, user: User) -> None:
    responses = await asyncio.gather(
        *(client.post("/v1/consolidate", headers=user.headers) for _ in range(3))
    )
    bodies = [await response.get_json() for response in responses]
    assert sorted(body["skipped"] for body in bodies) == [False, True, True]
