"""Applies migrations/V*__*.cypher in order, once, checksummed, safely from several instances."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from neo4j import exceptions as neo4j_errors

from app import leases
from app.graph import Graph

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
FILE_PATTERN = re.compile(r"^V(\d{4})__([a-z0-9_]+)\.cypher$")
LEASE = "migrations"
LEASE_TTL_S = 120.0


class MigrationError(RuntimeError):
    """The migrations on disk disagree with those recorded in the database."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: list[str]
    checksum: str


def split_statements(text: str) -> list[str]:
    """Statements of a migration file: separated by ';' at the end of a line, comments dropped."""
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    return [part.strip() for part in re.split(r";\s*(?:\n|$)", code) if part.strip()]


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Migration files in version order; a misnamed file or a repeated version is an error."""
    found: list[Migration] = []
    for path in sorted(directory.glob("*.cypher")):
        match = FILE_PATTERN.match(path.name)
        if not match:
            raise MigrationError(f"migration file name not of the form V0001__name: {path.name}")
        text = path.read_text(encoding="utf-8")
        found.append(
            Migration(
                version=int(match.group(1)),
                name=match.group(2),
                statements=split_statements(text),
                checksum=hashlib.sha256(text.encode()).hexdigest(),
            )
        )
    versions = [migration.version for migration in found]
    if len(set(versions)) != len(versions):
        raise MigrationError("two migration files share a version")
    return found


async def _bootstrap(graph: Graph) -> None:
    # Two instances creating the same constraint at once may see a transient conflict: retry.
    for attempt in range(10):
        try:
            await graph.write("migrations/lease_constraint")
            await graph.write("migrations/migration_constraint")
            return
        except neo4j_errors.Neo4jError:
            if attempt == 9:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))


async def _wait_for_lease(graph: Graph, holder: str) -> None:
    # Another instance is migrating: poll its lease (it lives in Neo4j, not in this process).
    for _ in range(int(LEASE_TTL_S * 8)):
        if await leases.acquire(graph, LEASE, holder, LEASE_TTL_S):
            return
        await asyncio.sleep(0.25)
    raise MigrationError("another instance held the migrations lease for too long")


async def apply(graph: Graph, migrations: list[Migration] | None = None) -> list[int]:
    """Applies what is not applied yet under the migrations lease; returns the versions applied."""
    available = discover() if migrations is None else migrations
    await _bootstrap(graph)
    holder = f"migrator-{uuid.uuid4().hex}"
    await _wait_for_lease(graph, holder)
    try:
        applied = {row["version"]: row for row in await graph.read("migrations/applied")}
        done: list[int] = []
        for migration in available:
            recorded = applied.get(migration.version)
            if recorded is not None:
                if recorded["checksum"] != migration.checksum:
                    raise MigrationError(
                        f"migration V{migration.version:04d} changed after it was applied"
                    )
                continue
            for statement in migration.statements:
                await graph.run_schema(statement)
            await graph.write(
                "migrations/record",
                version=migration.version,
                name=migration.name,
                checksum=migration.checksum,
            )
            log.info("applied migration V%04d %s", migration.version, migration.name)
            done.append(migration.version)
        return done
    finally:
        await leases.release(graph, LEASE, holder)


# The vector indexes (cypher/schema/create_vector_index and create_version_vector_index, which
# also say why their vectors are whole), with the properties a search filters on inside each:
# of current memories, and of past versions, for retrieval as of a past moment (the versions
# alive at a seq: created by then, ended after it).
CURRENT_VECTORS = "memory_embedding"
CURRENT_FILTERS = frozenset({"user_id", "branch", "is_active", "created_seq", "memory_type"})
VERSION_VECTORS = "memory_version_embedding"
VERSION_FILTERS = CURRENT_FILTERS | {"ended_seq"}


async def ensure_vector_index(graph: Graph, dimensions: int) -> None:
    """Creates the memory vector indexes (of current memories and of past versions) for the
    model's dimension, or recreates one made before a filter property joined it or with
    quantized vectors (the index is rebuilt from the nodes); a mismatch of dimensions stops
    startup."""
    current = await _needed(graph, CURRENT_VECTORS, CURRENT_FILTERS, dimensions)
    if current == "recreate":
        await graph.write("schema/drop_vector_index")
    if current is not None:
        await graph.write("schema/create_vector_index", dimensions=dimensions)
    versions = await _needed(graph, VERSION_VECTORS, VERSION_FILTERS, dimensions)
    if versions == "recreate":
        await graph.write("schema/drop_version_vector_index")
    if versions is not None:
        await graph.write("schema/create_version_vector_index", dimensions=dimensions)
    await graph.read("schema/await_indexes")


async def _needed(
    graph: Graph, name: str, filters: frozenset[str], dimensions: int
) -> Literal["create", "recreate"] | None:
    """What the vector index `name` needs: nothing (None), to be created, or to be recreated
    (made before one of `filters` joined it, or with quantized vectors)."""
    rows = await graph.read("schema/vector_index", name=name)
    if not rows:
        return "create"
    if rows[0]["dimensions"] != dimensions:
        raise MigrationError(
            f"the vector index {name} holds {rows[0]['dimensions']}-dimensional embeddings but "
            f"the embedding model makes {dimensions}: use the model the data was stored with, "
            "or re-embed every memory with `memory-service reembed` (see README)"
        )
    if set(rows[0]["properties"]) >= filters and not rows[0]["quantized"]:
        return None
    log.info(
        "recreating the vector index %s with the filters %s and whole vectors",
        name,
        sorted(filters),
    )
    return "recreate"


async def drop_vector_indexes(graph: Graph) -> None:
    """Drops the memory vector indexes (a re-embedding recreates them for its model)."""
    await graph.write("schema/drop_vector_index")
    await graph.write("schema/drop_version_vector_index")
