"""The Neo4j gateway: the one async driver, named Cypher files, reads, writes and transactions.

A named statement receives its parameters as the fields of one map, `$p`. Neo4j caches a plan
per query text and per shape of its top-level parameters, a string's length and a list's size
included, so with top-level parameters each statement was planned again (20-90 ms) for every
new length of user id and number of items; the fields of one map are not part of that key.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC
from pathlib import Path
from typing import Any, TypeVar

import neo4j
from neo4j import (
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncTransaction,
)
from neo4j import exceptions as neo4j_errors
from neo4j.time import Date, DateTime, Duration
from neo4j.vector import Vector, VectorDType

from app import metrics
from app.errors import Unavailable, database_unavailable

log = logging.getLogger(__name__)

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
T = TypeVar("T")
Row = dict[str, Any]
# A named statement's runner, inside a transaction (Tx.run) or on its own (Graph.read).
Statement = Callable[..., Awaitable[list[Row]]]

# What an outage looks like to the driver, once its retries (max_transaction_retry_time) are
# spent: no server, a dropped connection, a database shutting down or still starting, no
# connection to be had in time. Each becomes 503 + Retry-After, never 500.
# A read's tries: a second one on a fresh connection when the first found its connection dead.
READ_ATTEMPTS = 2
UNAVAILABLE_ERRORS = (
    neo4j_errors.ServiceUnavailable,
    neo4j_errors.SessionExpired,
    neo4j_errors.DatabaseUnavailable,
    neo4j_errors.ConnectionAcquisitionTimeoutError,
    OSError,
)


def load_queries(directory: Path = CYPHER_DIR) -> dict[str, str]:
    """Every cypher/<resource>/<verb>.cypher file, keyed as "<resource>/<verb>"."""
    return {
        path.relative_to(directory).with_suffix("").as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(directory.rglob("*.cypher"))
    }


PackedVector = Vector  # an embedding as packed_vector makes it


def packed_vector(values: Sequence[float]) -> PackedVector:
    """An embedding as a query parameter: a packed float32 vector (Bolt 6).

    The driver formats every statement's parameters with repr() for its debug log even while
    that log is off: a batch's 100 embeddings as lists of floats cost 20 ms of the event loop,
    as packed vectors 1 ms. Statements store it as a list (toFloatList), which is what the
    vector index reads in every store format.
    """
    return Vector(values, VectorDType.F32)


PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def to_plain(value: Any) -> Any:
    """Neo4j values as plain Python: temporal types become datetime/date, nodes dicts."""
    kind = type(value)
    if kind in PLAIN_TYPES:  # most values: answered before any isinstance check
        return value
    # Maps and lists, the other values rows hold, before the isinstance checks (those against
    # abstract classes cost a retrieve's 80 candidates 0.3 ms each); of plain values, no copy.
    if kind is dict:
        for item in value.values():
            if type(item) not in PLAIN_TYPES:
                return {key: to_plain(item) for key, item in value.items()}
        return value
    if kind is list:
        for item in value:
            if type(item) not in PLAIN_TYPES:
                return [to_plain(item) for item in value]
        return value
    if isinstance(value, DateTime):
        # Always a fixed UTC offset: a named zone written back would print as "...Z[UTC]".
        native = value.to_native()
        return native.astimezone(UTC) if native.tzinfo is not None else native
    if isinstance(value, Date):
        return value.to_native()
    if isinstance(value, Duration):
        return value.seconds
    if isinstance(value, neo4j.graph.Node | neo4j.graph.Relationship):
        return {key: to_plain(item) for key, item in dict(value).items()}
    if isinstance(value, Mapping):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_plain(item) for item in value]
    return value


def _as_p(params: Mapping[str, Any]) -> dict[str, Any]:
    """A named statement's parameters as it takes them: the fields of one map, `$p`."""
    return {"p": params}


async def _run(
    run: Callable[..., Awaitable[neo4j.AsyncResult]],
    name: str,
    query: str | neo4j.Query,
    params: Mapping[str, Any],
) -> list[Row]:
    """The rows of one named statement (`run`: a transaction's or a session's), its time
    recorded."""
    started = time.perf_counter()
    rows = await _rows(await run(query, _as_p(params)))
    metrics.STATEMENT_SECONDS.labels(name).observe(time.perf_counter() - started)
    return rows


async def _rows(result: neo4j.AsyncResult) -> list[Row]:
    return [
        dict(zip(record.keys(), map(to_plain, record.values()), strict=True))
        async for record in result
    ]


def plan_summary(plan: Mapping[str, Any]) -> dict[str, Any]:
    """An executed plan as operators with their rows and database hits."""
    children = [plan_summary(child) for child in plan.get("children", [])]
    return {
        "operator": plan.get("operatorType"),
        "details": (plan.get("args") or {}).get("Details"),
        "rows": plan.get("rows"),
        "db_hits": plan.get("dbHits"),
        "total_db_hits": (plan.get("dbHits") or 0)
        + sum(child["total_db_hits"] for child in children),
        "children": children,
    }


INDEX_RETRY_AFTER_S = 30


def _unavailable() -> Unavailable:
    """The domain error for an outage, counted, and the outage recorded until a call succeeds."""
    metrics.NEO4J_ERRORS.inc()
    metrics.NEO4J_AVAILABLE.set(0)
    return database_unavailable()


INDEX_NOT_FOUND = "Neo.ClientError.Schema.IndexNotFound"


def index_rebuilding() -> Unavailable:
    """A statement that searches an index that is not there: it is being rebuilt (the vector
    index during `memory-service reembed`'s switch). 503 until it is back."""
    return Unavailable(
        "a search index is being rebuilt (a change of embedding model): retry shortly",
        retry_after_s=INDEX_RETRY_AFTER_S,
    )


