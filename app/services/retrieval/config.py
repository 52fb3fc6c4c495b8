"""Retrieval as data: the one typed configuration of ranking (candidate sources and their sizes,
fusion, the second stage's features and weights, the graph stage, the floor), its defaults and
its named recipes. Every weight of retrieval lives here; the scoring functions receive it.

A recipe is a whole configuration under a name. A retrieval plugin's manifest (see
plugins.effects) selects one and may override single fields; `explain` names the one in effect.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Candidates:
    """What the first stage fetches: the memories nearest the query by embedding,
    max(minimum, top_k * per_result) of them, and (with `fulltext`) `text_depth` times as many
    of those holding its words; `filter_factor` times more when a filter applies after the
    search."""

    fulltext: bool = True
    per_result: int = 4
    minimum: int = 40
    filter_factor: int = 4
    # The full-text index orders a user's hits by word statistics over every user's memories,
    # so the memories best by the user's own words (what ranking weighs them by) lie deeper in
    # its list the more other users' data the database holds.
    text_depth: int = 2
    # The weight in the full-text query of a phrase against the words it is made of, so that a
    # long memory holding an identifier whole outranks a short one holding its parts apart
    # (BM25 favours short texts: the words of a 16-token memory score about two thirds of the
    # same words in a 5-token one).
    phrase_boost: int = 4
    # How many times as deep the vector index is searched again when the full-text half shows
    # that the first search missed nearer memories (pipeline.vector_missed): an approximate
    # (HNSW) index finds a large user's nearest memories among millions of other users' only
    # when it looks well beyond the few it keeps (docs/retrieval.md). Every search that does
    # not miss stays as shallow as what it keeps: a deep one costs a 10,000-memory user 7 ms.
    search_factor: int = 8

    def wanted(self, top_k: int) -> int:
        """The vector half's candidates for top_k results."""
        return max(self.minimum, top_k * self.per_result)

    def searched(self, kept: int) -> int:
        """How deep the vector index is searched again for `kept` candidates after a miss."""
        return kept * self.search_factor

    def text_wanted(self, top_k: int) -> int:
        """The full-text half's candidates for top_k results."""
        return self.wanted(top_k) * self.text_depth


@dataclass(frozen=True)
class Fusion:
    """How the two halves make one relevance in 0..1 (see fusion.Scorer): `vector_weight` of the
    memory's meaning part (its cosine on the candidates' scale), the rest of its words part
    (the weighted share of the query's words it holds, and by `bm25_share` its BM25 among the
    candidates, with `bm25_k1` and `bm25_b`), scaled between 1 - text_rank_share and 1 by
    the memory's rank among the user's full-text hits,
    `text_rank_scale / (text_rank_scale + rank - 1)`. Ranks, not the engine's scores: those come
    from statistics over every user's memories."""

    vector_weight: float = 0.55
    text_rank_share: float = 0.3
    text_rank_scale: float = 20.0
    # The fewest candidates whose lowest cosine sets the meaning part's scale (see
    # fusion.Scorer); with fewer, cosines are read as they are.
    scale_from: int = 10
    # The words part's share read by BM25 among the candidates (the rest: the share of the
    # query's words the memory holds).
    bm25_share: float = 0.25
    bm25_k1: float = 1.2  # Okapi BM25's usual term-frequency saturation
    bm25_b: float = 0.75  # and length normalisation


@dataclass(frozen=True)
class Features:
    """The second stage's multipliers of relevance (see ranking.rank)."""

    session_boost: float = 1.15  # retrieve (not search): a memory of the request's session
    recency_bonus: float = 0.05  # at most, for a memory created just now
    recency_days: float = 30.0  # e-folding time of the recency bonus
    confidence_floor: float = 0.75  # what confidence 0 keeps of a score
    contradicted: float = 0.6  # consolidate kept another memory that disagrees with it
    denied: float = 0.6  # about what the question's subject is said to be unrelated to
    # A memory observed inside the time window the question names (or the request gives), or
    # up to `window_lag_days` after it (what happened is often told days later).
    in_window: float = 1.2
    window_lag_days: float = 7.0


