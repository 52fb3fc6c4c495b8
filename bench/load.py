"""Load: a mixed workload at rising concurrency against one service process.

One user is seeded with SEED memories (English and Chinese: preferences, releases, on-call,
tickets, procedures; through POST /v1/memories/batch, 100 a call). Then, for each concurrency
in turn (1, 2, 4, 8, 16, 32 by default), that many clients send requests back to back for a
fixed time (20 s by default), each picking its next operation at random:

- 70 % retrieve: POST /v1/memories/retrieve with a question in English or Chinese, numbered
  so that the query-embedding cache never answers it;
- 20 % store: POST /v1/memories with new content;
- 5 % batch: POST /v1/memories/batch with 10 new memories;
- 5 % correct or delete (half each): PUT /v1/memories/{id}/correct or DELETE /v1/memories/{id}
  of a memory no other request touches.

All requests act as the seeded user (the master key with X-User-Id: no rate limits), so every
write of a step queues for that user's change lock, as the writes of one agent would.

Per step it prints the throughput (completed requests per second of the step), p50 / p95 / p99
and the error count per operation; at the end a summary per concurrency and the concurrency
at which retrieve's p95 first passes 250 ms (or "not reached"). Figures are reported, not
asserted. A request still running when its step's time is up is waited for and counted.

    .venv/bin/python bench/load.py                       # ~5 min: own Neo4j (BENCH_NEO4J_*)
    BENCH_LOAD_STEP_S=10 BENCH_LOAD_CONCURRENCY=1,4,16 .venv/bin/python bench/load.py
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/load.py   # an existing database

Settings (environment): BENCH_LOAD_STEP_S (20), BENCH_LOAD_CONCURRENCY (1,2,4,8,16,32),
BENCH_LOAD_SEED (2000), BENCH_LOAD_P95_LIMIT_MS (250), BENCH_LOAD_QUIET_WAIT_S (30: how long
to wait for a quiet machine before measuring).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import common
import httpx

STEP_S = float(os.environ.get("BENCH_LOAD_STEP_S", "20"))
CONCURRENCY = [int(n) for n in os.environ.get("BENCH_LOAD_CONCURRENCY", "1,2,4,8,16,32").split(",")]
SEED = int(os.environ.get("BENCH_LOAD_SEED", "2000"))
P95_LIMIT_MS = float(os.environ.get("BENCH_LOAD_P95_LIMIT_MS", "250"))
QUIET_WAIT_S = float(os.environ.get("BENCH_LOAD_QUIET_WAIT_S", "30"))
WARMUP_REQUESTS = 40
REQUEST_TIMEOUT_S = 60.0
OPERATIONS = ("retrieve", "store", "batch", "correct", "delete")
MIX = (("retrieve", 0.70), ("store", 0.20), ("batch", 0.05), ("change", 0.05))

# ---------------------------------------------------------------------------------------------
# Texts: English and Chinese facts an agent would keep, and questions about them.

NAMES = ["Alice", "Bob", "Carmen", "Dmitri", "Emeka", "Fatima", "Goro", "Hana", "Ivan", "Jia"]
NAMES_ZH = ["张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄强", "周杰", "吴倩"]
PROJECTS = ["Orion", "Atlas", "Borealis", "Cobalt", "Delta", "Ember", "Falcon", "Gemini"]
PROJECTS_ZH = ["猎户座", "天马", "北极光", "钴蓝", "三角洲", "余烬", "猎鹰", "双子座"]
SERVICES = ["billing-api", "auth-service", "search-gateway", "ledger-db", "payments-worker"]
DRINKS = ["green tea", "espresso", "oat latte", "jasmine tea", "sparkling water"]
DRINKS_ZH = ["绿茶", "浓缩咖啡", "燕麦拿铁", "茉莉花茶", "气泡水"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
DAYS_ZH = ["周一", "周二", "周三", "周四", "周五"]
TOOLS = ["Grafana", "kubectl", "Terraform", "pgbench", "Sentry"]

FACTS_EN: list[Callable[[random.Random, int], str]] = [
    lambda r, n: (
        f"{r.choice(NAMES)} prefers {r.choice(DRINKS)} before the {n % 12 + 8} o'clock stand-up"
    ),
    lambda r, n: f"The {r.choice(PROJECTS)} release {n % 9}.{n % 7} moved to {r.choice(DAYS)}",
    lambda r, n: (
        f"{r.choice(NAMES)} owns the on-call rotation for {r.choice(SERVICES)} in week {n % 52 + 1}"
    ),
    lambda r, n: (
        f"Ticket INC-{n} reports p99 latency of {r.choice(SERVICES)} above {n % 900 + 100} ms"
    ),
    lambda r, n: (
        f"To rotate {r.choice(SERVICES)} keys use {r.choice(TOOLS)} runbook step {n % 20 + 1}"
    ),
    lambda r, n: (
        f"{r.choice(NAMES)} said the {r.choice(PROJECTS)} budget is {n % 90 + 10} thousand euros"
    ),
]
FACTS_ZH: list[Callable[[random.Random, int], str]] = [
    lambda r, n: f"{r.choice(NAMES_ZH)}每天早上{n % 4 + 7}点喝{r.choice(DRINKS_ZH)}",
    lambda r, n: f"{r.choice(PROJECTS_ZH)}项目的第{n % 30 + 1}版发布改到{r.choice(DAYS_ZH)}",
    lambda r, n: f"{r.choice(NAMES_ZH)}负责{r.choice(SERVICES)}第{n % 52 + 1}周的值班",
    lambda r, n: f"工单 INC-{n} 显示 {r.choice(SERVICES)} 的延迟超过 {n % 900 + 100} 毫秒",
    lambda r, n: f"{r.choice(NAMES_ZH)}说{r.choice(PROJECTS_ZH)}项目的预算是{n % 90 + 10}万元",
]
QUESTIONS: list[Callable[[random.Random, int], str]] = [
    lambda r, n: f"what does {r.choice(NAMES)} drink before the {n % 12 + 8} o'clock meeting?",
    lambda r, n: f"when does {r.choice(PROJECTS)} {n % 9}.{n % 7} ship?",
    lambda r, n: f"who is on call for {r.choice(SERVICES)} in week {n % 52 + 1}?",
    lambda r, n: f"is {r.choice(SERVICES)} slower than {n % 900 + 100} ms at p99?",
    lambda r, n: f"how do I rotate the {r.choice(SERVICES)} secrets (step {n % 20 + 1})?",
    lambda r, n: f"{r.choice(NAMES_ZH)}早上{n % 4 + 7}点喝什么",
    lambda r, n: f"{r.choice(PROJECTS_ZH)}第{n % 30 + 1}版什么时候发布",
    lambda r, n: f"{r.choice(SERVICES)} 第{n % 52 + 1}周谁值班",
]


class Texts:
    """Unique contents and fresh questions (a run id and a counter make each one new)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.run = uuid.uuid4().hex[:6]
        self.count = 0

    def fact(self) -> str:
        self.count += 1
        templates = FACTS_ZH if self.random.random() < 0.4 else FACTS_EN
        text = self.random.choice(templates)(self.random, self.count)
        return f"{text} (note {self.run}-{self.count})"

    def question(self) -> str:
        self.count += 1
        return f"{self.random.choice(QUESTIONS)(self.random, self.count)} #{self.count}"


