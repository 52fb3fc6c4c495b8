"""`as_of` on every read route that takes it (list, get, history, the structured query, full-text
search, retrieve and search): a time (record time: when the service wrote each version) or a
snapshot's name reads the user's memory exactly as it stood then, with the contents and the
feedback counts of then, read-only; an unknown snapshot is 404, a time before the user's first
memory reads nothing, a time in the future is 422, and a moment whose history garbage collection
has taken is 410 (history younger than HISTORY_RETENTION_DAYS is kept)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.registry import Registry
from app.services.versioning import snapshots
from tests.conftest import User, make_settings
from tests.support.as_of import EVERY_TYPE, READS, State, moment, stable
from tests.support.branches import create_branch
from tests.support.entities import CHAIN, QUESTION, UNRELATED
from tests.support.feedback import give_feedback
from tests.support.http import error_detail, request_ok
from tests.support.memories import correct, delete, explained, ids, store, stored_ids
from tests.support.neo4j_direct import query
from tests.support.snapshots import take_snapshot

NOTE = "note"  # a word every memory of the story holds: a full-text search finds them all
ALICE = "Alice keeps a note about green tea"
BOB = "Bob keeps a note about chess"
ALICE_FIXED = "Alice keeps a note about black coffee"
CAROL = "Carol keeps a note about Berlin"
SNAPSHOT = "before-changes"


@dataclass
class Story:
    """A user's memory: Alice's and Bob's notes stored, a snapshot, Alice's corrected, Bob's
    deleted, the correction found useful, Carol's stored; each moment is a change's time."""

    user: User
    alice: str
    bob: str
    alice_fixed: str
    carol: str
    before_first: str
    both: str  # Alice's and Bob's notes
    corrected: str  # Alice's corrected, Bob's
    deleted: str  # Alice's corrected
    fed: str  # Alice's corrected, found useful once

    @property
    def known(self) -> list[str]:
        return [self.alice, self.bob, self.alice_fixed, self.carol]


async def _times(
    client: TestClientProtocol, user: User, memory_id: str, query: dict[str, str] | None = None
) -> list[str]:
    """The times of a memory's versions (and its correction chain's), oldest first."""
    path = f"/v1/memories/{memory_id}/history"
    history = await request_ok(client, "GET", path, user.headers, query_string=query or {})
    return [version["at"] for version in history["versions"]]


async def _story(client: TestClientProtocol, user: User) -> Story:
    alice = (await store(client, user.headers, ALICE))["memory_id"]
    bob = (await store(client, user.headers, BOB))["memory_id"]
    await take_snapshot(client, user.headers, SNAPSHOT)
    fixed = (await correct(client, user.headers, alice, ALICE_FIXED))["memory_id"]
    await delete(client, user.headers, bob)
    await give_feedback(client, user.headers, fixed, "useful")
    carol = (await store(client, user.headers, CAROL))["memory_id"]
    stored, _superseded, corrected, fed = await _times(client, user, alice)
    _bob_stored, deleted = await _times(client, user, bob)
    first = datetime.fromisoformat(stored) - timedelta(microseconds=1)
    return Story(
        user, alice, bob, fixed, carol, first.isoformat(), _bob_stored, corrected, deleted, fed
    )


def _seen(state: State) -> dict[str, tuple[str, int]]:
    """What each memory said, and how often it was found useful."""
    return {key: (memory["content"], memory["feedback"]["useful"]) for key, memory in state.items()}


async def _searched(
    client: TestClientProtocol, user: User, path: str, as_of: str, **fields: Any
) -> State:
    """A search that finds every memory of the story (each holds NOTE), as a state."""
    body = {"query": NOTE, "as_of": as_of, **fields}
    found = await request_ok(client, "POST", path, user.headers, json=body)
    return {memory["memory_id"]: stable(memory) for memory in found}


Read = Callable[[TestClientProtocol, Story, str], Awaitable[State]]


def _through(name: str) -> Read:
    async def read(client: TestClientProtocol, story: Story, as_of: str) -> State:
        return await READS[name](client, story.user.headers, as_of, None, story.known)

    return read


async def _fulltext(client: TestClientProtocol, story: Story, as_of: str) -> State:
    return await _searched(client, story.user, "/v1/memories/fulltext-search", as_of)


def _ranked(mode: str, **fields: Any) -> Read:
    async def read(client: TestClientProtocol, story: Story, as_of: str) -> State:
        path = f"/v1/memories/{mode}"
        return await _searched(client, story.user, path, as_of, top_k=100, min_score=0, **fields)

    return read


ROUTES = [
    pytest.param(_through("list"), id="list"),
    pytest.param(_through("query"), id="query"),
    pytest.param(_through("get"), id="get"),
    pytest.param(_fulltext, id="fulltext"),
    pytest.param(_ranked("retrieve"), id="retrieve"),
    # Wanted types are searched one by one inside the vector indexes.
    pytest.param(_ranked("retrieve", memory_types=EVERY_TYPE), id="retrieve-typed"),
    pytest.param(_ranked("search"), id="search"),
]


@pytest.mark.parametrize("read", ROUTES)
async def test_a_time_reads_the_memory_exactly_as_it_stood_then(
    client: TestClientProtocol, user: User, read: Read
) -> None:
    story = await _story(client, user)
    then = {
        story.both: {story.alice: (ALICE, 0), story.bob: (BOB, 0)},
        story.corrected: {story.alice_fixed: (ALICE_FIXED, 0), story.bob: (BOB, 0)},
        story.deleted: {story.alice_fixed: (ALICE_FIXED, 0)},
        story.fed: {story.alice_fixed: (ALICE_FIXED, 1)},
    }
    for as_of, expected in then.items():
        assert _seen(await read(client, story, as_of)) == expected, as_of
    now = moment(datetime.now(UTC))
    assert _seen(await read(client, story, now)) == {
        story.alice_fixed: (ALICE_FIXED, 1),
        story.carol: (CAROL, 0),
    }


@pytest.mark.parametrize("read", ROUTES)
async def test_a_snapshot_name_reads_the_state_it_recorded(
    client: TestClientProtocol, user: User, read: Read
) -> None:
    story = await _story(client, user)
    expected = {story.alice: (ALICE, 0), story.bob: (BOB, 0)}
    assert _seen(await read(client, story, SNAPSHOT)) == expected


@pytest.mark.parametrize("read", ROUTES)
async def test_before_the_users_first_memory_nothing_was_there(
    client: TestClientProtocol, user: User, read: Read
) -> None:
    story = await _story(client, user)
    assert await read(client, story, story.before_first) == {}
    assert await read(client, story, "2001-01-01T00:00:00Z") == {}


@pytest.mark.parametrize("mode", ["retrieve", "search"])
async def test_explain_names_the_state_a_retrieve_read(
    client: TestClientProtocol, user: User, mode: str
) -> None:
    story = await _story(client, user)
    by_name = (await explained(client, user.headers, mode, NOTE, as_of=SNAPSHOT))["explain"]
    by_time = (await explained(client, user.headers, mode, NOTE, as_of=story.both))["explain"]
    now = (await explained(client, user.headers, mode, NOTE))["explain"]
    # The snapshot was taken right after Bob's note was stored: the same state.
    assert by_name["as_of"]["seq"] == by_time["as_of"]["seq"]
    assert by_name["as_of"]["snapshot"] == SNAPSHOT
    assert by_time["as_of"]["snapshot"] is None
    assert datetime.fromisoformat(by_time["as_of"]["at"]) == datetime.fromisoformat(story.both)
    assert now["as_of"] is None


def _graph_rows(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The verbose explain's ranking rows of a retrieve by memory id."""
    return {row["memory_id"]: row for row in body["explain"]["ranking"]}


