"""The second retrieval stage: fuse vector and full-text candidates, then rerank (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

RECENCY_DAYS = 30.0
RELATIVE_FLOOR = 0.5
FEEDBACK_MIN, FEEDBACK_MAX = 0.5, 2.0
# A memory consolidate found contradicted by a kept one (see consolidate) is likely outdated:
# beyond its lowered confidence, it ranks below the one that was kept.
CONTRADICTED = 0.6
# A memory about something a memory of the question's own subject says it has nothing to do
# with ("Zhao Min has nothing to do with the payment gateway": the gateway's memories, for a
# question about Zhao Min) answers another question.
DENIED = 0.6


@dataclass(frozen=True)
class Weights:
    """The ranking's knobs (a `retrieval.rerank` plugin may set them, see plugin_effects)."""

    vector_weight: float = 0.7  # the vector share of relevance; full text has the rest
    session_boost: float = 1.15
    recency_bonus: float = 0.05
    confidence_floor: float = 0.75  # what confidence 0 keeps of a score


DEFAULT_WEIGHTS = Weights()


def cosine(index_score: float) -> float:
    """The cosine similarity behind a Neo4j cosine vector index score, which is (1 + cos) / 2."""
    return 2.0 * index_score - 1.0


@dataclass(frozen=True)
class Candidate:
    """One memory as the first stage found it, with what the second stage needs."""

    memory_id: str
    cosine: float | None  # similarity to the query in [-1, 1]; None: not a vector hit
    text_score: float | None  # the full-text engine's score; None: not a text hit
    text_coverage: float  # share of the query's words the memory holds, 0..1
    confidence: float  # decayed trust-tier confidence, 0..1
    age_days: float
    same_session: bool
    useful: int = 0
    irrelevant: int = 0
    outdated: int = 0
    wrong: int = 0
    graph: float = 0.0  # what the graph stage says it is worth (see graph_stage), 0..1
    contradicted: bool = False  # consolidate kept another memory that disagrees with it
    denied: bool = False  # about what the question's subject is said to be unrelated to


@dataclass(frozen=True)
class Scored:
    memory_id: str
    score: float
    components: dict[str, float] = field(default_factory=dict)


def feedback_multiplier(
    weight: float, useful: int, irrelevant: int, outdated: int, wrong: int
) -> float:
    """clamp(1 + w·(useful - 0.5·(irrelevant + outdated + wrong)), 0.5, 2.0)."""
    raw = 1.0 + weight * (useful - 0.5 * (irrelevant + outdated + wrong))
    return min(FEEDBACK_MAX, max(FEEDBACK_MIN, raw))


def relevance(
    cosine: float | None,
    text_score: float | None,
    best_text: float,
    text_coverage: float,
    vector_weight: float = DEFAULT_WEIGHTS.vector_weight,
) -> float:
    """Convex mix of cosine similarity and the text score normalised by the best text score.

    The text part is weighed by how much of the query the memory covers: normalised to the best
    hit, a memory sharing one word of a long question would otherwise earn the whole lexical
    share whenever nothing matches better.
    """
    vector_part = max(0.0, cosine) if cosine is not None else 0.0
    text_part = (text_score / best_text) if text_score and best_text > 0 else 0.0
    return vector_weight * vector_part + (1.0 - vector_weight) * text_part * text_coverage


def relevances(candidates: list[Candidate], weights: Weights = DEFAULT_WEIGHTS) -> dict[str, float]:
    """Each candidate's first-stage relevance (see relevance), by memory id."""
    best_text = max((c.text_score or 0.0 for c in candidates), default=0.0)
    return {
        c.memory_id: relevance(
            c.cosine, c.text_score, best_text, c.text_coverage, weights.vector_weight
        )
        for c in candidates
    }


def rank(
    candidates: list[Candidate],
    *,
    feedback_weight: float,
    session_boost: bool,
    top_k: int,
    min_score: float | None = None,
    weights: Weights = DEFAULT_WEIGHTS,
) -> list[Scored]:
    """Best first; candidates under the relevance floor are dropped rather than padded in.

    Without `min_score` the floor is half the best score; with it, the floor is `min_score`.
    """
    first_stage = relevances(candidates, weights)
    scored = []
    for candidate in candidates:
        components = {
            "relevance": max(first_stage[candidate.memory_id], candidate.graph),
            "feedback": feedback_multiplier(
                feedback_weight,
                candidate.useful,
                candidate.irrelevant,
                candidate.outdated,
                candidate.wrong,
            ),
            "confidence": weights.confidence_floor
            + (1 - weights.confidence_floor) * candidate.confidence,
            "recency": 1.0 + weights.recency_bonus * math.exp(-candidate.age_days / RECENCY_DAYS),
            "session": weights.session_boost if session_boost and candidate.same_session else 1.0,
            "contradiction": CONTRADICTED if candidate.contradicted else 1.0,
            "denial": DENIED if candidate.denied else 1.0,
        }
        score = math.prod(components.values())
        scored.append(Scored(candidate.memory_id, score, components))
    scored.sort(key=lambda item: (-item.score, item.memory_id))
    if not scored:
        return []
    if min_score is not None:
        return [item for item in scored if item.score >= min_score][:top_k]
    floor = RELATIVE_FLOOR * scored[0].score
    return [item for item in scored if item.score >= floor and item.score > 0][:top_k]
