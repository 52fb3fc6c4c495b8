"""Property: every snapshot rolls back to exactly the state it recorded, links included.

Random sequences of stores, corrections, deletions, purges, feedback, link changes, snapshots,
rollbacks, branches, checkouts, merges and garbage collections run for a fresh user per example,
through HTTP except garbage collection (the scheduler's job) and link changes of types no
endpoint makes yet (MENTIONS to entities, CONTRADICTS, DERIVED_FROM,
SUPERSEDES, IN_SESSION, feedback's ON), which call the versioned write path (`versions.link`,
`versions.unlink`). A model records the visible state of a branch whenever a snapshot of it is
taken, user or safety: its memories (GET /v1/memories, every page) and the links each owns, read
straight from Neo4j (the outgoing relationships of its current node and the inbound ones from
nodes that are not memories, each as type, direction and the other end's identity, with its
properties).

After every step the links of every visible memory must be exactly what the step implies, no
current memory may link a past version or another branch, and each snapshot's diff must list
exactly the changes between what it recorded and the branch's state now. Every rollback must
restore the recorded state exactly (every field but the decaying `confidence`, and the feedback
counters, which are not rolled back), every fork must copy its source's state with its links,
and every merge must bring links over as `Model.merge` says.

Hypothesis drives the examples from a worker thread; each step runs on the session's event loop
(where the app and its Neo4j driver live), so shrinking works as usual.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.graph import Tx
from app.models.feedback import SIGNALS
from app.registry import Registry
from app.services.entities.extractor import extract
from app.services.versioning import snapshots, versions
from app.services.versioning.versions import Link
from tests.conftest import create_user
from tests.support.memory_links import (
    LinkId,
    Links,
    Props,
    current_nodes,
    node_id,
    props_of,
    stray_memory_links,
)

pytestmark = pytest.mark.slow(0.5)

T = TypeVar("T")
Headers = dict[str, str]
Memory = dict[str, Any]
State = dict[str, Memory]  # memory_id -> memory as listed, without `confidence`

TEXTS = (
    "Alice likes green tea",
    "Alice lives in Berlin",
    "Bob plays chess on Sundays",
    "The deploy script is make ship",
    "Carol is allergic to nuts",
    "The build server is slow today",
    "Dan prefers aisle seats",
    "Eve's birthday is in June",
    "The API key rotates monthly",
    "Frank speaks Portuguese",
)
TYPES = ("semantic", "profile", "working")
SESSIONS = (None, "s1", "s2")
# What a diff compares: a memory as a user sees it, not bookkeeping such as updated_at.
COMPARED = (
    "content",
    "memory_type",
    "session_id",
    "subject_id",
    "trust_tier",
    "initial_confidence",
    "is_active",
    "superseded_by",
    "observed_at",
    "extra_metadata",
)
MAX_USER_SNAPSHOTS = 20
# More examples for a deeper search: VERSIONING_EXAMPLES=200.
EXAMPLES = int(os.environ.get("VERSIONING_EXAMPLES", "20"))
# The same sequences on every run (as the fuzzing's seed): CI fails only when the code changes,
# and the test's time does not swing with the sizes drawn (50 to 115 s on one worker when they
# were drawn anew each run). VERSIONING_RANDOM=1 draws new ones.
FIXED = os.environ.get("VERSIONING_RANDOM") != "1"

# Links the sequences make: to entities (with a property), between memories of one branch, to
# sessions (as stores with a session do, and others), and from feedback records.
ENTITIES = ("green tea", "berlin", "chess", "deploys")
MENTION_SOURCES = ("manual", "auto")
LINKED_SESSIONS = ("s1", "s2", "s3")
MEMORY_LINKS = ("CONTRADICTS", "DERIVED_FROM", "SUPERSEDES")
LINK_KINDS = ("MENTIONS", *MEMORY_LINKS, "IN_SESSION", "ON")
# A link no memory ever has: unlinking it removes nothing (but still versions the memory).
NOT_A_LINK = LinkId("MENTIONS", False, "Entity", "nobody")

pick = st.integers(min_value=0, max_value=1_000)
target = st.one_of(st.none(), pick)  # None: the checked-out branch; else one named by index
item = st.tuples(st.integers(0, len(TEXTS) - 1), st.sampled_from(TYPES), st.sampled_from(SESSIONS))
new_link = st.tuples(pick, st.sampled_from(LINK_KINDS), pick)  # owner, kind, other end
old_link = st.tuples(pick, pick)  # owner, which of its links (or one it lacks)


def relink() -> st.SearchStrategy[tuple[Any, ...]]:
    """A link change; a new strategy each call, as one_of counts equal alternatives once."""
    return st.tuples(
        st.just("relink"),
        st.lists(new_link, min_size=1, max_size=4),
        st.lists(old_link, max_size=2),
        target,
    )


operation = st.one_of(
    st.tuples(st.just("store"), item, target),
    st.tuples(st.just("store"), item, target),
    st.tuples(st.just("batch"), st.lists(item, min_size=1, max_size=4), target),
    st.tuples(st.just("correct"), pick, st.integers(0, len(TEXTS) - 1), target),
    st.tuples(st.just("delete"), pick, target),
    st.tuples(
        st.just("purge_types"),
        st.lists(st.sampled_from(TYPES), min_size=1, max_size=2, unique=True),
        target,
    ),
    st.tuples(st.just("purge_ids"), st.lists(pick, min_size=1, max_size=3), target),
    st.tuples(st.just("purge_session"), st.sampled_from(["s1", "s2"]), target),
    st.tuples(st.just("feedback"), pick, st.sampled_from(SIGNALS)),
    relink(),
    relink(),
    relink(),
    st.tuples(st.just("snapshot"), target),
    st.tuples(st.just("snapshot"), target),
    st.tuples(st.just("rollback"), pick, st.booleans()),
    st.tuples(st.just("rollback"), pick, st.booleans()),
    st.tuples(st.just("branch"), st.booleans(), pick),
    st.tuples(st.just("checkout"), pick),
    st.tuples(st.just("merge"), pick, st.sampled_from(["append", "replace"])),
    st.tuples(st.just("collect_garbage")),
)


def _stable(memory: Memory) -> Memory:
    return {key: value for key, value in memory.items() if key != "confidence"}


def _visible(memory: Memory) -> tuple[Any, ...]:
    return tuple(memory.get(key) for key in COMPARED)


def _rebranched(state: State, branch: str) -> State:
    return {memory_id: {**memory, "branch": branch} for memory_id, memory in state.items()}


def _born_links(memory: Memory) -> Links:
    """The links a new memory starts with: its session's, if it has one, and the entities its
    text mentions (extracted on every write)."""
    session = memory["session_id"]
    links: Links = {LinkId("IN_SESSION", False, "Session", session): ()} if session else {}
    for mention in extract(memory["content"]):
        props = props_of({"source": "auto", "negated": mention.negated})
        links[LinkId("MENTIONS", False, "Entity", mention.key)] = props
    return links


def _reaching(links: Links, memory_ids: set[str]) -> Links:
    """The links, less those to memories other than `memory_ids`."""
    return {
        link: props
        for link, props in links.items()
        if link.label != "Memory" or link.key in memory_ids
    }


def _directed(links: Links, inbound: bool) -> Links:
    """The inbound links, or the outgoing ones."""
    return {link: props for link, props in links.items() if link.inbound == inbound}


def _assert_memories(
    where: str, actual: State, expected: State, ignored: tuple[str, ...] = ()
) -> None:
    """The memories expected are shown, with the fields expected (but those `ignored`)."""
    assert actual.keys() == expected.keys(), (where, actual.keys() ^ expected.keys())
    for memory_id in sorted(expected):
        have, want = actual[memory_id], expected[memory_id]
        differing = {
            key: (have.get(key), want.get(key))
            for key in (have.keys() | want.keys()) - set(ignored)
            if have.get(key) != want.get(key)
        }
        assert not differing, f"{memory_id} on {where}, field: (actual, expected): {differing}"


def _assert_links(where: str, actual: dict[str, Links], expected: dict[str, Links]) -> None:
    """Every visible memory has exactly the links expected, properties included."""
    assert actual.keys() == expected.keys(), (where, actual.keys() ^ expected.keys())
    for memory_id in sorted(expected):
        have, want = actual[memory_id], expected[memory_id]
        missing = {link: props for link, props in want.items() if have.get(link) != props}
        unexpected = {link: props for link, props in have.items() if want.get(link) != props}
        assert not missing and not unexpected, (
            f"links of {memory_id} on {where}: missing {missing}, unexpected {unexpected}"
        )


@dataclass(frozen=True)
class Observed:
    """A branch's visible state: its memories and the links each owns (never edited)."""

    memories: State
    links: dict[str, Links]  # memory_id -> its links

    def less(self, memory_ids: set[str]) -> dict[str, Links]:
        return {key: links for key, links in self.links.items() if key not in memory_ids}