# ---------------------------------------------------------------------------------------------
# The workload


@dataclass
class Step:
    concurrency: int
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)  # successes, in ms
    errors: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def record(self, operation: str, started: float, problem: str | None) -> None:
        if problem is None:
            elapsed_ms = (time.perf_counter() - started) * 1000
            self.latencies.setdefault(operation, []).append(elapsed_ms)
        else:
            self.errors[operation] = self.errors.get(operation, 0) + 1
            if len(self.problems) < 5:
                self.problems.append(f"{operation}: {problem}")

    @property
    def completed(self) -> int:
        return sum(map(len, self.latencies.values())) + sum(self.errors.values())

    def p95(self, operation: str) -> float:
        return common.percentile(self.latencies.get(operation, []), 95)


class Load:
    def __init__(self, http: httpx.AsyncClient, user_id: str, ids: list[str]) -> None:
        self.http = http
        self.headers = common.master_headers(user_id)
        self.texts = Texts(7)
        self.choice = random.Random(11)
        self.ids = ids  # memories no request touches yet, for correct and delete

    def operation(self) -> str:
        pick = self.choice.random()
        for name, share in MIX:
            if pick < share:
                return name if name != "change" else self.choice.choice(("correct", "delete"))
            pick -= share
        return "retrieve"

    async def send(self, operation: str, step: Step) -> None:
        started = time.perf_counter()
        try:
            response = await self._request(operation)
        except httpx.HTTPError as error:
            step.record(operation, started, repr(error))
            return
        if response.status_code >= 300:
            step.record(operation, started, f"{response.status_code} {response.text[:120]}")
            return
        step.record(operation, started, None)
        if operation == "correct":
            self.ids.append(response.json()["memory_id"])  # the correction can change again
        elif operation == "store":
            self.ids.append(response.json()["memory_id"])

    async def _request(self, operation: str) -> httpx.Response:
        if operation == "retrieve":
            body = {"query": self.texts.question(), "top_k": 10}
            return await self.http.post("/v1/memories/retrieve", json=body, headers=self.headers)
        if operation == "store":
            body = {"content": self.texts.fact()}
            return await self.http.post("/v1/memories", json=body, headers=self.headers)
        if operation == "batch":
            body = {"memories": [{"content": self.texts.fact()} for _ in range(10)]}
            return await self.http.post("/v1/memories/batch", json=body, headers=self.headers)
        memory_id = self.ids.pop(self.choice.randrange(len(self.ids)))
        if operation == "correct":
            body = {"new_content": self.texts.fact(), "reason": "load test"}
            return await self.http.put(
                f"/v1/memories/{memory_id}/correct", json=body, headers=self.headers
            )
        return await self.http.delete(f"/v1/memories/{memory_id}", headers=self.headers)

    async def step(self, concurrency: int, seconds: float) -> Step:
        step = Step(concurrency)
        started = time.perf_counter()
        deadline = started + seconds

        async def client() -> None:
            while time.perf_counter() < deadline:
                await self.send(self.operation(), step)

        await asyncio.gather(*(client() for _ in range(concurrency)))
        step.seconds = time.perf_counter() - started
        return step


