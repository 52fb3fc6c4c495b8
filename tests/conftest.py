"""Shared fixtures: one real Neo4j per test process, one embedding model, one app, users.

Under pytest-xdist (scripts/test.sh runs the suite on several workers) every worker has a Neo4j
of its own: the first the one at NEO4J_URI, the others those scripts/test.sh started for them
(or, run without it, one each starts on free ports as it is imported): much of what tests
change is global to a database
(plugin activation, the stats /admin counts, garbage collection, governance and autotune runs
over every user, the vector and full-text indexes, Neo4j's plan cache), so each worker's tests
see a database that only they use, in order, as in a run without workers. See docs/testing.md.
"""

from __future__ import annotations

import atexit
import os
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver, AsyncGraphDatabase
from quart import Quart
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.config import Settings
from app.embedding import Embedder, embedder_for
from app.graph import Graph
from app.ratelimit import RateLimiter
from app.registry import Registry
from tests.support.machine import REPO
from tests.support.neo4j_server import Neo4jServer

MASTER_KEY = "test-master-key-0123456789abcdef"
STARTUP_TIMEOUT_S = 600  # a guard: how long a test waits for an app or a service process to start
# What tests set the service's time limits to (a retrieve's graph walk, an LLM call, the
# retries of a write that met a deadlock), so that they never race one, and how long their
# clients wait for an answer: a busy machine does not reach it (the graph walk's default, 1 s,
# and the retries', 5 s, it does). A test of a limit sets its own, and holds back what should
# run out of time.
PATIENT_S = 300.0
WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # "gw0", "gw1", ... in pytest-xdist's workers


def _own_database() -> Neo4jServer | None:
    """Every xdist worker but the first: a Neo4j of its own, the one scripts/test.sh started
    for it (TEST_NEO4J_GWN="BOLT HTTP DIR", N >= 1), else one it starts in the background while
    it collects its tests (the `database` fixture waits for it). The environment then names
    it, for this process and the service processes it starts."""
    if WORKER is None or WORKER == "gw0":
        return None
    prepared = Neo4jServer.prepared(f"TEST_NEO4J_{WORKER.upper()}")
    if prepared is not None:  # started, and removed at the end, by scripts/test.sh
        _name_database(prepared)
        return None
    server = Neo4jServer.on_free_ports(REPO / "var" / "test-workers" / WORKER)
    server.remove()  # what a run that was killed may have left there
    server.heap = os.environ.get("NEO4J_HEAP", "768m")
    _name_database(server)
    atexit.register(server.remove)
    return server


def _name_database(server: Neo4jServer) -> None:
    """Names the worker's Neo4j to this process and the service processes it starts."""
    os.environ.update(
        NEO4J_URI=server.uri,
        TEST_NEO4J_BOLT_PORT=str(server.bolt_port),
        TEST_NEO4J_HTTP_PORT=str(server.http_port),
        TEST_NEO4J_DIR=str(server.directory),
    )


OWN_DATABASE = _own_database()
NEO4J_URI = os.environ.get("NEO4J_URI", "bolt://127.0.0.1:27687")
_starting: list[BaseException] = []


def _start_own_database() -> None:
    assert OWN_DATABASE is not None
    try:
        OWN_DATABASE.start()
    except BaseException as error:  # reported by the `database` fixture
        _starting.append(error)


_starter = threading.Thread(target=_start_own_database, daemon=True) if OWN_DATABASE else None
if _starter is not None:
    _starter.start()


@pytest.fixture(scope="session", autouse=True)
def database() -> Iterator[str]:
    """The URI of this process's Neo4j, once it answers (a worker's own is removed after)."""
    if _starter is not None:
        _starter.join()
        if _starting:
            raise _starting[0]
    yield NEO4J_URI
    if OWN_DATABASE is not None:
        OWN_DATABASE.remove()


def make_settings(**overrides: Any) -> Settings:
    """The settings of a test app: no scheduler, no task worker and no watch for restarts of
    the database (nothing runs behind the tests' back), no time limit a busy machine hits, and
    no history retention (garbage collection takes at once what no snapshot needs; a test of
    the retention sets its own)."""
    values: dict[str, Any] = {
        "master_key": MASTER_KEY,
        "neo4j_uri": NEO4J_URI,
        "scheduler_enabled": False,
        "task_worker_enabled": False,
        "warm_check_s": 3600.0,
        "graph_time_limit_s": PATIENT_S,
        "embedding_timeout_s": PATIENT_S,
        "neo4j_retry_s": PATIENT_S,
        "instance_id": "test-instance",
        "history_retention_days": 0.0,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The configured model (EMBEDDING_MODEL, the default when unset), loaded once."""
    return embedder_for(make_settings())


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def app(embedder: Embedder) -> AsyncIterator[Quart]:
    service = create_app(make_settings(), embedder=embedder)
    # A brand-new database takes a while to migrate on a small machine.
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


@pytest.fixture
def client(app: Quart) -> TestClientProtocol:
    return app.test_client()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def graph() -> AsyncIterator[Graph]:
    gateway = Graph.connect(NEO4J_URI, "", "", "neo4j")
    yield gateway
    await gateway.close()


@pytest.fixture(scope="session")
def registry(graph: Graph, embedder: Embedder) -> Registry:
    """What use cases receive, around the shared gateway: for calling them without HTTP."""
    return Registry(
        settings=make_settings(),
        graph=graph,
        embedder=embedder,
        limiter=RateLimiter(enabled=False),
        instance_id="test-instance",
    )


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def neo4j_driver() -> AsyncIterator[AsyncDriver]:
    """A plain driver on the test database, bypassing the service: to inspect what it stored."""
    driver = AsyncGraphDatabase.driver(NEO4J_URI, auth=None, notifications_min_severity="OFF")
    yield driver
    await driver.close()


MASTER = {"Authorization": f"Bearer {MASTER_KEY}"}


@dataclass
class User:
    """A fresh user with one API key; `headers` authenticate as them."""

    user_id: str
    key_id: str
    raw_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.raw_key}"}


async def create_user(client: TestClientProtocol, prefix: str = "user") -> User:
    user_id = f"{prefix}-{uuid.uuid4().hex[:12]}"
    response = await client.post(
        "/auth/keys", json={"user_id": user_id, "name": "test"}, headers=MASTER
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    body = await response.get_json()
    return User(user_id=user_id, key_id=body["key_id"], raw_key=body["raw_key"])


@pytest_asyncio.fixture(loop_scope="session")
async def user(client: TestClientProtocol) -> User:
    return await create_user(client)


@pytest_asyncio.fixture(loop_scope="session")
async def other_user(client: TestClientProtocol) -> User:
    return await create_user(client, "other")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules marked `slow(minutes)` first, the slowest first, so that pytest-xdist hands
    them out first, to different workers, and the run does not end waiting for one of them;
    the modules marked `drops_plans` last, so that few statements run after them on their
    worker's database and have Neo4j plan them again (a stable sort: the order of the others
    stays)."""

    def order(item: pytest.Item) -> tuple[bool, float]:
        slow = item.get_closest_marker("slow")
        minutes = float(slow.args[0]) if slow is not None else 0.0
        return item.get_closest_marker("drops_plans") is not None, -minutes

    items.sort(key=order)
