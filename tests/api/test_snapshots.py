"""/v1/snapshots: create, names and limits, list, detail levels, delete, diff and rollback."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.feedback import give_feedback
from tests.support.http import error_detail
from tests.support.memories import correct, page_contents, store, store_batch, without_confidence
from tests.support.snapshots import list_snapshots, roll_back, take_snapshot

Headers = dict[str, str]
SAFETY_NAME = re.compile(r"^pre_(rollback|delete|purge)_[0-9a-f]{8}$")
LONG_TEXT = "The quarterly planning notes say " + "budget review and staffing, " * 12


async def _get(client: TestClientProtocol, headers: Headers, path: str, **query: Any) -> Any:
    response = await client.get(path, query_string=query, headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    return await response.get_json()


async def _listed(client: TestClientProtocol, headers: Headers) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in await list_snapshots(client, headers)}


async def test_create_returns_201_and_the_snapshot_is_listed(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Alice prefers tea over coffee")
    created = await take_snapshot(
        client, user.headers, "before-trip", description="before the trip"
    )
    assert created["name"] == "before-trip"
    assert created["branch"] == "main"
    assert created["kind"] == "user"
    assert created["description"] == "before the trip"
    listed = await _listed(client, user.headers)
    assert set(listed) == {"before-trip"}
    assert listed["before-trip"]["description"] == "before the trip"


@pytest.mark.parametrize("name", ["a", "Z9", "release-1.2_final", "x" * 64, "..."])
async def test_valid_names_are_accepted(client: TestClientProtocol, user: User, name: str) -> None:
    assert (await take_snapshot(client, user.headers, name))["name"] == name


@pytest.mark.parametrize(
    "name", ["", "x" * 65, "with space", "slash/name", "ümlaut", "semi;colon", "tab\tname"]
)
async def test_invalid_names_are_422(client: TestClientProtocol, user: User, name: str) -> None:
    response = await client.post("/v1/snapshots", json={"name": name}, headers=user.headers)
    await error_detail(response, 422)
    assert await _listed(client, user.headers) == {}


async def test_duplicate_name_is_409(client: TestClientProtocol, user: User) -> None:
    first = await take_snapshot(client, user.headers, "same")
    await store(client, user.headers, "Something changed after the first snapshot")
    response = await client.post("/v1/snapshots", json={"name": "same"}, headers=user.headers)
    await error_detail(response, 409)
    # The first one is untouched.
    assert (await _listed(client, user.headers))["same"]["seq"] == first["seq"]


async def test_twenty_user_snapshots_at_most_and_safety_ones_do_not_count(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "A memory to delete later")
    for number in range(20):
        await take_snapshot(client, user.headers, f"snap-{number}")
    response = await client.post("/v1/snapshots", json={"name": "snap-20"}, headers=user.headers)
    await error_detail(response, 409)

    # Deleting and purging still work: their safety snapshots are outside the limit.
    deleted = await client.delete(f"/v1/memories/{memory['memory_id']}", headers=user.headers)
    assert deleted.status_code == 200
    purged = await client.post(
        "/v1/memories/purge", json={"memory_types": ["working"]}, headers=user.headers
    )
    assert purged.status_code == 200
    listed = await _listed(client, user.headers)
    assert sum(1 for item in listed.values() if item["kind"] == "user") == 20
    assert sum(1 for item in listed.values() if item["kind"] == "safety") == 2
    response = await client.post("/v1/snapshots", json={"name": "snap-20"}, headers=user.headers)
    await error_detail(response, 409)

    # Deleting a user snapshot frees a slot.
    assert (await client.delete("/v1/snapshots/snap-0", headers=user.headers)).status_code == 200
    await take_snapshot(client, user.headers, "snap-20")


async def test_list_is_newest_first(client: TestClientProtocol, user: User) -> None:
    await take_snapshot(client, user.headers, "first")
    await store(client, user.headers, "Bob lives in Lisbon")
    await take_snapshot(client, user.headers, "second")
    await store(client, user.headers, "Bob works as a carpenter")
    await take_snapshot(client, user.headers, "third")
    names = [item["name"] for item in await list_snapshots(client, user.headers)]
    assert names == ["third", "second", "first"]


async def test_detail_levels_cut_content_and_show_the_state_at_snapshot_time(
    client: TestClientProtocol, user: User
) -> None:
    long = await store(client, user.headers, LONG_TEXT, memory_type="procedural")
    assert len(LONG_TEXT) > 200
    short = await store(client, user.headers, "Carol is allergic to peanuts", memory_type="profile")
    await store(client, user.headers, "Carol's favourite colour is green", memory_type="profile")
    await take_snapshot(client, user.headers, "three")
    # Changes after the snapshot do not show in its detail.
    await store(client, user.headers, "A memory stored after the snapshot")
    assert (
        await client.delete(f"/v1/memories/{short['memory_id']}", headers=user.headers)
    ).status_code == 200

    by_level = {}
    for level in ("brief", "normal", "full"):
        body = await _get(client, user.headers, "/v1/snapshots/three", detail=level)
        assert body["name"] == "three"
        assert body["memory_count"] == 3
        assert body["by_type"] == {"procedural": 1, "profile": 2}
        assert len(body["memories"]) == 3
        by_level[level] = {item["memory_id"]: item for item in body["memories"]}
    assert set(by_level["brief"]) == set(by_level["full"])
    assert short["memory_id"] in by_level["brief"]

    brief = by_level["brief"][long["memory_id"]]["content"]
    normal = by_level["normal"][long["memory_id"]]["content"]
    full = by_level["full"][long["memory_id"]]
    assert brief.rstrip("…") == LONG_TEXT[:80]
    assert normal.rstrip("…") == LONG_TEXT[:200]
    assert full["content"] == LONG_TEXT
    # Short content is never cut.
    assert by_level["brief"][short["memory_id"]]["content"] == "Carol is allergic to peanuts"
    # Only `full` carries confidence.
    assert 0.0 < full["confidence"] <= 0.95
    assert by_level["brief"][long["memory_id"]].get("confidence") is None
    assert by_level["normal"][long["memory_id"]].get("confidence") is None


async def test_detail_pages_with_limit_and_offset(client: TestClientProtocol, user: User) -> None:
    await store_batch(
        client, user.headers, [{"content": f"Numbered fact {n} about the garden"} for n in range(7)]
    )
    await take_snapshot(client, user.headers, "seven")
    seen: list[str] = []
    for offset in (0, 3, 6):
        body = await _get(
            client, user.headers, "/v1/snapshots/seven", detail="brief", limit=3, offset=offset
        )
        assert body["memory_count"] == 7
        assert body["limit"] == 3
        assert body["offset"] == offset
        assert (body["snapshot_name"], body["has_more"]) == ("seven", offset < 6)
        seen.extend(item["memory_id"] for item in body["memories"])
    assert len(seen) == 7
    assert len(set(seen)) == 7
    past_end = await _get(client, user.headers, "/v1/snapshots/seven", limit=3, offset=10)
    assert past_end["memories"] == []
    assert past_end["memory_count"] == 7


@pytest.mark.parametrize(
    "query", ["detail=everything", "limit=0", "limit=501", "offset=-1"], ids=str
)
async def test_detail_rejects_bad_parameters(
    client: TestClientProtocol, user: User, query: str
) -> None:
    await take_snapshot(client, user.headers, "snap")
    response = await client.get(f"/v1/snapshots/snap?{query}", headers=user.headers)
    await error_detail(response, 422)


async def test_deleted_snapshot_is_gone_everywhere(client: TestClientProtocol, user: User) -> None:
    await store(client, user.headers, "Dave plays the cello")
    await take_snapshot(client, user.headers, "doomed")
    response = await client.delete("/v1/snapshots/doomed", headers=user.headers)
    assert response.status_code == 200
    assert (await response.get_json())["name"] == "doomed"
    assert "doomed" not in await _listed(client, user.headers)
    for method, path in (
        ("GET", "/v1/snapshots/doomed"),
        ("GET", "/v1/snapshots/doomed/diff"),
        ("POST", "/v1/snapshots/doomed/rollback"),
        ("DELETE", "/v1/snapshots/doomed"),
    ):
        await error_detail(await client.open(path, method=method, headers=user.headers), 404)
    # The memories themselves are untouched.
    assert await page_contents(client, user.headers) == {"Dave plays the cello"}


async def test_unknown_snapshot_is_404(client: TestClientProtocol, user: User) -> None:
    await error_detail(await client.get("/v1/snapshots/nope", headers=user.headers), 404)


async def test_diff_lists_added_removed_and_modified(
    client: TestClientProtocol, user: User
) -> None:
    kept = await store(client, user.headers, "Erin drives a blue car")
    doomed = await store(client, user.headers, "Erin has two cats")
    fixed = await store(client, user.headers, "Erin was born in 1980")
    await take_snapshot(client, user.headers, "base")
    empty = await _get(client, user.headers, "/v1/snapshots/base/diff")
    assert (empty["added"], empty["removed"], empty["modified"]) == ([], [], [])

    added = await store(client, user.headers, "Erin bought a bicycle")
    assert (
        await client.delete(f"/v1/memories/{doomed['memory_id']}", headers=user.headers)
    ).status_code == 200
    correction = await correct(
        client, user.headers, fixed["memory_id"], "Erin was born in 1981", reason="typo"
    )

    diff = await _get(client, user.headers, "/v1/snapshots/base/diff")
    assert diff["snapshot"] == "base"
    assert diff["branch"] == "main"
    assert {item["memory_id"] for item in diff["added"]} == {
        added["memory_id"],
        correction["memory_id"],
    }
    # A correction ends the old memory: it no longer shows, so it reads as removed.
    assert {item["memory_id"] for item in diff["removed"]} == {
        doomed["memory_id"],
        fixed["memory_id"],
    }
    assert diff["modified"] == []
    assert diff["counts"] == {"added": 2, "removed": 2, "modified": 0}
    assert diff["truncated"] is False
    assert kept["memory_id"] not in str(diff)
    # Memoria's view: the snapshot's name and the active memories then and now.
    assert (diff["snapshot_name"], diff["snapshot_count"], diff["current_count"]) == ("base", 3, 3)


async def test_diff_limit_truncates_each_list(client: TestClientProtocol, user: User) -> None:
    await take_snapshot(client, user.headers, "empty")
    await store_batch(
        client, user.headers, [{"content": f"Fact number {n} about Frank"} for n in range(5)]
    )
    diff = await _get(client, user.headers, "/v1/snapshots/empty/diff", limit=2)
    assert len(diff["added"]) == 2
    assert diff["counts"]["added"] == 5
    assert diff["truncated"] is True
    whole = await _get(client, user.headers, "/v1/snapshots/empty/diff")
    assert len(whole["added"]) == 5
    assert whole["truncated"] is False
    await error_detail(
        await client.get("/v1/snapshots/empty/diff?limit=0", headers=user.headers), 422
    )


async def test_rollback_restores_exactly_after_its_own_safety_snapshot(
    client: TestClientProtocol, user: User
) -> None:
    first = await store(client, user.headers, "Grace likes jazz")
    second = await store(client, user.headers, "Grace works night shifts")
    await take_snapshot(client, user.headers, "good")
    before = await _get(client, user.headers, "/v1/memories", limit=500)

    await store(client, user.headers, "Grace likes heavy metal")
    assert (
        await client.delete(f"/v1/memories/{first['memory_id']}", headers=user.headers)
    ).status_code == 200
    await correct(client, user.headers, second["memory_id"], "Grace works day shifts")
    changed = await page_contents(client, user.headers)
    assert changed == {"Grace likes heavy metal", "Grace works day shifts"}

    outcome = await roll_back(client, user.headers, "good")
    assert outcome["snapshot"] == "good"
    assert SAFETY_NAME.match(outcome["safety_snapshot"])
    assert outcome["safety_snapshot"].startswith("pre_rollback_")
    after = await _get(client, user.headers, "/v1/memories", limit=500)
    assert without_confidence(after["items"]) == without_confidence(before["items"])

    listed = await _listed(client, user.headers)
    safety = listed[outcome["safety_snapshot"]]
    assert safety["kind"] == "safety"
    assert safety["branch"] == "main"

    # The rollback itself can be rolled back through its safety snapshot.
    undo = await roll_back(client, user.headers, outcome["safety_snapshot"])
    assert undo["safety_snapshot"].startswith("pre_rollback_")
    assert await page_contents(client, user.headers) == changed
    # And the diff of the original snapshot shows the changes again.
    diff = await _get(client, user.headers, "/v1/snapshots/good/diff")
    assert diff["counts"] == {"added": 2, "removed": 2, "modified": 0}


async def test_rollback_twice_to_the_same_snapshot_changes_nothing_more(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Heidi collects stamps")
    await take_snapshot(client, user.headers, "s")
    await store(client, user.headers, "Heidi collects coins")
    await roll_back(client, user.headers, "s")
    once = await _get(client, user.headers, "/v1/memories")
    again = await roll_back(client, user.headers, "s")
    assert (again["ended"], again["restored"]) == (0, 0)
    assert without_confidence((await _get(client, user.headers, "/v1/memories"))["items"]) == (
        without_confidence(once["items"])
    )
    diff = await _get(client, user.headers, "/v1/snapshots/s/diff")
    assert diff["counts"] == {"added": 0, "removed": 0, "modified": 0}


async def test_snapshot_of_an_empty_state_rolls_back_to_nothing(
    client: TestClientProtocol, user: User
) -> None:
    await take_snapshot(client, user.headers, "blank")
    await store(client, user.headers, "Ivan speaks Russian")
    await store(client, user.headers, "Ivan is learning Japanese")
    await roll_back(client, user.headers, "blank")
    assert await page_contents(client, user.headers) == set()
    detail = await _get(client, user.headers, "/v1/snapshots/blank")
    assert detail["memory_count"] == 0
    assert detail["by_type"] == {}


async def test_rollback_keeps_the_feedback_given_since(
    client: TestClientProtocol, user: User
) -> None:
    memory = await store(client, user.headers, "The staging database is db-stage-3")
    memory_id = memory["memory_id"]
    await take_snapshot(client, user.headers, "before-feedback")
    await give_feedback(client, user.headers, memory_id, "useful", 2)
    deleted = await client.delete(f"/v1/memories/{memory_id}", headers=user.headers)
    assert deleted.status_code == 200

    await roll_back(client, user.headers, "before-feedback")

    listed = await (await client.get("/v1/memories", headers=user.headers)).get_json()
    [restored] = [item for item in listed["items"] if item["memory_id"] == memory_id]
    assert restored["feedback"]["useful"] == 2
    stats = await (await client.get("/v1/feedback/stats", headers=user.headers)).get_json()
    assert stats["useful"] == 2


async def test_racing_deletes_of_one_snapshot_succeed_once(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, "Ola paints doors")
    await take_snapshot(client, user.headers, "raced")
    answers = await asyncio.gather(
        *(client.delete("/v1/snapshots/raced", headers=user.headers) for _ in range(8))
    )
    assert sorted(answer.status_code for answer in answers) == [200] + [404] * 7
    assert await list_snapshots(client, user.headers) == []


async def test_the_list_is_sliced_by_limit_and_offset(
    client: TestClientProtocol, user: User
) -> None:
    for name in ("first", "second", "third"):
        await take_snapshot(client, user.headers, name)
    assert [s["name"] for s in await _get(client, user.headers, "/v1/snapshots")] == [
        "third",
        "second",
        "first",
    ]
    sliced = await _get(client, user.headers, "/v1/snapshots", limit=1, offset=1)
    assert [s["name"] for s in sliced] == ["second"]
    assert await _get(client, user.headers, "/v1/snapshots", offset=3) == []
    for query in ("limit=0", "offset=-1", "limit=x"):
        response = await client.get(f"/v1/snapshots?{query}", headers=user.headers)
        assert response.status_code in (400, 422)


async def test_bulk_delete_by_names_prefix_or_age(client: TestClientProtocol, user: User) -> None:
    for name in ("keep", "old-a", "old-b", "tmp-1", "tmp-2"):
        await take_snapshot(client, user.headers, name)

    async def delete(body: dict[str, Any]) -> dict[str, Any]:
        response = await client.post("/v1/snapshots/delete", json=body, headers=user.headers)
        assert response.status_code == 200, await response.get_data(as_text=True)
        deleted: dict[str, Any] = await response.get_json()
        return deleted

    # Names as a list or, as Memoria's MCP tool takes them, separated by commas; unknown ones
    # are skipped.
    assert await delete({"names": ["old-a", "nope"]}) == {"deleted": 1, "names": ["old-a"]}
    assert await delete({"names": "old-b, nope"}) == {"deleted": 1, "names": ["old-b"]}
    assert await delete({"prefix": "tmp-", "names": None}) == {
        "deleted": 2,
        "names": ["tmp-2", "tmp-1"],
    }
    newest = await take_snapshot(client, user.headers, "newest")
    assert await delete({"older_than": newest["created_at"]}) == {"deleted": 1, "names": ["keep"]}
    assert list(await _listed(client, user.headers)) == ["newest"]
    assert await delete({"older_than": "2001-01-01"}) == {"deleted": 0, "names": []}

    for body in ({}, {"names": []}, {"names": ["a"], "prefix": "b"}, {"older_than": "soon"}):
        response = await client.post("/v1/snapshots/delete", json=body, headers=user.headers)
        await error_detail(response, 422)
    assert list(await _listed(client, user.headers)) == ["newest"]
