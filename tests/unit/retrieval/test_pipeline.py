"""The first stage: how many candidates each half fetches, and the halves merged into one row
(what ranking then sees of each memory)."""

from __future__ import annotations

from typing import Any

from app.graph import packed_vector
from app.services.memory_view import NODE_FIELDS
from app.services.retrieval.pipeline import first_stage_params, merged
from app.services.scope import MAIN, MemoryFilter, Scope


def memory(memory_id: str) -> dict[str, Any]:
    return {**dict.fromkeys(NODE_FIELDS, "x"), "memory_id": memory_id}


def row(memory_id: str, vector: float | None, text: float | None) -> dict[str, Any]:
    return {
        "memory": memory(memory_id),
        "vector_score": vector,
        "text_score": text,
        "similarity": vector if vector is not None else 0.5,
        "seeds": 0,
    }


def half(
    *rows: dict[str, Any], named: list[dict[str, Any]] | None = None, seeded: bool = False
) -> dict[str, Any]:
    return {
        "candidates": list(rows),
        "named": named or [],
        "seeded": seeded,
        "feedback_weight": 0.2,
    }


def test_a_memory_both_searches_found_is_one_candidate_with_both_scores() -> None:
    vector = half(row("both", 0.9, None), row("near", 0.8, None))
    kiln = {"key": "kiln", "aliases": ["Kiln"]}
    text = half(row("both", None, 4.0), row("worded", None, 2.5), named=[kiln], seeded=True)
    found = merged([vector, text])
    scores = {
        item["memory"]["memory_id"]: (item["vector_score"], item["text_score"])
        for item in found["candidates"]
    }
    assert scores == {"both": (0.9, 4.0), "near": (0.8, None), "worded": (None, 2.5)}
    assert found["named"] == [kiln]
    assert found["seeded"] is True  # the full-text half looked the query's entities up
    assert found["feedback_weight"] == 0.2


def test_a_memory_deleted_while_it_was_read_is_left_out() -> None:
    vanished = row("gone", 0.95, None)
    vanished["memory"] = {"memory_id": None, "content": None}
    found = merged([half(vanished, row("kept", 0.7, None)), half()])
    assert [item["memory"]["memory_id"] for item in found["candidates"]] == ["kept"]


def fetched(keep: MemoryFilter, top_k: int) -> tuple[int, int]:
    """How many candidates each half fetches for a query: (vector, full text)."""
    params = first_stage_params(
        Scope("u", MAIN), keep, packed_vector([1.0, 0.0]), "orchid watering", top_k
    )
    return params["vector_k"], params["text_k"]


def test_the_full_text_half_reaches_deeper_than_the_vector_half() -> None:
    # The index orders a user's hits by every user's word statistics: the user's best by
    # their own words lie deeper in its list than its first 40.
    assert fetched(MemoryFilter(), 5) == (40, 80)
    assert fetched(MemoryFilter(), 50) == (200, 400)


def test_a_filter_applied_after_a_search_widens_that_search() -> None:
    # Types are filtered inside the vector index, not inside the full-text one.
    assert fetched(MemoryFilter(memory_types=["procedural"]), 5) == (40, 320)
    assert fetched(MemoryFilter(subject_id="alice"), 5) == (160, 320)
