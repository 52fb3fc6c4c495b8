"""Textbook retrieval on the same texts as the service, for the quality benchmarks (pure):
Okapi BM25, dense cosine, reciprocal-rank fusion and a convex combination of normalised
scores."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

BM25_K1, BM25_B = 1.2, 0.75
RRF_K = 60
CONVEX_LEXICAL = 0.3  # the lexical share of the convex combination (the 0.3 / 0.7)


class Bm25:
    """Okapi BM25 over one user's documents (Robertson's idf with +1 inside the log, as
    Lucene's), the words as the service's full-text index splits them, stop words left out."""

    def __init__(self, documents: Mapping[str, Sequence[str]]) -> None:
        self.ids = list(documents)
        self.lengths = {doc_id: len(words) for doc_id, words in documents.items()}
        self.average = sum(self.lengths.values()) / max(len(self.ids), 1)
        self.postings: dict[str, dict[str, int]] = defaultdict(dict)
        for doc_id, words in documents.items():
            for word, count in Counter(words).items():
                self.postings[word][doc_id] = count

    def scores(self, query: Iterable[str]) -> dict[str, float]:
        count = len(self.ids)
        scores: dict[str, float] = defaultdict(float)
        for word in set(query):
            holding = self.postings.get(word, {})
            if not holding:
                continue
            idf = math.log(1 + (count - len(holding) + 0.5) / (len(holding) + 0.5))
            for doc_id, tf in holding.items():
                norm = BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[doc_id] / self.average)
                scores[doc_id] += idf * tf * (BM25_K1 + 1) / (tf + norm)
        return dict(scores)


def ranked(scores: Mapping[str, float]) -> list[str]:
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def dense_scores(
    ids: Sequence[str], matrix: np.ndarray, query: Sequence[float]
) -> dict[str, float]:
    """Cosine of every document to the query (unit vectors: a dot product)."""
    values = matrix @ np.asarray(query, dtype=np.float32)
    return dict(zip(ids, values.tolist(), strict=True))


def rrf(rankings: Iterable[Sequence[str]], k: int = RRF_K) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] += 1.0 / (k + rank)
    return ranked(scores)


def _min_max(scores: Mapping[str, float], ids: Sequence[str]) -> dict[str, float]:
    values = [scores.get(doc_id, 0.0) for doc_id in ids]
    low, high = min(values), max(values)
    span = high - low
    return {
        doc_id: (v - low) / span if span > 0 else 0.0 for doc_id, v in zip(ids, values, strict=True)
    }


def convex(
    lexical: Mapping[str, float],
    dense: Mapping[str, float],
    ids: Sequence[str],
    lexical_share: float = CONVEX_LEXICAL,
) -> list[str]:
    """lexical_share x min-max(BM25) + (1 - lexical_share) x min-max(cosine), over every
    document of the user (a document without a query word has BM25 0)."""
    lex, den = _min_max(lexical, ids), _min_max(dense, ids)
    return ranked(
        {doc_id: lexical_share * lex[doc_id] + (1 - lexical_share) * den[doc_id] for doc_id in ids}
    )


def rankings(
    bm25: Bm25,
    query_words: Sequence[str],
    ids: Sequence[str],
    matrix: np.ndarray,
    query: Sequence[float],
) -> dict[str, list[str]]:
    """Each baseline's order of the user's documents for one question."""
    lexical = bm25.scores(query_words)
    dense = dense_scores(ids, matrix, query)
    by_bm25, by_dense = ranked(lexical), ranked(dense)
    return {
        "bm25": by_bm25,
        "dense": by_dense,
        "rrf": rrf([by_bm25, by_dense]),
        "convex": convex(lexical, dense, ids),
    }
