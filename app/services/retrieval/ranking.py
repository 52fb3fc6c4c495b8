"""The second retrieval stage: fuse vector and full-text candidates, then rerank (pure).

Every number it uses comes from the configuration (see retrieval.config); the functions here
are the scoring functions that configuration names.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from app.services.retrieval.config import DEFAULT, Features, Fusion, RetrievalConfig

# The spec's feedback rule (see feedback_multiplier) clamps to these.
FEEDBACK_MIN, FEEDBACK_MAX = 0.5, 2.0


@dataclass(frozen=True)
class Candidate:
    """One memory as the first stage found it, with what the second stage needs."""

    memory_id: str
    cosine: float  # similarity of its embedding to the query's, -1..1 (every candidate has one)
    words: frozenset[str]  # its distinct words as the full-text index splits them
    confidence: float  # decayed trust-tier confidence, 0..1
    age_days: float
    same_session: bool
    text_rank: int | None = None  # 1-based rank among the user's full-text hits; None: no hit
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


def word_weights(
    query_words: Iterable[str], candidates: Iterable[frozenset[str]]
) -> dict[str, float]:
    """Each query word's specificity among the candidates: BM25's idf,
    log(1 + (n - df + 0.5) / (df + 0.5)), with n the candidates and df those holding the word.

    The candidates are the user's own memories nearest the query by meaning or by words, so a
    word most of them hold (a speaker named in every turn of a conversation, the user's own
    name) says little of which one answers; nothing here depends on other users' data.
    """
    pool = list(candidates)
    count = len(pool)
    weights = {}
    for word in query_words:
        held = sum(1 for words in pool if word in words)
        weights[word] = math.log(1.0 + (count - held + 0.5) / (held + 0.5))
    return weights


def lexical(weights: Mapping[str, float], words: frozenset[str]) -> float:
    """The weighted share of the query's words a memory holds, 0..1 (0 without query words).

    Presence, not frequency or length: a short turn that repeats a name gains nothing over a
    long one that names it once."""
    total = sum(weights.values())
    if total <= 0.0:
        return 0.0
    return sum(weight for word, weight in weights.items() if word in words) / total


def text_rank_part(rank: int | None, scale: float) -> float:
    """What a full-text rank is worth, 0..1: scale / (scale + rank - 1); 0 for no hit."""
    if rank is None:
        return 0.0
    return scale / (scale + rank - 1)


def fusion_parts(
    cosine: float, lexical_share: float, text_rank: int | None, fusion: Fusion
) -> dict[str, float]:
    """The two halves' contributions to relevance: `vector`, the weighted positive part of the
    cosine similarity, and `text`, the weighted full-text part: the memory's lexical share,
    scaled between (1 - text_rank_share) and 1 by its full-text rank (so the engine's judgement
    of phrases and identifiers counts, by rank only: its scores come from statistics over every
    user's memories)."""
    rank_share = fusion.text_rank_share
    text_part = lexical_share * (
        1.0 - rank_share + rank_share * text_rank_part(text_rank, fusion.text_rank_scale)
    )
    return {
        "vector": fusion.vector_weight * max(0.0, cosine),
        "text": (1.0 - fusion.vector_weight) * text_part,
    }


def relevance(cosine: float, lexical_share: float, text_rank: int | None, fusion: Fusion) -> float:
    """Convex mix of the two halves (see fusion_parts), 0..1."""
    return sum(fusion_parts(cosine, lexical_share, text_rank, fusion).values())


def lexical_shares(candidates: list[Candidate], query_words: frozenset[str]) -> dict[str, float]:
    """Each candidate's lexical share (see lexical), the words weighed among these candidates."""
    weights = word_weights(query_words, (c.words for c in candidates))
    return {c.memory_id: lexical(weights, c.words) for c in candidates}


def relevances(
    candidates: list[Candidate], query_words: frozenset[str], fusion: Fusion = DEFAULT.fusion
) -> dict[str, float]:
    """Each candidate's first-stage relevance (see relevance), by memory id."""
    shares = lexical_shares(candidates, query_words)
    return {
        c.memory_id: relevance(c.cosine, shares[c.memory_id], c.text_rank, fusion)
        for c in candidates
    }


def recency(age_days: float, features: Features) -> float:
    """1 + recency_bonus for a memory created now, decaying with e-folding time recency_days."""
    return 1.0 + features.recency_bonus * math.exp(-age_days / features.recency_days)


def trust(confidence: float, features: Features) -> float:
    """What a memory's decayed confidence keeps of its score: confidence_floor at 0, 1 at 1."""
    return features.confidence_floor + (1.0 - features.confidence_floor) * confidence


def rank(
    candidates: list[Candidate],
    query_words: frozenset[str],
    *,
    feedback_weight: float,
    session_boost: bool,
    top_k: int,
    min_score: float | None = None,
    config: RetrievalConfig = DEFAULT,
    chain: bool = False,
) -> list[Scored]:
    """Best first, top_k of them. Without `min_score`, the configuration's floor (by default
    top_k is filled while candidates relate to the query at all, unless the graph stage found
    a `chain` from the question's own entities: see config.Floor); with it, the floor is
    `min_score`."""
    features = config.features
    shares = lexical_shares(candidates, query_words)
    scored = []
    for candidate in candidates:
        share = shares[candidate.memory_id]
        fused = fusion_parts(candidate.cosine, share, candidate.text_rank, config.fusion)
        components = {
            "relevance": max(sum(fused.values()), candidate.graph),
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
        }
        score = math.prod(components.values())
        # What made the relevance: the halves' parts (and the lexical share behind the text
        # part), or the graph's score when it is higher.
        made_of = {**fused, "lexical": share, "graph": candidate.graph}
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
    return [item for item in scored if item.score >= floor and item.score > 0][:top_k]
