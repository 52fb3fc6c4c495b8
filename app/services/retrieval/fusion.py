"""Fusion: each candidate's first-stage signals (its meaning and its words) made one relevance in
0..1, with statistics taken once from the first stage's candidates (pure).

The statistics are the user's own: every candidate is one of the user's memories nearest the
query by meaning or holding its words, so a word most of them hold (a speaker named in every
turn, the user's own name) says little of which one answers; nothing here depends on other
users' data or on the engine's scores (those come from statistics over every user's memories).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from app.services.retrieval.config import Fusion


@dataclass(frozen=True)
class Signals:
    """What fusion reads of a candidate."""

    memory_id: str
    cosine: float  # similarity of its embedding to the query's, -1..1
    words: frozenset[str]  # its distinct words as the full-text index splits them
    text_rank: int | None  # 1-based rank among the user's full-text hits; None: no hit
    length: int = 0  # how many words it has
    # How often it holds each query word (words absent from it are absent here).
    frequencies: Mapping[str, int] = field(default_factory=dict)


def word_weights(
    query_words: Iterable[str], candidates: Iterable[frozenset[str]]
) -> dict[str, float]:
    """Each query word's specificity among the candidates: BM25's idf,
    log(1 + (n - df + 0.5) / (df + 0.5)), with n the candidates and df those holding the word."""
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


class Scorer:
    """The fusion of one retrieve: built once from the first stage's candidates, then asked for
    each memory's relevance (those the graph stage brings in too, with the same statistics).

    Both halves are put on the pool's own scale before they are mixed, so that neither a
    model's cosine range nor a query's length decides the mix:
    - meaning: the cosine above the pool's lowest, as a share of what lies above it,
      (cos - lowest) / (1 - lowest). Models differ in where unrelated texts sit (near 0 for
      all-MiniLM-L6-v2, near 0.75 for multilingual-e5-small); the candidates' lowest cosine
      says where, for this query. A perfect match stays 1, so a pool of weak matches stays
      weak (min-max scaling would make its best one look perfect).
    - words: two readings of the query's words among the candidates, each 0..1, both weighed
      by the words' specificity in the pool (word_weights): mostly which of them the memory
      holds (`lexical`, an absolute share of the query: a short turn that repeats a common
      name gains nothing, and a query whose specific words no candidate holds leans on
      meaning), and by `bm25_share` its BM25 over the pool as a share of the pool's best (how
      much of the memory is about them: what long texts and questions of many Chinese
      character pairs need).
    """

    def __init__(
        self, pool: Sequence[Signals], query_words: frozenset[str], fusion: Fusion
    ) -> None:
        self.fusion = fusion
        self.weights = word_weights(query_words, (signals.words for signals in pool))
        # A handful of candidates says little of where unrelated texts sit (a user's two
        # memories would read as one unrelated and one perfect): their cosines count as they
        # are, above 0.
        lowest = min((signals.cosine for signals in pool), default=0.0)
        self.lowest = lowest if len(pool) >= fusion.scale_from else min(lowest, 0.0)
        self.average_length = sum(max(s.length, 1) for s in pool) / max(len(pool), 1)
        self.best_bm25 = max((self.bm25(signals) for signals in pool), default=0.0) or 1.0

    def bm25(self, signals: Signals) -> float:
        """Okapi BM25 of the memory for the query's words, with the pool's word weights and
        average length."""
        k1, b = self.fusion.bm25_k1, self.fusion.bm25_b
        norm = k1 * (1 - b + b * max(signals.length, 1) / self.average_length)
        return sum(
            weight * tf * (k1 + 1) / (tf + norm)
            for word, weight in self.weights.items()
            if (tf := signals.frequencies.get(word, 0))
        )

    def on_scale(self, cosine: float) -> float:
        """A cosine similarity to the query on the pool's scale, 0..1 (see the class)."""
        above = 1.0 - self.lowest
        return max(0.0, (cosine - self.lowest) / above) if above > 0 else 0.0

    def meaning(self, signals: Signals) -> float:
        return self.on_scale(signals.cosine)

    def parts(self, signals: Signals) -> dict[str, float]:
        """The two halves' contributions to relevance: `vector`, vector_weight of the meaning
        part, and `text`, the rest of the words part (`lexical`, also reported), scaled between
        (1 - text_rank_share) and 1 by its full-text rank (so the engine's judgement of phrases
        and identifiers counts, by rank only)."""
        fusion = self.fusion
        held = lexical(self.weights, signals.words)
        words = (1.0 - fusion.bm25_share) * held + fusion.bm25_share * (
            self.bm25(signals) / self.best_bm25
        )
        rank_share = fusion.text_rank_share
        by_rank = text_rank_part(signals.text_rank, fusion.text_rank_scale)
        return {
            "vector": fusion.vector_weight * self.meaning(signals),
            "text": (1.0 - fusion.vector_weight)
            * words
            * (1.0 - rank_share + rank_share * by_rank),
            "lexical": words,
        }

    def relevance(self, signals: Signals) -> float:
        parts = self.parts(signals)
        return parts["vector"] + parts["text"]
