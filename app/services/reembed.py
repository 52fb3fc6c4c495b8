"""Switching the embedding model: every memory node encoded again with the configured model
while a service keeps answering with the old one, then the nodes and the vector index switched
over in one short step; and the startup check that the data's model is the configured one."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from app.graph import Tx
from app.migrations import drop_vector_indexes, ensure_vector_index
from app.registry import Registry
from app.services.versioning import versions

BATCH = 256


class ModelMismatch(RuntimeError):
    """Memories were embedded with another model than the configured one."""


async def check_model(registry: Registry) -> None:
    """ModelMismatch when a memory node holds another model's embedding: its vectors and the
    configured model's would be compared as if they were alike."""
    model = registry.embedder.model_id
    rows = await registry.graph.read("reembed/other_model", model=model)
    if rows:
        raise ModelMismatch(
            f"memories were embedded with {rows[0]['model']} but the configured embedding model "
            f"is {model}: re-embed them with `memory-service reembed` (docs/retrieval.md) or "
            "configure the model they were stored with"
        )


async def reembed(
    registry: Registry, progress: Callable[[int, int], None], batch: int = BATCH
) -> int:
    """Encodes every node another model embedded, batch by batch, beside the embedding in use
    (each batch committed, so an interrupted run resumes where it stopped, and the service of
    the old model keeps searching meanwhile), then switches: drops the vector indexes, makes the
    new embeddings the nodes' own, encodes what the old model's service wrote meanwhile, and
    creates the indexes for the new model's dimension. `progress` learns (done, total) after each
    batch. Returns how many nodes were encoded."""
    model = registry.embedder.model_id
    [row] = await registry.graph.read("reembed/count_pending", model=model)
    total = int(row["pending"])
    done = 0

    def advanced(count: int) -> None:
        nonlocal done, total
        done += count
        total = max(total, done)
        progress(done, total)

    # Passes until one finds nothing: the old model's service may store meanwhile.
    while await _encode_pass(registry, model, batch, advanced):
        pass
    await drop_vector_indexes(registry.graph)
    switch = functools.partial(versions.switch_embeddings, model=model, batch=batch)
    while await registry.graph.transaction(switch):
        pass
    while stragglers := await registry.graph.read("reembed/stragglers", model=model, batch=batch):
        advanced(await _encode(registry, model, stragglers, waiting=False))
    await ensure_vector_index(registry.graph, registry.embedder.dimensions)
    return done


async def _encode_pass(
    registry: Registry, model: str, batch: int, advanced: Callable[[int], None]
) -> int:
    """One pass over current nodes, then past ones, in memory_id order; returns how many it
    encoded."""
    encoded = 0
    for past in (False, True):
        after, after_node = "", ""
        while rows := await _pending(registry, past, model, after, after_node, batch):
            count = await _encode(registry, model, rows, waiting=True)
            encoded += count
            advanced(count)
            after, after_node = rows[-1]["memory_id"], rows[-1]["node"]
    return encoded


async def _pending(
    registry: Registry, past: bool, model: str, after: str, after_node: str, batch: int
) -> list[dict[str, Any]]:
    cursor = {"model": model, "after": after, "after_node": after_node, "batch": batch}
    if past:
        return await registry.graph.read("reembed/pending_past", **cursor)
    return await registry.graph.read("reembed/pending_current", **cursor)


async def _encode(registry: Registry, model: str, rows: list[dict[str, Any]], waiting: bool) -> int:
    vectors = await registry.embedder.encode_documents([row["content"] for row in rows])
    embeddings = {row["node"]: vector for row, vector in zip(rows, vectors, strict=True)}

    async def work(tx: Tx) -> int:
        return await versions.set_embeddings(tx, model, embeddings, waiting=waiting)

    return await registry.graph.transaction(work)
