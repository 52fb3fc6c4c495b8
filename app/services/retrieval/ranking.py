"""The second retrieval stage: every candidate's fused relevance (see fusion), the graph
stage's worth, and bounded factors with a neutral value of 1 (pure).

Every number it uses comes from the configuration (see retrieval.config); the functions here
are the scoring functions that configuration names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.services.retrieval.config import DEFAULT, Features, RetrievalConfig
from app.services.retrieval.fusion import Scorer, Signals
from app.services.retrieval.time_window import TimeWindow

# The spec's feedback rule (see feedback_multiplier) clamps to these.
FEEDBACK_MIN, FEEDBACK_MAX = 0.5, 2.0


@dataclass(frozen=True)
class Candidate(Signals):
    """One memory as the first stage (or the graph stage) found it, with what ranking needs."""

    confidence: float = 1.0  # decayed trust-tier confidence, 0..1
    age_days: float = 0.0
    same_session: bool = False
    useful: int = 0
    irrelevant: int = 0
    outdated: int = 0
    wrong: int = 0
    # What the graph stage says it is worth relative to the best first-stage candidate (0..1,
    # see graph_stage).
    graph: float = 0.0
    contradicted: bool = False  # consolidate kept another memory that disagrees with it
    denied: bool = False  # about what the question's subject is said to be unrelated to
    first_stage: bool = True  # found by the first stage (else brought in by the graph stage)
    observed_at: datetime | None = None  # its event time


@dataclass(frozen=True)
class Scored:
    memory_id: str
    score: float
    components: dict[str, float] = field(default_factory=dict)  # factors of the score
    relevance_parts: dict[str, float] = field(default_factory=dict)  # see rank


def cosine(index_score: float) -> float:
    """The cosine similarity behind a Neo4j cosine score (index or vector.similarity.cosine),
    which is (1 + cos) / 2."""
    return 2.0 * index_score - 1.0


def feedback_multiplier(
    weight: float, useful: int, irrelevant: int, outdated: int, wrong: int
) -> float:
    """clamp(1 + w·(useful - 0.5·(irrelevant + outdated + wrong)), 0.5, 2.0)."""
    raw = 1.0 + weight * (useful - 0.5 * (irrelevant + outdated + wrong))
    return min(FEEDBACK_MAX, max(FEEDBACK_MIN, raw))


def recency(age_days: float, features: Features) -> float:
    """1 + recency_bonus for a memory created now, decaying with e-folding time recency_days."""
    return 1.0 + features.recency_bonus * math.exp(-age_days / features.recency_days)


def in_window(observed_at: datetime | None, window: TimeWindow | None, features: Features) -> float:
    """features.in_window for a memory observed inside the window or up to window_lag_days
    after it, else 1."""
    if window is None or observed_at is None:
        return 1.0
    lag = timedelta(days=features.window_lag_days)
    inside = window.start <= observed_at < window.end + lag
    return features.in_window if inside else 1.0


def trust(confidence: float, features: Features) -> float:
    """What a memory's decayed confidence keeps of its score: confidence_floor at 0, 1 at 1."""
    return features.confidence_floor + (1.0 - features.confidence_floor) * confidence


def rank(
    candidates: list[Candidate],
    scorer: Scorer,
    *,
    feedback_weight: float,
    session_boost: bool,
    top_k: int,
    min_score: float | None = None,
    config: RetrievalConfig = DEFAULT,
    chain: bool = False,
    window: TimeWindow | None = None,
) -> list[Scored]:
    """Best first, top_k of them. A memory's relevance is its fused relevance, or its graph
    worth times graph.weight of the best first-stage relevance when that is higher (nothing the
    graph brings in outranks the first stage's best). Without `min_score`, the configuration's
    floor (by default top_k is filled while candidates relate to the query at all, unless the
    graph stage found a `chain` from the question's own entities: see config.Floor); with it,
    the floor is `min_score`. A memory relates to the query when its cosine similarity is
    positive, it holds a query word or the graph reached it (the least similar candidate has
    no meaning part on the pool's scale, yet may well relate)."""
    features = config.features
    fused = {candidate.memory_id: scorer.parts(candidate) for candidate in candidates}
    relevance = {key: parts["vector"] + parts["text"] for key, parts in fused.items()}
    best = max((relevance[c.memory_id] for c in candidates if c.first_stage), default=0.0)
    scored = []
    for candidate in candidates:
        parts = fused[candidate.memory_id]
        graph = candidate.graph * best * config.graph.weight
        components = {
            "relevance": max(relevance[candidate.memory_id], graph),
            "feedback": feedback_multiplier(
                feedback_weight,
                candidate.useful,
                candidate.irrelevant,
                candidate.outdated,
                candidate.wrong,
            ),
            "confidence": trust(candidate.confidence, features),
            "recency": recency(candidate.age_days, features),
            "session": features.session_boost if session_boost and candidate.same_session else 1.0,
            "contradiction": features.contradicted if candidate.contradicted else 1.0,
            "denial": features.denied if candidate.denied else 1.0,
            "time": in_window(candidate.observed_at, window, features),
        }
        score = math.prod(components.values())
        # What made the relevance: the halves' parts (and the lexical share behind the text
        # part), or the graph's score when it is higher.
        made_of = {**parts, "graph": graph}
        scored.append(Scored(candidate.memory_id, score, components, made_of))
    scored.sort(key=lambda item: (-item.score, item.memory_id))
    if not scored:
        return []
    if min_score is not None:
        return [item for item in scored if item.score >= min_score][:top_k]
    share = config.floor.relative
    if chain:
        share = max(share, config.floor.after_chain)
    floor = share * scored[0].score
    related = {
        c.memory_id
        for c in candidates
        if c.cosine > 0 or c.graph > 0 or fused[c.memory_id]["lexical"] > 0
    }
    return [item for item in scored if item.score >= floor and item.memory_id in related][:top_k]