@dataclass(frozen=True)
class GraphConfig:
    """The graph stage: a walk from the query's entities (and the best candidates') through
    MENTIONS and RELATES_TO (see graph_stage)."""

    enabled: bool = True
    max_hops: int = 3  # entity-to-entity moves from a seed entity
    hop_decay: float = 0.95  # worth kept per further memory on the path
    sharpness: float = 16.0  # how steeply a weaker path falls behind the best one
    seed_memories: int = 1  # top first-stage candidates whose entities also seed
    # Each first-stage half's best hits (in the half's own order) whose entities are checked
    # for a walk to go on from; the best candidates overall are almost always among them.
    seed_checks: int = 8
    memory_seed_weight: float = 0.5  # a candidate's entities seed less than the query's own
    hub_limit: int = 20  # entities more memories than this mention are not walked through
    max_paths: int = 200
    # What the graph's worth of a memory is taken at: this share of the best first-stage
    # relevance (then the higher of it and the memory's own fused relevance counts).
    weight: float = 0.7


@dataclass(frozen=True)
class Floor:
    """Which results are dropped though top_k is not filled: those under `relative` times the
    best score, or, when the graph stage brought in a chain of memories (the question is about
    how things connect and the chain answers it), under `after_chain` times the best score, so
    that memories far weaker than the chain do not pad it. 0: none. `min_score` in a request
    sets an absolute floor instead."""

    relative: float = 0.0
    after_chain: float = 0.5


@dataclass(frozen=True)
class RetrievalConfig:
    recipe: str = "balanced"
    candidates: Candidates = field(default_factory=Candidates)
    fusion: Fusion = field(default_factory=Fusion)
    features: Features = field(default_factory=Features)
    graph: GraphConfig = field(default_factory=GraphConfig)
    floor: Floor = field(default_factory=Floor)


DEFAULT = RetrievalConfig()

RECIPES: dict[str, RetrievalConfig] = {
    # Hybrid with the graph stage, top_k filled: the measured default.
    "balanced": DEFAULT,
    # Meaning first (paraphrasing agents, short texts with few shared words).
    "semantic": dataclasses.replace(
        DEFAULT, recipe="semantic", fusion=dataclasses.replace(DEFAULT.fusion, vector_weight=0.85)
    ),
    # Words first (identifiers, codes, names).
    "lexical": dataclasses.replace(
        DEFAULT, recipe="lexical", fusion=dataclasses.replace(DEFAULT.fusion, vector_weight=0.3)
    ),
    # Only what is close to the best: results under half the best score are dropped.
    "precise": dataclasses.replace(DEFAULT, recipe="precise", floor=Floor(relative=0.5)),
    # Always top_k, whatever the graph stage found.
    "filled": dataclasses.replace(DEFAULT, recipe="filled", floor=Floor(after_chain=0.0)),
    # The two halves alone, no graph stage.
    "flat": dataclasses.replace(
        DEFAULT, recipe="flat", graph=dataclasses.replace(DEFAULT.graph, enabled=False)
    ),
}
RECIPE_NAMES = tuple(RECIPES)


def recipe(name: str) -> RetrievalConfig:
    """The named recipe (KeyError for an unknown name: the request and manifest models only let
    known names through)."""
    return RECIPES[name]


def overridden(
    config: RetrievalConfig, overrides: Mapping[str, Mapping[str, Any]]
) -> RetrievalConfig:
    """The configuration with fields of its sections replaced (`{"fusion": {"vector_weight":
    0.5}}`); sections or fields not named keep their values."""
    sections = {
        name: dataclasses.replace(getattr(config, name), **values)
        for name, values in overrides.items()
        if values
    }
    return dataclasses.replace(config, **sections) if sections else config
