"""The graph stage of retrieval: how memories reached through the entity graph score (pure).

A path starts at a seed entity (one the query names, or one a top first-stage candidate
mentions, which then counts as the path's first memory) and runs through memories and entities.
A path is worth how much of the question its memories cover together (the sum of their
cosines to the query), relative to the best path, decayed per memory on it and scaled to the
best first-stage relevance; each memory gets the worth of the best path it lies on. So
the memories of a chain that answers (Maria -> billing team -> invoice-api -> lodash 4.17.15 ->
CVE) rise together, a memory that merely shares an entity and covers nothing of the question
stays low, and nothing the graph brings in outranks the first stage's best. A memory that
denies a link ("geo-ip 库与 RISK-312 无关") answers no chain question: a path that ends at it
counts for nothing, though a path may run through it to a memory beyond.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.services.retrieval.config import GraphConfig


@dataclass(frozen=True)
class GraphPath:
    """One path as the expansion found it: the seed entity's key, the first-stage memory whose
    entity it is (None for the query's own), the entity keys and memory ids along it, and the
    memories on it in order (the seed memory first)."""

    seed: str
    seed_memory: str | None
    steps: tuple[str, ...]
    memories: tuple[str, ...]


@dataclass(frozen=True)
class GraphHit:
    """A memory's graph score and the path that earned it."""

    memory_id: str
    score: float
    path: GraphPath


def coverage(path: GraphPath, similarity: Mapping[str, float]) -> float:
    """How much of the question a path's memories cover together."""
    return sum(max(0.0, similarity.get(memory_id, 0.0)) for memory_id in path.memories)


def score(
    paths: Iterable[GraphPath],
    similarity: Mapping[str, float],
    seed_strength: Mapping[str, float],
    best_relevance: float,
    config: GraphConfig,
    deniers: frozenset[str] = frozenset(),
) -> dict[str, GraphHit]:
    """Each memory on a path with the worth of the best path it lies on.

    `similarity` is each memory's cosine to the query (-1..1);
    `seed_strength` a first-stage candidate's relevance relative to the best (0..1), for paths
    seeded by its entities; `best_relevance` the best first-stage relevance (the scale);
    `deniers` the memories that deny a link (a path that ends at one of them counts for nothing).
    """
    # A path to a denier answers nothing: it neither scores nor sets the scale for the others.
    paths = [path for path in paths if path.memories and path.memories[-1] not in deniers]
    covered = [coverage(path, similarity) for path in paths]
    best = max(covered, default=0.0)
    if best <= 0.0 or best_relevance <= 0.0:
        return {}
    hits: dict[str, GraphHit] = {}
    for path, value in zip(paths, covered, strict=True):
        strength = 1.0
        if path.seed_memory is not None:
            strength = config.memory_seed_weight * seed_strength.get(path.seed_memory, 0.0)
        worth = (
            best_relevance
            * strength
            * config.hop_decay ** (len(path.memories) - 1)
            * (value / best) ** config.sharpness
        )
        # A seed memory is a first-stage candidate already: a path it seeds says nothing more
        # of it, whatever lies beyond the entity it shares with the query.
        reached = path.memories[1:] if path.seed_memory is not None else path.memories
        for memory_id in reached:
            known = hits.get(memory_id)
            if known is None or worth > known.score:
                hits[memory_id] = GraphHit(memory_id, worth, path)
    return hits