async def test_a_retrieve_as_of_a_moment_walks_the_links_memories_had_then(
    client: TestClientProtocol, user: User
) -> None:
    chain = await stored_ids(client, user.headers, CHAIN)
    await stored_ids(client, user.headers, UNRELATED)
    await take_snapshot(client, user.headers, "whole-chain")
    await delete(client, user.headers, chain[1])  # the link from Maria's team to invoice-api
    then = await explained(client, user.headers, "retrieve", QUESTION, top_k=5, as_of="whole-chain")
    assert chain[1] in ids(then["results"])
    path = _graph_rows(then)[chain[3]]["graph_path"]
    assert [step for step in path if step in chain] == chain
    now = await explained(client, user.headers, "retrieve", QUESTION, top_k=5)
    assert chain[1] not in ids(now["results"])
    assert all(chain[1] not in row.get("graph_path", []) for row in now["explain"]["ranking"])


async def test_a_retrieve_as_of_a_moment_walks_no_memory_stored_later(
    client: TestClientProtocol, user: User
) -> None:
    maria, _link, *library = CHAIN
    [maria_id, *library_ids] = await stored_ids(client, user.headers, [maria, *library])
    await stored_ids(client, user.headers, UNRELATED)
    await take_snapshot(client, user.headers, "without-the-link")
    link = (await store(client, user.headers, CHAIN[1]))["memory_id"]
    then = await explained(
        client, user.headers, "retrieve", QUESTION, top_k=5, as_of="without-the-link"
    )
    assert link not in ids(then["results"])
    rows = _graph_rows(then)
    assert maria_id in ids(then["results"])
    assert all("graph" not in rows.get(memory_id, {}) for memory_id in library_ids)
    now = _graph_rows(await explained(client, user.headers, "retrieve", QUESTION, top_k=5))
    assert now[library_ids[-1]]["graph"] > 0  # the link reaches the library's hole now