async def seed(http: httpx.AsyncClient, user_id: str, count: int) -> list[str]:
    """Stores `count` memories for the user, 100 a call; their ids."""
    texts = Texts(3)
    headers = common.master_headers(user_id)
    ids: list[str] = []
    started = time.perf_counter()
    while len(ids) < count:
        size = min(100, count - len(ids))
        body = {"memories": [{"content": texts.fact()} for _ in range(size)]}
        response = await http.post("/v1/memories/batch", json=body, headers=headers)
        response.raise_for_status()
        ids += [memory["memory_id"] for memory in response.json()]
    common.log(f"seeded {len(ids)} memories in {time.perf_counter() - started:.1f}s")
    return ids


# ---------------------------------------------------------------------------------------------
# Report


def step_table(step: Step) -> str:
    rows = []
    for operation in OPERATIONS:
        done = step.latencies.get(operation, [])
        errors = step.errors.get(operation, 0)
        if not done and not errors:
            continue
        rows.append(
            [
                operation,
                len(done) + errors,
                errors,
                *(f"{common.percentile(done, q):.1f}" for q in (50, 95, 99)),
            ]
        )
    title = (
        f"concurrency {step.concurrency}: {step.completed} requests in {step.seconds:.1f}s = "
        f"{step.completed / step.seconds:.1f} req/s; {common.load_line('after the step')}"
    )
    headers = ["operation", "requests", "errors", "p50 ms", "p95 ms", "p99 ms"]
    text = common.table(title, headers, rows)
    if step.problems:
        text += "\nfirst errors: " + "; ".join(step.problems)
    return text


def summary(steps: list[Step]) -> str:
    rows = [
        [
            step.concurrency,
            f"{step.completed / step.seconds:.1f}",
            f"{step.p95('retrieve'):.1f}",
            f"{step.p95('store'):.1f}",
            sum(step.errors.values()),
        ]
        for step in steps
    ]
    headers = ["concurrency", "req/s", "retrieve p95 ms", "store p95 ms", "errors"]
    text = common.table("Summary", headers, rows)
    passed = next((s.concurrency for s in steps if s.p95("retrieve") > P95_LIMIT_MS), None)
    verdict = f"at concurrency {passed}" if passed is not None else "not reached"
    return text + f"\nretrieve p95 first passes {P95_LIMIT_MS:.0f} ms: {verdict}"


# ---------------------------------------------------------------------------------------------


async def run(url: str) -> None:
    user_id = f"bench-load-{uuid.uuid4().hex[:8]}"
    limits = httpx.Limits(max_connections=max(CONCURRENCY) + 4)
    async with httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT_S, limits=limits) as http:
        ids = await seed(http, user_id, SEED)
        load = Load(http, user_id, ids)
        common.log(f"warm-up: {WARMUP_REQUESTS} requests")
        warm = Step(0)
        for _ in range(WARMUP_REQUESTS):
            await load.send(load.operation(), warm)
        common.wait_for_quiet(max_wait_s=QUIET_WAIT_S)
        print(common.code_state())
        print(
            f"workload: 70 % retrieve, 20 % store, 5 % batch of 10, 5 % correct or delete; one "
            f"user with {SEED} seeded memories; {STEP_S:.0f} s per step"
        )
        print(common.load_line("before the steps"))
        steps = []
        for concurrency in CONCURRENCY:
            common.log(f"concurrency {concurrency} for {STEP_S:.0f}s")
            step = await load.step(concurrency, STEP_S)
            steps.append(step)
            print(step_table(step), flush=True)
        print(summary(steps))


def main() -> None:
    started = time.perf_counter()
    with (
        common.neo4j_database(heap="1g", pagecache="512m") as database,
        common.service_process(database.uri) as service,
    ):
        asyncio.run(run(service.base_url))
    common.log(f"done in {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
