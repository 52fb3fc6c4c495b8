"""First-stage candidates for the pure ranking and graph-walk tests."""

from __future__ import annotations

from dataclasses import replace

from app.services.retrieval.ranking import Candidate


def candidate(memory_id: str, cosine: float, **fields: object) -> Candidate:
    """A year-old, fully trusted vector hit holding no word of the query, with `fields`
    changed."""
    base = Candidate(
        memory_id=memory_id,
        cosine=cosine,
        words=frozenset(),
        text_rank=None,
        confidence=1.0,
        age_days=365.0,
        same_session=False,
    )
    return replace(base, **fields)  # type: ignore[arg-type]
