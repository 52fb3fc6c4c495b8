"""Property: the user's memory read as of any past moment is exactly what it was then.

Random histories of stores, corrections, deletions, feedback, snapshots, rollbacks, branches,
checkouts, branch merges and garbage collections (with the default history retention) run for a
fresh user per example, through HTTP but for garbage collection (the scheduler's job). After
every step the history is replayed into a record: the moment (the time of the user's last
change) and the state of every branch then, as the list shows it now (every page of
GET /v1/memories: which memories, their contents, their feedback counts, every field but the
decaying confidence); and for every snapshot taken, user or safety, the state it was taken of.

At the end, at moments hypothesis picks among those recorded, every read that takes `as_of`
(tests/support/as_of.READS: the list, the structured query, each memory by id, and retrieve)
must give for every branch that existed then exactly the recorded state, and each snapshot read
by name exactly what it was taken of; as of now, exactly the present. A reader added to READS
joins the property.

Neo4j times a change to the millisecond: a moment shared with the next change names that one
too, and is not asked.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver
from quart.typing import TestClientProtocol

from app.models.feedback import SIGNALS
from app.registry import Registry
from app.services.versioning import snapshots
from tests.conftest import create_user, make_settings
from tests.support.as_of import READS, State, moment, stable
from tests.support.neo4j_direct import query

pytestmark = pytest.mark.slow(0.5)

T = TypeVar("T")
Headers = dict[str, str]

TEXTS = (
    "Alice likes green tea",
    "Alice lives in Berlin",
    "Bob plays chess on Sundays",
    "The deploy script is make ship",
    "Carol is allergic to nuts",
    "Dan prefers aisle seats",
)
# More examples for a deeper search: VERSIONING_EXAMPLES=200 (as the snapshot property).
EXAMPLES = int(os.environ.get("VERSIONING_EXAMPLES", "10"))
FIXED = os.environ.get("VERSIONING_RANDOM") != "1"
MAX_USER_SNAPSHOTS = 20
MOMENTS_ASKED = 4  # moments read back per example, besides every snapshot and now

pick = st.integers(min_value=0, max_value=1_000)
target = st.one_of(st.none(), pick)  # None: the checked-out branch; else one named by index
operation = st.one_of(
    st.tuples(st.just("store"), st.integers(0, len(TEXTS) - 1), target),
    st.tuples(st.just("store"), st.integers(0, len(TEXTS) - 1), target),
    st.tuples(st.just("correct"), pick, st.integers(0, len(TEXTS) - 1), target),
    st.tuples(st.just("delete"), pick, target),
    st.tuples(st.just("feedback"), pick, st.sampled_from(SIGNALS)),
    st.tuples(st.just("feedback"), pick, st.sampled_from(SIGNALS)),
    st.tuples(st.just("snapshot"), target),
    st.tuples(st.just("rollback"), pick),
    st.tuples(st.just("branch"), st.booleans(), pick),
    st.tuples(st.just("checkout"), pick),
    st.tuples(st.just("merge"), pick, st.sampled_from(["append", "replace"])),
    st.tuples(st.just("collect_garbage")),
)


@dataclass(frozen=True)
class Moment:
    """The user's memory after a step: the seq and time of their last change, and the state of
    every branch then."""

    seq: int
    at: datetime
    states: dict[str, State]


@dataclass
class History:
    client: TestClientProtocol
    headers: Headers
    user_id: str
    registry: Registry
    driver: AsyncDriver
    active: str = "main"
    branches: list[str] = field(default_factory=lambda: ["main"])
    moments: list[Moment] = field(default_factory=list)
    snapshots: dict[str, tuple[str, State]] = field(default_factory=dict)  # name: branch, state
    known: set[str] = field(default_factory=set)  # every memory id the history made
    names: itertools.count[int] = field(default_factory=itertools.count)

    # HTTP and the record --------------------------------------------------------------------

    async def call(
        self, method: str, path: str, expect: tuple[int, ...] = (200,), **kwargs: Any
    ) -> Any:
        response = await self.client.open(path, method=method, headers=self.headers, **kwargs)
        text = await response.get_data(as_text=True)
        assert response.status_code in expect, f"{method} {path}: {response.status_code} {text}"
        return await response.get_json()

    async def state(self, branch: str) -> State:
        """The branch as it stands now: every page of the list."""
        found: State = {}
        cursor: str | None = None
        while True:
            args = {"branch": branch, "limit": 100, **({"cursor": cursor} if cursor else {})}
            page = await self.call("GET", "/v1/memories", query_string=args)
            found.update({memory["memory_id"]: stable(memory) for memory in page["items"]})
            cursor = page["next_cursor"]
            if cursor is None:
                return found

    async def record(self) -> None:
        """The moment after a step (a step that changed nothing leaves the last one)."""
        rows = await query(
            self.driver,
            "MATCH (c:Change {user_id: $user_id}) RETURN c.seq AS seq, c.at AS at "
            "ORDER BY c.seq DESC LIMIT 1",
            user_id=self.user_id,
        )
        if not rows or (self.moments and self.moments[-1].seq == rows[0]["seq"]):
            return
        states = {branch: await self.state(branch) for branch in self.branches}
        at = rows[0]["at"].to_native()
        self.moments.append(Moment(rows[0]["seq"], at, states))
        for state in states.values():
            self.known |= state.keys()

    def now(self, branch: str) -> State:
        return self.moments[-1].states[branch] if self.moments else {}

    def taken(self, name: str | None, branch: str, state: State) -> None:
        if name is not None:
            assert name not in self.snapshots
            self.snapshots[name] = (branch, state)

    def branch_of(self, choice: int | None) -> str | None:
        return None if choice is None else self.branches[choice % len(self.branches)]

    def one_of(self, branch: str, which: int) -> str | None:
        ids = sorted(self.now(branch))
        return ids[which % len(ids)] if ids else None

    @staticmethod
    def on(branch: str | None) -> dict[str, str]:
        return {"branch": branch} if branch else {}

    # Operations -----------------------------------------------------------------------------

    async def store(self, text: int, choice: int | None) -> None:
        body = {"content": TEXTS[text], **self.on(self.branch_of(choice))}
        await self.call("POST", "/v1/memories", (200, 201), json=body)

    async def correct(self, which: int, text: int, choice: int | None) -> None:
        branch = self.branch_of(choice)
        memory_id = self.one_of(branch or self.active, which)
        if memory_id is None:
            return
        body = {"new_content": TEXTS[text], **self.on(branch)}
        await self.call("PUT", f"/v1/memories/{memory_id}/correct", (200, 422), json=body)

    async def delete(self, which: int, choice: int | None) -> None:
        branch = self.branch_of(choice)
        where = branch or self.active
        memory_id = self.one_of(where, which)
        if memory_id is None:
            return
        before = self.now(where)
        done = await self.call("DELETE", f"/v1/memories/{memory_id}", query_string=self.on(branch))
        self.taken(done["snapshot_name"], where, before)

    async def feedback(self, which: int, signal: str) -> None:
        memory_id = self.one_of(self.active, which)
        if memory_id is not None:
            body = {"signal": signal}
            await self.call("POST", f"/v1/memories/{memory_id}/feedback", (201,), json=body)

    async def snapshot(self, choice: int | None) -> None:
        branch = self.branch_of(choice)
        users = sum(1 for name in self.snapshots if not name.startswith("pre_"))
        if users >= MAX_USER_SNAPSHOTS:
            return
        name = f"snap-{next(self.names)}"
        made = await self.call(
            "POST", "/v1/snapshots", (201,), json={"name": name, **self.on(branch)}
        )
        self.taken(name, made["branch"], self.now(made["branch"]))

    async def rollback(self, which: int) -> None:
        if not self.snapshots:
            return
        name = sorted(self.snapshots)[which % len(self.snapshots)]
        branch, _ = self.snapshots[name]
        done = await self.call("POST", f"/v1/snapshots/{name}/rollback")
        self.taken(done["safety_snapshot"], branch, self.now(branch))

    async def branch(self, from_snapshot: bool, which: int) -> None:
        name = f"br-{next(self.names)}"
        body: dict[str, Any] = {"name": name}
        if from_snapshot and self.snapshots:
            body["from_snapshot"] = sorted(self.snapshots)[which % len(self.snapshots)]
        await self.call("POST", "/v1/branches", (201,), json=body)
        self.branches.append(name)
        await self.checkout(len(self.branches) - 1)

    async def checkout(self, which: int) -> None:
        name = self.branches[which % len(self.branches)]
        await self.call("POST", f"/v1/branches/{name}/checkout")
        self.active = name

    async def merge(self, which: int, strategy: str) -> None:
        others = self.branches[1:]
        if others:
            name = others[which % len(others)]
            await self.call("POST", f"/v1/branches/{name}/merge", json={"strategy": strategy})

    async def collect_garbage(self) -> None:
        """With the default retention: history this young is kept whole."""
        kept = dataclasses.replace(self.registry, settings=make_settings(history_retention_days=30))
        await snapshots.collect_garbage(kept)

    # The property ---------------------------------------------------------------------------

    async def unambiguous(self) -> list[Moment]:
        """The moments whose time no later change shares (Neo4j times changes to the ms)."""
        rows = await query(
            self.driver,
            "MATCH (c:Change {user_id: $user_id}) RETURN c.seq AS seq, c.at AS at",
            user_id=self.user_id,
        )
        times = [(row["seq"], row["at"].to_native()) for row in rows]
        return [
            found
            for found in self.moments
            if not any(seq > found.seq and at <= found.at for seq, at in times)
        ]

    async def check(self, asked: list[int]) -> None:
        moments = await self.unambiguous()
        for chosen in sorted({index % len(moments) for index in asked} if moments else ()):
            found = moments[chosen]
            for branch, expected in found.states.items():
                await self.read_back(moment(found.at), branch, expected, f"seq {found.seq}")
        for name, (branch, expected) in self.snapshots.items():
            if await self.exists(name):  # the oldest safety snapshots are pruned
                await self.read_back(name, branch, expected, f"snapshot {name}")
        present = moment(datetime.now(UTC))
        for branch in self.branches:
            await self.read_back(present, branch, await self.state(branch), "now")

    async def read_back(self, as_of: str, branch: str, expected: State, where: str) -> None:
        for name, read in READS.items():
            found = await read(self.client, self.headers, as_of, branch, self.known)
            assert found.keys() == expected.keys(), (name, where, branch)
            for memory_id, memory in expected.items():
                differing = {
                    key: (found[memory_id].get(key), value)
                    for key, value in memory.items()
                    if found[memory_id].get(key) != value
                }
                assert not differing, f"{name} as of {where}, {memory_id} on {branch}: {differing}"

    async def exists(self, name: str) -> bool:
        response = await self.client.get(f"/v1/snapshots/{name}", headers=self.headers)
        return response.status_code == 200


async def _run(
    client: TestClientProtocol,
    registry: Registry,
    driver: AsyncDriver,
    ops: list[tuple[Any, ...]],
    asked: list[int],
) -> None:
    owner = await create_user(client, "as-of")
    history = History(client, owner.headers, owner.user_id, registry, driver)
    for step, op in enumerate(ops):
        kind, *args = op
        try:
            await getattr(history, kind)(*args)
            await history.record()
        except Exception as error:
            error.add_note(f"at step {step}: {op} (checked out: {history.active}) of {ops}")
            raise
    try:
        await history.check(asked)
    except Exception as error:
        error.add_note(f"after {ops}, asking moments {asked}")
        raise


async def test_a_read_as_of_any_moment_is_the_memory_as_it_was_then(
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
    @given(
        ops=st.lists(operation, min_size=8, max_size=24),
        asked=st.lists(pick, min_size=MOMENTS_ASKED, max_size=MOMENTS_ASKED),
    )
    def histories(ops: list[tuple[Any, ...]], asked: list[int]) -> None:
        on_loop(_run(client, registry, neo4j_driver, ops, asked))

    await asyncio.to_thread(histories)
