"""Property: every snapshot rolls back to exactly the state it recorded, and diffs exactly.

Random sequences of stores, corrections, deletions, purges, snapshots, rollbacks, branch
checkouts and merges run through HTTP for a fresh user per example. A model records the visible
state of a branch (GET /v1/memories, every page) whenever a snapshot of it is taken, user or
safety; after every step each snapshot's diff must list exactly the changes between what it
recorded and the branch's state now, and every rollback must restore the recorded state
exactly (every field but the decaying `confidence`).

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

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart.typing import TestClientProtocol

from tests.conftest import create_user

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

pick = st.integers(min_value=0, max_value=1_000)
target = st.one_of(st.none(), pick)  # None: the checked-out branch; else one named by index
item = st.tuples(st.integers(0, len(TEXTS) - 1), st.sampled_from(TYPES), st.sampled_from(SESSIONS))
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
    st.tuples(st.just("snapshot"), target),
    st.tuples(st.just("snapshot"), target),
    st.tuples(st.just("rollback"), pick, st.booleans()),
    st.tuples(st.just("rollback"), pick, st.booleans()),
    st.tuples(st.just("branch"), st.booleans(), pick),
    st.tuples(st.just("checkout"), pick),
    st.tuples(st.just("merge"), pick, st.sampled_from(["append", "replace"])),
)


def _stable(memory: Memory) -> Memory:
    return {key: value for key, value in memory.items() if key != "confidence"}


def _visible(memory: Memory) -> tuple[Any, ...]:
    return tuple(memory.get(key) for key in COMPARED)


def _rebranched(state: State, branch: str) -> State:
    return {memory_id: {**memory, "branch": branch} for memory_id, memory in state.items()}


def _without(state: State, keys: tuple[str, ...]) -> State:
    return {
        memory_id: {key: value for key, value in memory.items() if key not in keys}
        for memory_id, memory in state.items()
    }


@dataclass
class Recorded:
    branch: str
    kind: str
    state: State


@dataclass
class Model:
    client: TestClientProtocol
    headers: Headers
    active: str = "main"
    branches: list[str] = field(default_factory=lambda: ["main"])
    observed: dict[str, State] = field(default_factory=lambda: {"main": {}})
    snapshots: dict[str, Recorded] = field(default_factory=dict)
    names: itertools.count[int] = field(default_factory=itertools.count)
    page_size: int = 7

    # HTTP ---------------------------------------------------------------------------------

    async def call(
        self, method: str, path: str, expect: tuple[int, ...] = (200,), **kwargs: Any
    ) -> Any:
        response = await self.client.open(path, method=method, headers=self.headers, **kwargs)
        text = await response.get_data(as_text=True)
        assert response.status_code in expect, f"{method} {path}: {response.status_code} {text}"
        return await response.get_json()

    async def state(self, branch: str) -> State:
        """The visible memories of a branch, every page of GET /v1/memories."""
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
        return found

    # Helpers ------------------------------------------------------------------------------

    def branch_of(self, choice: int | None) -> str | None:
        return None if choice is None else self.branches[choice % len(self.branches)]

    def ids(self, branch: str) -> list[str]:
        return sorted(self.observed[branch])

    def record_safety(self, name: str, branch: str, prefix: str) -> None:
        assert name.startswith(f"pre_{prefix}_"), name
        assert name not in self.snapshots
        self.snapshots[name] = Recorded(branch, "safety", dict(self.observed[branch]))

    async def expect_state(self, branch: str, expected: State) -> None:
        actual = await self.state(branch)
        assert set(actual) == set(expected), (branch, set(actual) ^ set(expected))
        for memory_id, memory in expected.items():
            assert actual[memory_id] == memory, (memory_id, actual[memory_id], memory)

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
        assert after.keys() == before.keys() | {stored["memory_id"]}
        if stored["memory_id"] in before:  # an exact duplicate returns the existing memory
            assert after == before
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
        stored = (await self.call("POST", "/v1/memories/batch", (201,), json=body))["memories"]
        where = branch or self.active
        before = self.observed[where]
        after = await self.state(where)
        assert after.keys() == before.keys() | {memory["memory_id"] for memory in stored}
        for memory in stored:
            assert after[memory["memory_id"]]["content"] == memory["content"]
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
        if self.observed[where][memory_id]["content"] == TEXTS[text]:
            await self.call("PUT", f"/v1/memories/{memory_id}/correct", (422,), json=body)
            return
        corrected = await self.call("PUT", f"/v1/memories/{memory_id}/correct", json=body)
        before = self.observed[where]
        after = await self.state(where)
        assert after.keys() == (before.keys() - {memory_id}) | {corrected["memory_id"]}
        assert after[corrected["memory_id"]]["content"] == TEXTS[text]
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
        after = await self.state(where)
        assert after.keys() == self.observed[where].keys() - {memory_id}
        self.observed[where] = after

    async def purge(self, selector: dict[str, Any], choice: int | None) -> None:
        branch = self.branch_of(choice)
        where = branch or self.active
        before = self.observed[where]
        matched = {
            memory_id
            for memory_id, memory in before.items()
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
        assert after == {k: v for k, v in before.items() if k not in matched}
        self.observed[where] = after

    async def purge_ids(self, picks: list[int], choice: int | None) -> None:
        where = self.branch_of(choice) or self.active
        ids = self.ids(where)
        chosen = sorted({ids[which % len(ids)] for which in picks}) if ids else ["f" * 32]
        await self.purge({"memory_ids": chosen}, choice)

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
        outcome = await self.call("POST", f"/v1/snapshots/{name}/rollback")
        assert outcome["branch"] == recorded.branch
        self.record_safety(outcome["safety_snapshot"], recorded.branch, "rollback")
        await self.expect_state(recorded.branch, recorded.state)
        self.observed[recorded.branch] = dict(recorded.state)

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
        assert created["memory_count"] == len(expected)
        self.branches.append(name)
        self.observed[name] = await self.state(name)
        assert self.observed[name] == _rebranched(expected, name)
        await self.checkout(len(self.branches) - 1)

    async def checkout(self, which: int) -> None:
        name = self.branches[which % len(self.branches)]
        await self.call("POST", f"/v1/branches/{name}/checkout")
        self.active = name
        listed = await self.call("GET", "/v1/branches")
        assert listed["active_branch"] == name
        assert {item["name"] for item in listed["branches"]} == set(self.branches)

    async def merge(self, which: int, strategy: str) -> None:
        others = self.branches[1:]
        if not others:
            await self.call("POST", "/v1/branches/none/merge", (404,), json={"strategy": strategy})
            return
        name = others[which % len(others)]
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
        expected = {k: v for k, v in before.items() if not (replace and k in removed)}
        expected.update(_rebranched({k: source[k] for k in brought}, "main"))
        after = await self.state("main")
        ignore = ("updated_at", "feedback")
        assert _without(after, ignore) == _without(expected, ignore)
        self.observed["main"] = after

        again = await self.call("POST", f"/v1/branches/{name}/merge", json={"strategy": strategy})
        assert (again["added"], again["replaced"], again["removed"]) == (0, 0, 0)
        assert await self.state("main") == after

    # Checks after every step --------------------------------------------------------------

    async def check(self) -> None:
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
        then, now = recorded.state, self.observed[recorded.branch]
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


async def _run(client: TestClientProtocol, ops: list[tuple[Any, ...]]) -> None:
    owner = await create_user(client, "prop")
    model = Model(client, owner.headers, page_size=5 + len(ops) % 4)
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
            error.add_note(f"at step {step}: {op} (checked out: {model.active})")
            raise


async def test_snapshots_roll_back_and_diff_exactly(client: TestClientProtocol) -> None:
    loop = asyncio.get_running_loop()

    def on_loop(coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=600)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(ops=st.lists(operation, min_size=5, max_size=25))
    def sequences(ops: list[tuple[Any, ...]]) -> None:
        on_loop(_run(client, ops))

    await asyncio.to_thread(sequences)
