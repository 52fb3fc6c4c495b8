"""The workload a Neo4j server is trained on for its ahead-of-time cache (neo4j/server.sh train):
the service's migrations and start-up warm-up, which plan every hot statement, so that the
classes and methods of Cypher's planner are in the cache with those of the server's start.
scripts/test.sh runs it on each test server while mypy runs, so that no worker waits for it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from app.config import Settings
from app.embedding import Embedder, Role
from app.migrations import apply, ensure_vector_index
from app.registry import Registry
from app.services import warm_up

DIMENSIONS = 384  # the default model's: the vector index is made as the service makes it


class ConstantBackend:
    """Plans do not depend on the vectors' values, and no model is loaded for them."""

    dimensions = DIMENSIONS
    model_id = f"training:{DIMENSIONS}"

    async def start(self) -> None:
        return None

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        return [[1.0] * DIMENSIONS for _ in texts]

    async def close(self) -> None:
        return None


async def train(uri: str) -> None:
    settings = Settings(neo4j_uri=uri, master_key="neo4j-training-only-key")
    registry = Registry.build(settings, Embedder(ConstantBackend()))
    try:
        await apply(registry.graph)
        await ensure_vector_index(registry.graph, DIMENSIONS)
        await warm_up.warm(registry)
    finally:
        await registry.close()


if __name__ == "__main__":
    asyncio.run(train(sys.argv[1]))
