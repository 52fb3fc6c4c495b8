"""The first stage: how many candidates each half fetches, and the halves merged into one row
(what ranking then sees of each memory)."""

from __future__ import annotations

from typing import Any

from app.graph import packed_vector
from app.services.memory_view import NODE_FIELDS
from app.services.retrieval.pipeline import (
    first_stage_params,
    merged,
    vector_missed,
    with_deeper_vector_half,
)
from app.services.scope import MAIN, MemoryFilter, Scope


def memory(memory_id: str) -> dict[str, Any]:
    return {**dict.fromkeys(NODE_FIELDS, "x"), "memory_id": memory_id}


def row(
    memory_id: str, vector: float | None, text: float | None, similarity: float = 0.5
) -> dict[str, Any]:
    return {
        "memory": memory(memory_id),
        "vector_score": vector,
        "text_score": text,
        "similarity": vector if vector is not None else similarity,
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


def test_a_worded_memory_nearer_than_the_vector_halfs_weakest_proves_a_miss() -> None:
    kept = [row("near", 0.71, None), row("weakest", 0.64, 3.0)]
    assert vector_missed([*kept, row("closer", None, 2.0, similarity=0.69)])
    assert not vector_missed([*kept, row("farther", None, 2.0, similarity=0.6)])
    assert not vector_missed([row("only worded", None, 2.0, similarity=0.9)])  # no vector half


def test_a_deeper_search_replaces_what_the_vector_half_found() -> None:
    shallow = merged(
        [
            half(row("stray", 0.64, None), row("both", 0.66, None)),
            half(row("both", None, 3.0), row("closer", None, 2.0, similarity=0.69)),
        ]
    )
    deeper = half(row("closer", 0.69, None), row("nearest", 0.8, None))
    found = with_deeper_vector_half(shallow, deeper)
    scores = {
        item["memory"]["memory_id"]: (item["vector_score"], item["text_score"])
        for item in found["candidates"]
    }
    # The stray hit of the shallow search is gone; "both" stays for its words.
    assert scores == {"nearest": (0.8, None), "closer": (0.69, 2.0), "both": (None, 3.0)}