@dataclass
class Recorded:
    branch: str
    kind: str
    state: Observed


@dataclass
class Model:
    client: TestClientProtocol
    headers: Headers
    user_id: str
    registry: Registry
    driver: AsyncDriver
    active: str = "main"
    branches: list[str] = field(default_factory=lambda: ["main"])
    observed: dict[str, Observed] = field(default_factory=lambda: {"main": Observed({}, {})})
    snapshots: dict[str, Recorded] = field(default_factory=dict)
    names: itertools.count[int] = field(default_factory=itertools.count)
    page_size: int = 7

    # HTTP and Neo4j -----------------------------------------------------------------------

    async def call(
        self, method: str, path: str, expect: tuple[int, ...] = (200,), **kwargs: Any
    ) -> Any:
        response = await self.client.open(path, method=method, headers=self.headers, **kwargs)
        text = await response.get_data(as_text=True)
        assert response.status_code in expect, f"{method} {path}: {response.status_code} {text}"
        return await response.get_json()

    async def state(self, branch: str) -> Observed:
        """The visible memories of a branch (every page of GET /v1/memories), with the links
        each owns (read from Neo4j)."""
        found: State = {}
        order: list[str] = []
        cursor: str | None = None
        while True:
            query: dict[str, Any] = {"branch": branch, "limit": self.page_size}
            if cursor:
                query["cursor"] = cursor
            page = await self.call("GET", "/v1/memories", query_string=query)
            for memory in page["items"]:
                assert memory["memory_id"] not in found, "a memory listed twice"
                assert memory["branch"] == branch
                assert memory["is_active"] is True
                assert memory["retrieval_score"] is None
                found[memory["memory_id"]] = _stable(memory)
                order.append(memory["memory_id"])
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert order == sorted(order, reverse=True), "the list is newest first"
        nodes = await current_nodes(self.driver, self.user_id, branch)
        links = {memory_id: node.links for memory_id, node in nodes.items() if node.active}
        assert links.keys() == found.keys(), "the list shows every active current node"
        return Observed(found, links)

    async def change_links(
        self, branch: str, removed: list[Link], added: list[Link]
    ) -> tuple[int, int]:
        """Unlinks, then links, as one change; returns both counts."""

        async def work(tx: Tx) -> tuple[int, int]:
            seq = await versions.open_change(tx, self.user_id, branch, versions.Why("link"))
            unlinked = await versions.unlink(tx, seq, self.user_id, branch, removed)
            return unlinked, await versions.link(tx, seq, self.user_id, branch, added)

        return await self.registry.graph.transaction(work)

    async def as_link(self, owner: str, link: LinkId, props: Props = ()) -> Link:
        if link.label == "Memory":
            return Link(owner, link.type, target_memory_id=link.key, props=dict(props))
        element_id = await node_id(self.driver, self.user_id, link.label, link.key)
        return Link(
            owner, link.type, target_node=element_id, inbound=link.inbound, props=dict(props)
        )

    # Helpers ------------------------------------------------------------------------------

    def branch_of(self, choice: int | None) -> str | None:
        return None if choice is None else self.branches[choice % len(self.branches)]

    def ids(self, branch: str) -> list[str]:
        return sorted(self.observed[branch].memories)

    def record_safety(self, name: str, branch: str, prefix: str) -> None:
        assert name.startswith(f"pre_{prefix}_"), name
        assert name not in self.snapshots
        self.snapshots[name] = Recorded(branch, "safety", self.observed[branch])

    def new_link(
        self, ids: list[str], owner_pick: int, kind: str, other: int
    ) -> tuple[str, LinkId, Props] | None:
        """A link of `kind` from one of `ids`; None when no other memory is there to link."""
        owner = ids[owner_pick % len(ids)]
        if kind == "MENTIONS":
            source = MENTION_SOURCES[other // len(ENTITIES) % len(MENTION_SOURCES)]
            entity = ENTITIES[other % len(ENTITIES)]
            return owner, LinkId(kind, False, "Entity", entity), props_of({"source": source})
        if kind in MEMORY_LINKS:
            others = [memory_id for memory_id in ids if memory_id != owner]
            if not others:
                return None
            return owner, LinkId(kind, False, "Memory", others[other % len(others)]), ()
        if kind == "IN_SESSION":
            session = LINKED_SESSIONS[other % len(LINKED_SESSIONS)]
            return owner, LinkId(kind, False, "Session", session), ()
        # ON: a feedback record of its own, unique across users (feedback_id is unique).
        feedback_id = f"{self.user_id}-feedback-{next(self.names)}"
        return owner, LinkId(kind, True, "Feedback", feedback_id), ()

    # Operations ---------------------------------------------------------------------------

    async def store(self, spec: tuple[int, str, str | None], choice: int | None) -> None:
        text, memory_type, session = spec
        branch = self.branch_of(choice)
        body: dict[str, Any] = {"content": TEXTS[text], "memory_type": memory_type}
        if session:
            body["session_id"] = session
        if branch:
            body["branch"] = branch
        stored = await self.call("POST", "/v1/memories", (200, 201), json=body)
        where = branch or self.active
        assert stored["branch"] == where
        before = self.observed[where]
        after = await self.state(where)
        assert after.memories.keys() == before.memories.keys() | {stored["memory_id"]}
        if stored["memory_id"] in before.memories:  # an exact duplicate returns the existing one
            assert after == before
        else:
            born = {stored["memory_id"]: _born_links(stored)}
            _assert_links(where, after.links, {**before.links, **born})
        self.observed[where] = after

    async def batch(self, specs: list[tuple[int, str, str | None]], choice: int | None) -> None:
        branch = self.branch_of(choice)
        items = [
            {"content": TEXTS[text], "memory_type": memory_type, "session_id": session}
            for text, memory_type, session in specs
        ]
        body: dict[str, Any] = {"memories": items}
        if branch:
            body["branch"] = branch
        stored = await self.call("POST", "/v1/memories/batch", (201,), json=body)
        where = branch or self.active
        before = self.observed[where]
        after = await self.state(where)
        assert after.memories.keys() == before.memories.keys() | {
            memory["memory_id"] for memory in stored
        }
        for memory in stored:
            assert after.memories[memory["memory_id"]]["content"] == memory["content"]
        new = after.memories.keys() - before.memories.keys()
        born = {memory_id: _born_links(after.memories[memory_id]) for memory_id in new}
        _assert_links(where, after.links, {**before.links, **born})
        self.observed[where] = after

    async def correct(self, which: int, text: int, choice: int | None) -> None:
        branch = self.branch_of(choice)
        where = branch or self.active
        ids = self.ids(where)
        body: dict[str, Any] = {"new_content": TEXTS[text], "reason": "property test"}
        if branch:
            body["branch"] = branch
        if not ids:
            await self.call("PUT", f"/v1/memories/{'0' * 32}/correct", (404,), json=body)
            return
        memory_id = ids[which % len(ids)]
        before = self.observed[where]
        if before.memories[memory_id]["content"] == TEXTS[text]:
            await self.call("PUT", f"/v1/memories/{memory_id}/correct", (422,), json=body)
            return
        corrected = await self.call("PUT", f"/v1/memories/{memory_id}/correct", json=body)
        after = await self.state(where)
        new_id = corrected["memory_id"]
        assert after.memories.keys() == (before.memories.keys() - {memory_id}) | {new_id}
        assert after.memories[new_id]["content"] == TEXTS[text]
        # The correction starts afresh (as its feedback counters do), unless an active memory
        # says the same already and stands for it; either way it supersedes the old one.
        kept = before.links.get(new_id, _born_links(corrected))
        supersedes = {LinkId("SUPERSEDES", False, "Memory", memory_id): ()}
        expected = {**before.less({memory_id}), new_id: {**kept, **supersedes}}
        _assert_links(where, after.links, expected)
        self.observed[where] = after

    async def delete(self, which: int, choice: int | None) -> None:
        branch = self.branch_of(choice)
        where = branch or self.active
        ids = self.ids(where)
        query = {"branch": branch} if branch else {}
        if not ids:
            await self.call("DELETE", f"/v1/memories/{'0' * 32}", (404,), query_string=query)
            return
        memory_id = ids[which % len(ids)]
        deleted = await self.call("DELETE", f"/v1/memories/{memory_id}", query_string=query)
        self.record_safety(deleted["snapshot_name"], where, "delete")
        before = self.observed[where]
        after = await self.state(where)
        assert after.memories.keys() == before.memories.keys() - {memory_id}
        _assert_links(where, after.links, before.less({memory_id}))
        self.observed[where] = after

    async def purge(self, selector: dict[str, Any], choice: int | None) -> None:
        branch = self.branch_of(choice)
        where = branch or self.active
        before = self.observed[where]
        matched = {
            memory_id
            for memory_id, memory in before.memories.items()
            if ("memory_ids" not in selector or memory_id in selector["memory_ids"])
            and (
                "memory_types" not in selector or memory["memory_type"] in selector["memory_types"]
            )
            and ("session_id" not in selector or memory["session_id"] == selector["session_id"])
        }
        body = {**selector, **({"branch": branch} if branch else {})}
        purged = await self.call("POST", "/v1/memories/purge", json=body)
        assert purged["purged"] == len(matched)
        self.record_safety(purged["snapshot_name"], where, "purge")
        after = await self.state(where)
        kept = {k: v for k, v in before.memories.items() if k not in matched}
        _assert_memories(where, after.memories, kept)
        _assert_links(where, after.links, before.less(matched))
        self.observed[where] = after

    async def purge_ids(self, picks: list[int], choice: int | None) -> None:
        where = self.branch_of(choice) or self.active
        ids = self.ids(where)
        chosen = sorted({ids[which % len(ids)] for which in picks}) if ids else ["f" * 32]
        await self.purge({"memory_ids": chosen}, choice)

    async def feedback(self, which: int, signal: str) -> None:
        """A signal through HTTP, on the checked-out branch: a new version of the memory with
        one more in its counter and an inbound ON link from the feedback record."""
        ids = self.ids(self.active)
        body = {"signal": signal}
        if not ids:
            await self.call("POST", f"/v1/memories/{'0' * 32}/feedback", (404,), json=body)
            return
        memory_id = ids[which % len(ids)]
        given = await self.call("POST", f"/v1/memories/{memory_id}/feedback", (201,), json=body)
        before = self.observed[self.active]
        after = await self.state(self.active)
        memory = before.memories[memory_id]
        counted = {**memory["feedback"], signal: memory["feedback"][signal] + 1}
        expected_memories = {**before.memories, memory_id: {**memory, "feedback": counted}}
        _assert_memories(self.active, after.memories, expected_memories, ignored=("updated_at",))
        record = LinkId("ON", True, "Feedback", given["feedback_id"])
        expected = {**before.links, memory_id: {**before.links[memory_id], record: ()}}
        _assert_links(self.active, after.links, expected)
        self.observed[self.active] = after

    async def relink(
        self,
        additions: list[tuple[int, str, int]],
        removals: list[tuple[int, int]],
        choice: int | None,
    ) -> None:
        """Removes links memories have (or one they lack), then adds links, as one change of
        the branch; a link named twice counts once, with the properties named last."""
        where = self.branch_of(choice) or self.active
        before = self.observed[where]
        ids = self.ids(where)
        if not ids:
            return
        expected = {memory_id: dict(links) for memory_id, links in before.links.items()}
        removed: dict[tuple[str, LinkId], None] = {}  # in order, once each
        for owner_pick, link_pick in removals:
            owner = ids[owner_pick % len(ids)]
            candidates = [*sorted(before.links[owner]), NOT_A_LINK]
            removed[owner, candidates[link_pick % len(candidates)]] = None
        present = [(owner, link) for owner, link in removed if link in expected[owner]]
        for owner, link in removed:
            expected[owner].pop(link, None)
        added: dict[tuple[str, LinkId], Props] = {}
        for spec in additions:
            made = self.new_link(ids, *spec)
            if made is not None:
                owner, link, props = made
                added[owner, link] = props
        for (owner, link), props in added.items():
            # Adding a link a memory has already sets the named properties on it.
            expected[owner][link] = props_of({**dict(expected[owner].get(link, ())), **dict(props)})
        unlinked, linked = await self.change_links(
            where,
            [await self.as_link(owner, link) for owner, link in removed],
            [await self.as_link(owner, link, props) for (owner, link), props in added.items()],
        )
        assert (unlinked, linked) == (len(present), len(added))
        after = await self.state(where)
        # Each memory named gets a new version: only its updated_at tells.
        _assert_memories(where, after.memories, before.memories, ignored=("updated_at",))
        _assert_links(where, after.links, expected)
        self.observed[where] = after

    async def snapshot(self, choice: int | None) -> None:
        branch = self.branch_of(choice)
        where = branch or self.active
        name = f"snap-{next(self.names)}"
        body = {"name": name, **({"branch": branch} if branch else {})}
        users = sum(1 for recorded in self.snapshots.values() if recorded.kind == "user")
        if users >= MAX_USER_SNAPSHOTS:
            await self.call("POST", "/v1/snapshots", (409,), json=body)
            return
        created = await self.call("POST", "/v1/snapshots", (201,), json=body)
        assert (created["branch"], created["kind"]) == (where, "user")
        state = await self.state(where)
        assert state == self.observed[where]
        self.snapshots[name] = Recorded(where, "user", state)

    async def rollback(self, which: int, prefer_safety: bool) -> None:
        if not self.snapshots:
            await self.call("POST", "/v1/snapshots/none/rollback", (404,))
            return
        safety = [name for name, rec in self.snapshots.items() if rec.kind == "safety"]
        names = safety if prefer_safety and safety else sorted(self.snapshots)
        name = names[which % len(names)]
        recorded = self.snapshots[name]
        # Feedback counters are not rolled back: a memory keeps the counts its current node has
        # now, shown or not; one without a current node (an earlier rollback went back to before
        # it) gets those of the version restored, as recorded.
        counts = {
            memory_id: node.feedback
            for memory_id, node in (
                await current_nodes(self.driver, self.user_id, recorded.branch)
            ).items()
        }
        outcome = await self.call("POST", f"/v1/snapshots/{name}/rollback")
        assert outcome["branch"] == recorded.branch
        self.record_safety(outcome["safety_snapshot"], recorded.branch, "rollback")
        after = await self.state(recorded.branch)
        where = f"{recorded.branch} rolled back to {name}"
        assert after.memories.keys() == recorded.state.memories.keys(), where
        expected = {
            memory_id: {
                **memory,
                "feedback": counts.get(memory_id, memory["feedback"]),
            }
            for memory_id, memory in recorded.state.memories.items()
        }
        _assert_memories(where, after.memories, expected)
        _assert_links(where, after.links, recorded.state.links)
        self.observed[recorded.branch] = after

    async def branch(self, from_snapshot: bool, which: int) -> None:
        name = f"br-{next(self.names)}"
        body: dict[str, Any] = {"name": name}
        if from_snapshot and self.snapshots:
            source = sorted(self.snapshots)[which % len(self.snapshots)]
            body["from_snapshot"] = source
            expected = self.snapshots[source].state
        else:
            expected = self.observed["main"]
        created = await self.call("POST", "/v1/branches", (201,), json=body)
        assert created["memory_count"] == len(expected.memories)
        self.branches.append(name)
        after = await self.state(name)
        where = f"{name}, forked"
        _assert_memories(where, after.memories, _rebranched(expected.memories, name))
        # Links to other memories now join the branch's copies of them.
        _assert_links(where, after.links, expected.links)
        self.observed[name] = after
        await self.checkout(len(self.branches) - 1)

    async def checkout(self, which: int) -> None:
        name = self.branches[which % len(self.branches)]
        await self.call("POST", f"/v1/branches/{name}/checkout")
        self.active = name
        listed = await self.call("GET", "/v1/branches")
        assert listed["active_branch"] == name
        assert {item["name"] for item in listed["branches"]} == set(self.branches)

    async def merge(self, which: int, strategy: str) -> None:
        """A memory the merge adds to main arrives with the links it owns on the branch; one a
        `replace` replaces takes the branch's outgoing links and keeps its own inbound ones on
        main (feedback stays per branch, as the counters do); links to memories main lacks are
        dropped; memories the merge does not touch keep their links."""
        others = self.branches[1:]
        if not others:
            await self.call("POST", "/v1/branches/none/merge", (404,), json={"strategy": strategy})
            return
        name = others[which % len(others)]
        main_nodes = await current_nodes(self.driver, self.user_id, "main")
        preview = await self.call("GET", f"/v1/branches/{name}/diff")
        merged = await self.call("POST", f"/v1/branches/{name}/merge", json={"strategy": strategy})
        added = {memory["memory_id"] for memory in preview["added"]}
        modified = {memory["memory_id"] for memory in preview["modified"]}
        removed = {memory["memory_id"] for memory in preview["removed"]}
        assert merged["added"] == len(added)
        replace = strategy == "replace"
        assert merged["replaced"] == (len(modified) if replace else 0)
        assert merged["removed"] == (len(removed) if replace else 0)

        before, source = self.observed["main"], self.observed[name]
        brought = added | (modified if replace else set())
        expected = {k: v for k, v in before.memories.items() if not (replace and k in removed)}
        expected.update(_rebranched({k: source.memories[k] for k in brought}, "main"))
        after = await self.state("main")
        where = f"main, {name} merged ({strategy})"
        _assert_memories(where, after.memories, expected, ignored=("updated_at", "feedback"))

        on_main = main_nodes.keys() | added
        links = before.less(removed if replace else set())
        for memory_id in added:
            links[memory_id] = _reaching(source.links[memory_id], on_main)
        for memory_id in modified if replace else ():
            outgoing = _directed(_reaching(source.links[memory_id], on_main), inbound=False)
            links[memory_id] = {**outgoing, **_directed(main_nodes[memory_id].links, inbound=True)}
        _assert_links(where, after.links, links)
        self.observed["main"] = after

        again = await self.call("POST", f"/v1/branches/{name}/merge", json={"strategy": strategy})
        assert (again["added"], again["replaced"], again["removed"]) == (0, 0, 0)
        assert await self.state("main") == after

    async def collect_garbage(self) -> None:
        """Past versions no snapshot can see go (every user's): nothing visible changes, and
        later diffs and rollbacks find what they need."""
        await snapshots.collect_garbage(self.registry)
        for branch in self.branches:
            assert await self.state(branch) == self.observed[branch], branch

    # Checks after every step --------------------------------------------------------------

    async def check(self) -> None:
        stray = await stray_memory_links(self.driver, self.user_id)
        assert not stray, f"current memories link past versions or other branches: {stray}"
        listed = {item["name"]: item for item in await self.call("GET", "/v1/snapshots")}
        for name in set(self.snapshots) - set(listed):
            assert self.snapshots[name].kind == "safety", f"user snapshot {name} vanished"
            del self.snapshots[name]
        assert set(listed) == set(self.snapshots)
        for name, recorded in self.snapshots.items():
            assert (listed[name]["branch"], listed[name]["kind"]) == (
                recorded.branch,
                recorded.kind,
            )
            await self.check_diff(name, recorded)

    async def check_diff(self, name: str, recorded: Recorded) -> None:
        then, now = recorded.state.memories, self.observed[recorded.branch].memories
        diff = await self.call("GET", f"/v1/snapshots/{name}/diff", query_string={"limit": 1000})
        assert diff["truncated"] is False
        added = {memory["memory_id"]: memory for memory in diff["added"]}
        removed = {memory["memory_id"]: memory for memory in diff["removed"]}
        modified = {change["memory_id"]: change for change in diff["modified"]}
        assert set(added) == now.keys() - then.keys(), name
        assert set(removed) == then.keys() - now.keys(), name
        assert set(modified) == {
            memory_id
            for memory_id in then.keys() & now.keys()
            if _visible(then[memory_id]) != _visible(now[memory_id])
        }, name
        for memory_id, memory in added.items():
            assert memory["content"] == now[memory_id]["content"]
        for memory_id, memory in removed.items():
            assert memory["content"] == then[memory_id]["content"]
        for memory_id, change in modified.items():
            assert change["before"]["content"] == then[memory_id]["content"]
            assert change["after"]["content"] == now[memory_id]["content"]
        assert diff["counts"] == {
            "added": len(added),
            "removed": len(removed),
            "modified": len(modified),
        }


async def _run(
    client: TestClientProtocol,
    registry: Registry,
    driver: AsyncDriver,
    ops: list[tuple[Any, ...]],
) -> None:
    owner = await create_user(client, "prop")
    model = Model(
        client, owner.headers, owner.user_id, registry, driver, page_size=5 + len(ops) % 4
    )
    for step, op in enumerate(ops):
        kind, *args = op
        try:
            if kind == "purge_types":
                await model.purge({"memory_types": args[0]}, args[1])
            elif kind == "purge_session":
                await model.purge({"session_id": args[0]}, args[1])
            else:
                await getattr(model, kind)(*args)
            await model.check()
        except Exception as error:
            error.add_note(f"at step {step}: {op} (checked out: {model.active}) of {ops}")
            raise


async def test_snapshots_roll_back_and_diff_exactly(
    client: TestClientProtocol, registry: Registry, neo4j_driver: AsyncDriver
) -> None:
    loop = asyncio.get_running_loop()

    def on_loop(coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=600)

    @settings(
        max_examples=EXAMPLES,
        derandomize=FIXED,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    # Long enough that branches fill up with linked memories before they are forked and merged.
    @given(ops=st.lists(operation, min_size=10, max_size=30))
    def sequences(ops: list[tuple[Any, ...]]) -> None:
        on_loop(_run(client, registry, neo4j_driver, ops))

    await asyncio.to_thread(sequences)