async def test_a_memory_read_as_of_a_moment_is_that_version_with_its_feedback_then(
    client: TestClientProtocol, user: User
) -> None:
    story = await _story(client, user)
    path = f"/v1/memories/{story.alice_fixed}"
    before = await request_ok(
        client, "GET", path, user.headers, query_string={"as_of": story.corrected}
    )
    after = await request_ok(client, "GET", path, user.headers, query_string={"as_of": story.fed})
    now = await request_ok(client, "GET", path, user.headers)
    assert (before["feedback"]["useful"], after["feedback"]["useful"]) == (0, 1)
    assert stable(after) == stable(now)  # the same version: nothing changed it since
    old = f"/v1/memories/{story.alice}"
    as_stored = await request_ok(
        client, "GET", old, user.headers, query_string={"as_of": story.both}
    )
    assert (as_stored["content"], as_stored["is_active"], as_stored["superseded_by"]) == (
        ALICE,
        True,
        None,
    )
    superseded = await request_ok(client, "GET", old, user.headers)
    assert (superseded["is_active"], superseded["superseded_by"]) == (False, story.alice_fixed)
    response = await client.get(
        f"/v1/memories/{story.carol}", headers=user.headers, query_string={"as_of": story.fed}
    )
    assert "not found" in await error_detail(response, 404)  # stored later


async def test_the_history_as_of_a_moment_holds_the_versions_written_by_then(
    client: TestClientProtocol, user: User
) -> None:
    story = await _story(client, user)
    path = f"/v1/memories/{story.alice}/history"
    then = await request_ok(client, "GET", path, user.headers, query_string={"as_of": story.both})
    assert [(v["cause"], v["ended_seq"], v["snapshots"]) for v in then["versions"]] == [
        ("store", None, [])  # current then, and no snapshot held it yet
    ]
    corrected = await request_ok(
        client, "GET", path, user.headers, query_string={"as_of": story.corrected}
    )
    assert [(v["memory_id"], v["cause"]) for v in corrected["versions"]] == [
        (story.alice, "store"),
        (story.alice, "supersede"),
        (story.alice_fixed, "correct"),
    ]
    assert corrected["versions"][0]["snapshots"] == [SNAPSHOT]
    assert corrected["versions"][-1]["ended_seq"] is None  # the feedback came later
    now = await request_ok(client, "GET", path, user.headers)
    assert len(now["versions"]) == 4
    response = await client.get(
        path, headers=user.headers, query_string={"as_of": story.before_first}
    )
    assert "not found" in await error_detail(response, 404)


async def _answer(client: TestClientProtocol, route: str, story: Story, as_of: str) -> Any:
    """The response of a route to a read as of `as_of`."""
    headers, query_string = story.user.headers, {"as_of": as_of}
    if route == "list":
        return await client.get("/v1/memories", headers=headers, query_string=query_string)
    if route in ("get", "history"):
        path = f"/v1/memories/{story.alice}" + ("/history" if route == "history" else "")
        return await client.get(path, headers=headers, query_string=query_string)
    body: dict[str, Any] = {"as_of": as_of}
    if route == "query":
        body["memory_types"] = EVERY_TYPE
    else:
        body["query"] = NOTE
    return await client.post(f"/v1/memories/{route}", headers=headers, json=body)


ROUTE_NAMES = [
    "list",
    "get",
    "history",
    "query",
    "fulltext-search",
    "retrieve",
    "search",
]


@pytest.mark.parametrize("route", ROUTE_NAMES)
async def test_what_no_moment_or_snapshot_names_is_refused(
    client: TestClientProtocol, user: User, route: str
) -> None:
    story = await _story(client, user)
    unknown = await _answer(client, route, story, "no-such-snapshot")
    assert "snapshot no-such-snapshot not found" in await error_detail(unknown, 404)
    tomorrow = moment(datetime.now(UTC) + timedelta(days=1))
    assert "future" in await error_detail(await _answer(client, route, story, tomorrow), 422)
    nonsense = await _answer(client, route, story, "last tuesday!")
    assert "ISO 8601" in await error_detail(nonsense, 422)
    impossible = await _answer(client, route, story, "2024-02-30T00:00:00Z")
    assert "ISO 8601" in await error_detail(impossible, 422)