def _available() -> None:
    metrics.NEO4J_AVAILABLE.set(1)


class Tx:
    """A write transaction in progress: runs named queries inside it."""

    def __init__(
        self, tx: AsyncManagedTransaction | AsyncTransaction, queries: Mapping[str, str]
    ) -> None:
        self._tx = tx
        self._queries = queries

    async def run(self, query_name: str, /, **params: Any) -> list[Row]:
        return await _run(self._tx.run, query_name, self._queries[query_name], params)


class Graph:
    """Reads, writes and transactions over named Cypher statements."""

    def __init__(self, driver: neo4j.AsyncDriver, database: str, queries: Mapping[str, str]):
        self._driver = driver
        self._database = database
        self._queries = queries

    @classmethod
    def connect(
        cls, uri: str, user: str, password: str, database: str, retry_s: float = 5.0
    ) -> Graph:
        """A gateway over a new driver; a write transaction is retried for up to `retry_s`."""
        auth = (user, password) if user else None
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            connection_acquisition_timeout=10.0,
            connection_timeout=5.0,
            max_transaction_retry_time=retry_s,
            notifications_min_severity="OFF",
        )
        return cls(driver, database, load_queries())

    @property
    def query_names(self) -> frozenset[str]:
        """The names of the statements this gateway can run ("<resource>/<verb>")."""
        return frozenset(self._queries)

    async def read(self, query_name: str, /, **params: Any) -> list[Row]:
        """Runs one named read-only statement."""
        return await self._read(query_name, self._queries[query_name], params, READ_ATTEMPTS)

    async def read_within(
        self, query_name: str, time_limit_s: float, /, **params: Any
    ) -> list[Row] | None:
        """Runs one named read-only statement that the server stops after `time_limit_s`;
        None when it did (for optional work that must not hold a request up)."""
        query = neo4j.Query(self._queries[query_name], timeout=time_limit_s)
        try:
            return await self._read(query_name, query, params, READ_ATTEMPTS)
        except neo4j_errors.ClientError as error:
            if "TransactionTimedOut" in (error.code or ""):
                return None
            raise

    async def write(self, query_name: str, /, **params: Any) -> list[Row]:
        """Runs one named statement in its own write transaction."""
        return await self.transaction(lambda tx: tx.run(query_name, **params))

    async def transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Runs `work` in one write transaction, retried on transient errors."""

        async def unit(tx: AsyncManagedTransaction) -> T:
            return await work(Tx(tx, self._queries))

        try:
            async with self._driver.session(database=self._database) as session:
                done = await session.execute_write(unit)
        except UNAVAILABLE_ERRORS as error:
            raise _unavailable() from error
        _available()
        return done

    async def rehearse(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Runs `work` in a write transaction that is rolled back: the server plans its
        statements (at startup, before the first request needs them) and nothing changes."""
        try:
            async with self._driver.session(database=self._database) as session:
                tx = await session.begin_transaction()
                try:
                    return await work(Tx(tx, self._queries))
                finally:
                    await tx.rollback()
        except UNAVAILABLE_ERRORS as error:
            raise _unavailable() from error

    async def profile(self, query_name: str, /, **params: Any) -> tuple[list[Row], dict[str, Any]]:
        """Runs one named read statement under PROFILE: its rows and its executed plan."""
        query = "PROFILE " + self._queries[query_name]
        try:
            async with self._driver.session(database=self._database) as session:
                result = await session.run(query, _as_p(params))
                rows = await _rows(result)
                summary = await result.consume()
        except UNAVAILABLE_ERRORS as error:
            raise _unavailable() from error
        return rows, plan_summary(summary.profile or {})

    async def run_schema(self, statement: str) -> None:
        """Runs one schema statement (migrations) in an auto-commit transaction."""
        try:
            async with self._driver.session(database=self._database) as session:
                result = await session.run(statement)
                await result.consume()
        except UNAVAILABLE_ERRORS as error:
            raise _unavailable() from error

    async def probe(self, query_name: str, /, **params: Any) -> list[Row] | None:
        """Runs one named read-only statement once, for a poll: no retries (an outage raises
        Unavailable at once, without the driver's warnings), and None when the server refuses
        the statement (a procedure it does not offer, or does not let this user call)."""
        try:
            return await self._read(query_name, self._queries[query_name], params, attempts=1)
        except neo4j_errors.ClientError as error:
            log.info("%s is refused by the server: %s", query_name, error.message)
            return None

    async def _read(
        self, name: str, query: str | neo4j.Query, params: Mapping[str, Any], attempts: int
    ) -> list[Row]:
        """One read-only statement as an auto-commit transaction: its RUN and PULL go out
        together, where a managed transaction adds a BEGIN and a COMMIT, 0.7 ms of the event
        loop's time per statement (a retrieve reads three or four times). A read is tried again
        on another connection when its connection turns out dead (the server closed the pooled
        one when it restarted) or the server answers with a transient error (which the driver
        retries for managed transactions, not for these); an outage raises Unavailable."""
        attempt = 1
        while True:
            try:
                async with self._driver.session(
                    database=self._database, default_access_mode=neo4j.READ_ACCESS
                ) as session:
                    rows = await _run(session.run, name, query, params)
            except (
                *UNAVAILABLE_ERRORS,
                neo4j_errors.TransientError,
                neo4j_errors.DriverError,
            ) as error:
                if attempt >= attempts:
                    raise _unavailable() from error
                attempt += 1
                continue
            except neo4j_errors.ClientError as error:
                if error.code == INDEX_NOT_FOUND:
                    raise index_rebuilding() from error
                raise
            _available()
            return rows

    async def close(self) -> None:
        await self._driver.close()
