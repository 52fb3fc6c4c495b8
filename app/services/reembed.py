"""Re-embedding: every memory node encoded again with the configured model, resumably, and the
vector index recreated for that model's dimension."""

from __future__ import annotations

from collections.abc import Callable

from app.graph import Tx
from app.migrations import ensure_vector_index
from app.registry import Registry
from app.services.versioning import versions

BATCH = 256


async def reembed(
    registry: Registry, progress: Callable[[int, int], None], batch: int = BATCH
) -> int:
    """Encodes every node another model embedded, batch by batch (each committed, so an
    interrupted run resumes where it stopped), then recreates the vector index; `progress`
    learns (done, total) after each batch. Returns how many nodes were re-encoded."""
    model = registry.embedder.model_id
    await registry.graph.write("schema/drop_vector_index")
    done = 0
    total: int | None = None
    while True:
        rows = await registry.graph.read("reembed/pending", model=model, batch=batch)
        if not rows:
            break
        if total is None:
            total = rows[0]["remaining"]
        vectors = await registry.embedder.encode([row["content"] for row in rows])
        embeddings = {row["node"]: vector for row, vector in zip(rows, vectors, strict=True)}

        async def work(tx: Tx, embeddings: dict[str, list[float]] = embeddings) -> int:
            return await versions.set_embeddings(tx, model, embeddings)

        done += await registry.graph.transaction(work)
        progress(done, total)
    await ensure_vector_index(registry.graph, registry.embedder.dimensions)
    return done
