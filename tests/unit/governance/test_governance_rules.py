"""The pure rules of consolidate and reflect: which of two disagreeing memories is kept, and how
related memories join into clusters from several sessions."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from app.services.governance.consolidate import CONFIDENCE_FACTOR, judge
from app.services.governance.contradictions import Disagreement
from app.services.governance.reflect import MAX_CLUSTER, clusters

NOW = datetime(2026, 1, 1, tzinfo=UTC)
FOUND = Disagreement("high", "different number: 1 vs 2")


def _memory(memory_id: str, tier: str, days_old: float) -> dict[str, Any]:
    observed = NOW - timedelta(days=days_old)
    return {
        "memory_id": memory_id,
        "trust_tier": tier,
        "initial_confidence": 0.9,
        "observed_at": observed,
        "created_at": observed,
    }


def test_the_newer_memory_is_kept_and_the_older_lowered() -> None:
    verdict = judge(_memory("old", "T1", 10), _memory("new", "T2", 1), FOUND)
    assert (verdict.newer, verdict.older, verdict.kept, verdict.lowered) == (
        "new",
        "old",
        "new",
        "old",
    )
    assert verdict.lowered_confidence == 0.9 * CONFIDENCE_FACTOR


def test_a_memory_contradicted_again_is_lowered_from_what_it_had_before_any() -> None:
    """Its first winner corrected, a memory contradicted by the correction is lowered once,
    not once more on top of the first time."""
    lowered_once = {
        **_memory("old", "T1", 10),
        "initial_confidence": 0.9 * CONFIDENCE_FACTOR,
        "confidence_before_contradiction": 0.9,
    }
    verdict = judge(lowered_once, _memory("corrected", "T2", 1), FOUND)
    assert verdict.lowered == "old"
    assert verdict.lowered_confidence == 0.9 * CONFIDENCE_FACTOR
    assert verdict.confidence_before == 0.9


def test_a_much_less_trusted_newer_memory_does_not_displace_the_older() -> None:
    verdict = judge(_memory("new", "T4", 0), _memory("old", "T1", 30), FOUND)
    assert (verdict.newer, verdict.kept, verdict.lowered) == ("new", "old", "new")
    verdict = judge(_memory("new", "T3", 0), _memory("old", "T1", 30), FOUND)
    assert verdict.kept == "old"
    verdict = judge(_memory("new", "T4", 0), _memory("old", "T3", 30), FOUND)
    assert verdict.kept == "new"


def _pair(a: str, b: str, sessions: dict[str, str | None], similarity: float = 0.8) -> Any:
    def side(memory_id: str) -> dict[str, Any]:
        return {
            "memory_id": memory_id,
            "content": f"memory {memory_id}",
            "session_id": sessions[memory_id],
            "memory_type": "semantic",
            "insights": [],
        }

    return {"a": side(a), "b": side(b), "shared": ["redis"], "similarity": similarity}


def test_clusters_join_related_memories_and_need_two_sessions() -> None:
    sessions: dict[str, str | None] = {"a": "s1", "b": "s2", "c": "s2", "d": "s3", "e": "s3"}
    pairs = [_pair("a", "b", sessions), _pair("b", "c", sessions), _pair("d", "e", sessions)]
    [cluster] = clusters(pairs, limit=10)
    assert cluster.memory_ids == ["a", "b", "c"]
    assert cluster.sessions == ["s1", "s2"]
    assert cluster.shared_entities == ["redis"]


def test_a_cluster_an_insight_covers_is_left_out() -> None:
    sessions: dict[str, str | None] = {"a": "s1", "b": "s2", "c": "s3"}
    pairs = [_pair("a", "b", sessions), _pair("b", "c", sessions)]
    for pair in pairs:
        pair["a"]["insights"] = ["insight-1"]
    assert clusters(pairs, limit=10) == []  # the insight derives from a and b: 2 of 3


def test_clusters_stay_small_and_the_strongest_pairs_join_first() -> None:
    ids = [f"m{i:02d}" for i in range(MAX_CLUSTER + 3)]
    sessions: dict[str, str | None] = {memory_id: f"s{i % 2}" for i, memory_id in enumerate(ids)}
    pairs = [
        _pair(a, b, sessions, similarity=0.9 - i / 100)
        for i, (a, b) in enumerate(itertools.pairwise(ids))
    ]
    found = clusters(pairs, limit=10)
    assert len(found[0].memory_ids) == MAX_CLUSTER
    assert found[0].memory_ids == ids[:MAX_CLUSTER]