@pytest.mark.parametrize("route", ROUTE_NAMES)
async def test_a_moment_whose_history_was_collected_is_gone_and_the_retention_keeps_it(
    client: TestClientProtocol, user: User, registry: Registry, route: str
) -> None:
    story = await _story(client, user)
    await give_feedback(client, user.headers, story.carol, "useful", times=2)
    _stored, first_signal, _second = await _times(client, user, story.carol)
    kept = dataclasses.replace(registry, settings=make_settings(history_retention_days=30))
    await snapshots.collect_garbage(kept)
    assert (await _answer(client, route, story, first_signal)).status_code == 200
    # Without retention the version of Carol's note between the two signals goes, as no
    # snapshot holds it (garbage collection is one job for every user).
    await snapshots.collect_garbage(registry)
    gone = await _answer(client, route, story, first_signal)
    assert "no longer kept" in await error_detail(gone, 410)
    # A snapshot's state stays whole, and so does every state after what was collected.
    assert (await _answer(client, route, story, SNAPSHOT)).status_code == 200
    assert (await _answer(client, route, story, _second)).status_code == 200


async def test_a_snapshot_of_another_branch_is_refused_with_the_branch_to_name(
    client: TestClientProtocol, user: User
) -> None:
    await store(client, user.headers, ALICE)
    await create_branch(client, user.headers, "trial")
    await take_snapshot(client, user.headers, "on-trial", branch="trial")
    response = await client.get(
        "/v1/memories", headers=user.headers, query_string={"as_of": "on-trial"}
    )
    detail = await error_detail(response, 422)
    assert "branch trial" in detail and "branch main" in detail
    listed = await request_ok(
        client,
        "GET",
        "/v1/memories",
        user.headers,
        query_string={"as_of": "on-trial", "branch": "trial"},
    )
    assert [item["content"] for item in listed["items"]] == [ALICE]


async def test_a_branch_reads_as_of_its_own_history_and_not_before_it_was_made(
    client: TestClientProtocol, user: User
) -> None:
    kept = (await store(client, user.headers, ALICE))["memory_id"]
    dropped = (await store(client, user.headers, BOB))["memory_id"]
    [before_fork] = await _times(client, user, dropped)
    await create_branch(client, user.headers, "trial")
    added = (await store(client, user.headers, CAROL, branch="trial"))["memory_id"]
    await delete(client, user.headers, dropped, branch="trial")
    await correct(client, user.headers, kept, ALICE_FIXED)  # on main: the branch keeps its own
    on_trial = {"branch": "trial"}
    [carol_stored] = await _times(client, user, added, on_trial)
    deleted = (await _times(client, user, dropped, on_trial))[-1]
    read = READS["list"]
    now = moment(datetime.now(UTC))
    assert _contents(await read(client, user.headers, carol_stored, "trial")) == {
        ALICE,
        BOB,
        CAROL,
    }
    assert _contents(await read(client, user.headers, deleted, "trial")) == {ALICE, CAROL}
    assert _contents(await read(client, user.headers, now, "trial")) == {ALICE, CAROL}
    assert _contents(await read(client, user.headers, now, "main")) == {ALICE_FIXED, BOB}
    response = await client.get(
        "/v1/memories", headers=user.headers, query_string={"as_of": before_fork, **on_trial}
    )
    assert "did not exist yet" in await error_detail(response, 422)


def _contents(state: State) -> set[str]:
    return {memory["content"] for memory in state.values()}


async def test_pages_as_of_a_moment_follow_their_cursor(
    client: TestClientProtocol, user: User
) -> None:
    stored = [(await store(client, user.headers, f"Page note {n}"))["memory_id"] for n in range(9)]
    await take_snapshot(client, user.headers, "nine")
    for memory_id in stored[::2]:
        await delete(client, user.headers, memory_id)
    seen: list[str] = []
    cursor = None
    while True:
        args = {"as_of": "nine", "limit": 4, **({"cursor": cursor} if cursor else {})}
        page = await request_ok(client, "GET", "/v1/memories", user.headers, query_string=args)
        seen += [item["memory_id"] for item in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(stored, reverse=True)


async def test_a_read_as_of_a_moment_writes_nothing(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    story = await _story(client, user)
    count = (
        "MATCH (n) WHERE n.user_id = $user_id OR n.id = $user_id "
        "RETURN count(n) AS nodes, sum(coalesce(n.seq, 0)) AS seqs"
    )
    before = await query(neo4j_driver, count, user_id=user.user_id)
    for route in ("list", "get", "history", "query", "fulltext-search", "retrieve", "search"):
        for as_of in (story.corrected, SNAPSHOT, story.before_first):
            assert (await _answer(client, route, story, as_of)).status_code in (200, 404)
    assert await query(neo4j_driver, count, user_id=user.user_id) == before


async def test_observe_keeps_the_time_the_conversation_took_place(
    client: TestClientProtocol, user: User
) -> None:
    said = "2024-03-01T09:30:00+00:00"
    observed = await request_ok(
        client,
        "POST",
        "/v1/observe",
        user.headers,
        json={"messages": [{"role": "user", "content": "I moved to Lisbon"}], "observed_at": said},
    )
    [memory] = observed["memories"]
    assert datetime.fromisoformat(memory["observed_at"]) == datetime.fromisoformat(said)
