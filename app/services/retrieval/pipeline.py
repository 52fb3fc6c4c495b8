"""The retrieval pipeline: hybrid retrieve and search (vector + full-text + graph)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app import metrics
from app.embedding import EmbeddingUnavailable
from app.graph import Graph, PackedVector, packed_vector
from app.models.feedback import FEEDBACK_WEIGHT_DEFAULT
from app.models.memories import Explain, Memory, RetrieveRequest
from app.registry import Registry
from app.services.governance import confidence
from app.services.memory_view import current_confidence, to_memory, whole
from app.services.plugins import effects
from app.services.retrieval import fusion, graph_stage, graph_walk, ranking, time_window
from app.services.retrieval.config import DEFAULT, Candidates, RetrievalConfig
from app.services.retrieval.fulltext import indexes_for
from app.services.retrieval.query_text import content_words, lucene_query, words
from app.services.retrieval.time_window import TimeWindow
from app.services.scope import MAIN, Caller, MemoryFilter, Scope
from app.services.versioning.as_of import NOW, AsOf, read_scope

log = logging.getLogger(__name__)

DEFAULT_TOP_K = {"retrieve": 5, "search": 10}
# How much nearer than the vector half's weakest hit a full-text hit must be to prove the vector
# search incomplete: the index's score and the statement's cosine round differently.
SCORE_TOLERANCE = 1e-5


def text_ranks(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Each full-text hit's 1-based rank among the user's hits, hits of equal score sharing
    the better rank (1, 2, 2, 4), so that equal texts rank alike."""
    scores = sorted(
        (row["text_score"] for row in rows if row["text_score"] is not None), reverse=True
    )
    first: dict[float, int] = {}
    for position, score in enumerate(scores, start=1):
        first.setdefault(score, position)
    return {
        row["memory"]["memory_id"]: first[row["text_score"]]
        for row in rows
        if row["text_score"] is not None
    }


def _candidate(
    row: dict[str, Any],
    text_rank: int | None,
    session_id: str | None,
    now: datetime,
    query_words: frozenset[str],
    first_stage: bool = True,
    embedded: bool = True,
) -> ranking.Candidate:
    memory = row["memory"]
    split = words(memory["content"])
    return ranking.Candidate(
        first_stage=first_stage,
        length=len(split),
        frequencies={word: count for word, count in Counter(split).items() if word in query_words},
        memory_id=memory["memory_id"],
        # Without the query's embedding (the embedding endpoint down) meaning says nothing.
        cosine=ranking.cosine(row["similarity"]) if embedded else 0.0,
        words=frozenset(split),
        text_rank=text_rank,
        confidence=current_confidence(memory, now),
        age_days=confidence.age_days(memory["created_at"], now),
        same_session=session_id is not None and memory.get("session_id") == session_id,
        useful=memory.get("useful") or 0,
        irrelevant=memory.get("irrelevant") or 0,
        outdated=memory.get("outdated") or 0,
        wrong=memory.get("wrong") or 0,
        contradicted=memory.get("contradicted_by") is not None,
        observed_at=_moment(memory.get("observed_at")),
    )


def _moment(value: str | None) -> datetime | None:
    """A timestamp as the first stage's rows give it (ISO text), or None."""
    return datetime.fromisoformat(value) if value else None


def first_stage_params(
    scope: Scope,
    keep: MemoryFilter,
    vector: PackedVector,
    query: str,
    top_k: int,
    config: RetrievalConfig = DEFAULT,
    names: list[str] | None = None,
    keys: list[str] | None = None,
    as_of: AsOf = NOW,
) -> dict[str, Any]:
    """The parameters of retrieval/candidates for the top_k memories of `query`, both halves in
    one statement (the graph walk's hub limit too, for what a candidate could seed, the `names`
    to look up among the user's entities, and the query's own entity `keys`, to learn whether a
    walk from them has a seed), among the nodes of the state `as_of` names."""
    sources = config.candidates
    # Types are filtered inside the vector search; the rest apply to what the searches find.
    vector_k = sources.wanted(top_k) * (sources.filter_factor if keep.narrows else 1)
    text_narrowed = keep.narrows or keep.memory_types
    text_k = sources.text_wanted(top_k) * (sources.filter_factor if text_narrowed else 1)
    lucene = lucene_query(
        query, scope.user_id, scope.branch, scope.view_seq, as_of.seq, sources.phrase_boost
    )
    return {
        "halves": ["vector", "text"],
        **scope.params(),
        **keep.params(),
        "shadows": scope.shadows,
        "seq": as_of.seq,
        "vector": vector,
        "vector_k": vector_k,
        "vector_depth": vector_k,  # as deep as it keeps; deeper on a proven miss (first_stage)
        "indexes": indexes_for(as_of),
        "lucene": lucene if sources.fulltext else None,
        "text_k": text_k,
        "hub_limit": config.graph.hub_limit,
        "seed_ranks": config.graph.seed_checks,
        "names": names or [],
        **graph_walk.seed_params(keys or []),
    }


def _direction(registry: Registry) -> PackedVector:
    """A unit vector the vector index takes (any but zeros, which it refuses), for statements
    that need one and read no meaning from it."""
    return packed_vector([1.0] + [0.0] * (registry.embedder.dimensions - 1))


async def warm(registry: Registry) -> None:
    """Reads the retrieval plugins and runs a first stage and a walk that find nothing, so that
    the server plans their queries at startup rather than at the first retrieves (planning the
    two stages takes a few hundred milliseconds each, longer than the walk's time limit)."""
    direction = _direction(registry)
    await effects.effect(registry, "retrieval", "")
    await registry.graph.read(
        "retrieval/candidates",
        **first_stage_params(Scope("", MAIN), MemoryFilter(), direction, "", 1),
    )
    await graph_walk.warm(registry, direction)


def merged(halves: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The first stage's row from the rows its halves returned: a memory both searches found is
    one candidate with each half's score; the names found and the feedback weight are the same
    in every half that looks them up. Reads take no locks: a memory a concurrent delete was
    removing comes without its properties and is left out."""
    by_id: dict[str, dict[str, Any]] = {}
    for half in halves:
        for row in half["candidates"]:
            if not whole(row["memory"]):
                continue
            memory_id = row["memory"]["memory_id"]
            # Each half sets only its own score: what the other half set is kept.
            known = by_id.get(memory_id, {})
            by_id[memory_id] = {**row, **{k: v for k, v in known.items() if v is not None}}
    return {
        "candidates": list(by_id.values()),
        "named": sorted(
            {row["key"]: row for half in halves for row in half["named"]}.values(),
            key=lambda row: str(row["key"]),
        ),
        "seeded": any(half["seeded"] for half in halves),
        "feedback_weight": halves[0]["feedback_weight"],
    }


async def _together(*steps: Awaitable[Any]) -> list[Any]:
    """What the steps return, run at once; when one fails the others are cancelled, not left
    running."""
    tasks = [asyncio.ensure_future(step) for step in steps]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()


async def first_stage(
    graph: Graph,
    params: dict[str, Any],
    analyze: bool,
    walk_from: Callable[[dict[str, Any]], Awaitable[graph_walk.Reached | None]] | None = None,
    sources: Candidates = DEFAULT.candidates,
) -> tuple[dict[str, Any], dict[str, Any] | None, graph_walk.Reached | None]:
    """The first stage's row, its executed plan when `analyze` (both halves in one statement,
    so that the plan shows the whole stage), and what `walk_from` the names it looked up
    reached (see graph_walk.Walk.first_keys). Otherwise its halves go as two statements at
    once (after the query's encode the server has both cores to run them on), and the walk as
    soon as the full-text half is back, beside the rest of the vector half: most questions
    name no entity of the user's, and a walk that cannot start takes no core from them. When
    the full-text half shows that the vector half missed nearer memories (vector_missed), the
    vector half runs again, `sources.search_factor` times as deep, and its hits replace the
    first's."""
    walking = walk_from or _no_walk
    # The query's names are looked up among the user's entities once, with the full-text half.
    looked_up = {"names": [], **graph_walk.seed_params([])}
    vector_only = {**params, "halves": ["vector"], **looked_up}
    plan: dict[str, Any] | None = None
    if analyze:
        [row], plan = await graph.profile("retrieval/candidates", **params)
        found = merged([row])
        reached = await walking(found)
    else:
        vector_half = asyncio.ensure_future(graph.read("retrieval/candidates", **vector_only))
        try:
            [text_half] = await graph.read("retrieval/candidates", **{**params, "halves": ["text"]})
            [vector_row], reached = await _together(vector_half, walking(text_half))
        finally:
            vector_half.cancel()  # when the full-text half failed; nothing once it is done
        found = merged([vector_row, text_half])
    if vector_missed(found["candidates"]):
        [deeper] = await graph.read(
            "retrieval/candidates",
            **{**vector_only, "vector_depth": sources.searched(params["vector_k"])},
        )
        found = with_deeper_vector_half(found, deeper)
    return found, plan, reached


def vector_missed(candidates: Sequence[dict[str, Any]]) -> bool:
    """Whether the vector half provably missed memories nearer the query than those it kept: a
    full-text hit (found by its words, filtered alike) is closer in meaning than the vector
    half's weakest hit. The vector index is approximate, and a large user's search among
    millions of other users' memories can settle in the wrong part of its graph
    (docs/retrieval.md, "The vector index is approximate"); a search that found the nearest
    memories never trips this."""
    kept = [row["vector_score"] for row in candidates if row["vector_score"] is not None]
    if not kept:
        return False
    weakest = min(kept)
    return any(
        row["vector_score"] is None and (row["similarity"] or 0.0) > weakest + SCORE_TOLERANCE
        for row in candidates
    )


def with_deeper_vector_half(found: dict[str, Any], deeper: dict[str, Any]) -> dict[str, Any]:
    """The first stage's row with the vector half's hits replaced by a deeper search's (and
    marked `searched_deeper`): a memory only the shallow search found is dropped, one the
    full-text half found too stays as a full-text hit."""
    text_hits = [
        {**row, "vector_score": None}
        for row in found["candidates"]
        if row["text_score"] is not None
    ]
    return {**merged([deeper, {**found, "candidates": text_hits}]), "searched_deeper": True}


async def _no_walk(found: dict[str, Any]) -> graph_walk.Reached | None:
    return None


@dataclass
class Gathered:
    """Everything the ranking of one retrieve reads, gathered in order: the candidates with their
    signals (the graph stage's reached memories among them), the rows they came from, and what
    the ranking is asked (pure data: bench/quality.py keeps it to replay rankings offline)."""

    candidates: list[ranking.Candidate]
    rows: list[dict[str, Any]]
    query_words: frozenset[str]
    feedback_weight: float
    session_boost: bool
    top_k: int
    min_score: float | None
    config: RetrievalConfig
    expansion: graph_walk.Expansion | None
    profile: dict[str, Any] | None
    plugin: str | None
    timings: dict[str, float]
    # Why the query could not be embedded, when it could not: the full-text half answered alone.
    degraded: str | None = None
    searched_deeper: bool = False  # the vector half searched again (see first_stage)
    # The event-time window the question is about (given, or read from the query), if any.
    window: TimeWindow | None = None
    window_given: bool = False
    # The state read (now, or as of a past moment) and the snapshot that named it, if one did.
    as_of: AsOf = NOW
    snapshot: str | None = None

    def scorer(self) -> fusion.Scorer:
        """The fusion, its statistics from the first stage's candidates."""
        pool = [candidate for candidate in self.candidates if candidate.first_stage]
        return fusion.Scorer(pool, self.query_words, self.config.fusion)

    def hits(self, scorer: fusion.Scorer | None = None) -> dict[str, graph_stage.GraphHit]:
        """What the graph stage's walk makes each reached memory worth (none without a walk)."""
        if self.expansion is None:
            return {}
        return self.expansion.hits(self.config.graph, (scorer or self.scorer()).on_scale)

    def ranked(self, scorer: fusion.Scorer | None = None) -> list[ranking.Scored]:
        scorer = scorer or self.scorer()
        hits = self.hits(scorer)
        candidates = [
            dataclasses.replace(candidate, graph=hits[candidate.memory_id].score)
            if candidate.memory_id in hits
            else candidate
            for candidate in self.candidates
        ]
        return ranking.rank(
            candidates,
            scorer,
            feedback_weight=self.feedback_weight,
            session_boost=self.session_boost,
            top_k=self.top_k,
            min_score=self.min_score,
            config=self.config,
            chain=graph_walk.Expansion.chain(hits),
            window=self.window,
        )


async def gather(
    registry: Registry, caller: Caller, request: RetrieveRequest, *, mode: str
) -> Gathered:
    """The query understood and encoded, the first stage's candidates, their fusion (once, its
    statistics from them), the graph stage's walk seeded from the query's entities or the best
    candidates, and what it reached joined as candidates; all of it among the memories as they
    stand now, or as they stood at the moment `as_of` names (ranked as at that moment)."""
    started = time.perf_counter()
    scope, as_of = await read_scope(registry, caller, request.branch, request.as_of)
    top_k = request.top_k or DEFAULT_TOP_K[mode]
    plugin = await effects.effect(registry, "retrieval", scope.user_id)
    config = effects.retrieval_config(plugin, request.recipe)
    walk = (
        graph_walk.start(request.query, config.graph, as_of)
        if request.graph and config.graph.enabled
        else None
    )
    degraded = None
    try:
        vector = packed_vector(await registry.embedder.encode_query(request.query))
    except EmbeddingUnavailable as error:
        degraded, vector = error.detail, _direction(registry)
        walk = None  # no walk: what it reaches is judged by its cosine to the query
        log.warning("retrieve without the query's embedding: %s", degraded)
    embedded = time.perf_counter()
    keep = MemoryFilter(request.memory_types, request.subject_id, request.only_session)
    names, keys = (walk.names, walk.keys) if walk is not None else ([], [])
    params = first_stage_params(
        scope, keep, vector, request.query, top_k, config, names, keys, as_of
    )
    if degraded is not None:
        [row] = await registry.graph.read("retrieval/candidates", **{**params, "halves": ["text"]})
        found, profile, reached = merged([row]), None, None
    else:
        # The first walk's time falls within the candidates stage's.
        found, profile, reached = await first_stage(
            registry.graph,
            params,
            request.explain == "analyze",
            walk.walk_from(registry, scope, vector) if walk is not None else None,
            config.candidates,
        )
    queried = time.perf_counter()
    rows: list[dict[str, Any]] = found["candidates"]
    # What confidence decays and age counts to: a past state is ranked as it was then.
    now = as_of.at or datetime.now(UTC)
    session_id = request.session_id if mode == "retrieve" else None  # the session it prefers
    weight = found["feedback_weight"]
    if weight is None:
        weight = FEEDBACK_WEIGHT_DEFAULT
    query_words = content_words(request.query)
    window, given = time_window_of(request, now)
    ranks = text_ranks(rows)
    candidates = [
        _candidate(
            row,
            ranks.get(row["memory"]["memory_id"]),
            session_id,
            now,
            query_words,
            True,
            not degraded,
        )
        for row in rows
    ]
    scorer = fusion.Scorer(candidates, query_words, config.fusion)
    relevance = {candidate.memory_id: scorer.relevance(candidate) for candidate in candidates}
    # A candidate whose entities were not checked (not among either half's first hits) may
    # lead somewhere: a walk from it finds what there is, at worst nothing.
    seedable = frozenset(
        row["memory"]["memory_id"] for row in rows if row["seeds"] is None or row["seeds"] > 0
    )
    expansion = (
        await walk.finish(
            registry, scope, vector, reached, relevance, keep, seedable, found["named"]
        )
        if walk is not None
        else None
    )
    if expansion is not None:
        known = {candidate.memory_id for candidate in candidates}
        for row in expansion.rows:
            if row["memory"]["memory_id"] not in known:
                rows.append(row)
                candidates.append(
                    _candidate(row, None, session_id, now, query_words, first_stage=False)
                )
        walked_to = {row["memory"]["memory_id"] for row in expansion.rows}
        candidates = [
            expansion.marked(candidate, candidate.memory_id in walked_to)
            for candidate in candidates
        ]
    expanded = time.perf_counter()
    return Gathered(
        candidates=candidates,
        rows=rows,
        query_words=query_words,
        feedback_weight=weight,
        session_boost=mode == "retrieve",
        top_k=top_k,
        min_score=request.min_score,
        config=config,
        expansion=expansion,
        profile=profile,
        plugin=plugin.plugin if plugin else None,
        timings={
            "embed_ms": (embedded - started) * 1000,
            "candidates_ms": (queried - embedded) * 1000,
            "graph_ms": (expanded - queried) * 1000,
        },
        degraded=degraded,
        searched_deeper=found.get("searched_deeper", False),
        window=window,
        window_given=given,
        as_of=as_of,
        snapshot=request.as_of if isinstance(request.as_of, str) else None,
    )


async def hybrid(
    registry: Registry,
    caller: Caller,
    request: RetrieveRequest,
    *,
    mode: str,
) -> list[Memory] | dict[str, Any]:
    """Ranked memories; with `explain`, {"results": [...], "explain": {...}}."""
    started = time.perf_counter()
    gathered = await gather(registry, caller, request, mode=mode)
    ranking_started = time.perf_counter()
    ranked = gathered.ranked()
    by_id = {row["memory"]["memory_id"]: row["memory"] for row in gathered.rows}
    results = [to_memory(by_id[item.memory_id], item.score, gathered.as_of.at) for item in ranked]
    finished = time.perf_counter()
    timings = {**gathered.timings, "rank_ms": (finished - ranking_started) * 1000}
    for name, milliseconds in timings.items():
        metrics.RETRIEVAL_STAGE_SECONDS.labels(name.removesuffix("_ms")).observe(
            milliseconds / 1000
        )
    if not request.explain:
        return results
    return {
        "results": [memory.model_dump(mode="json") for memory in results],
        "explain": _explain(
            request.explain,
            timings={**timings, "total_ms": (finished - started) * 1000},
            gathered=gathered,
            ranked=ranked,
        ),
    }


def _explain(
    level: Explain,
    *,
    timings: dict[str, float],
    gathered: Gathered,
    ranked: list[ranking.Scored],
) -> dict[str, Any]:
    rows, expansion, config = gathered.rows, gathered.expansion, gathered.config
    hits = gathered.hits()
    report: dict[str, Any] = {
        "level": level if isinstance(level, str) else "timing",
        "timings_ms": {name: round(value, 3) for name, value in timings.items()},
        "recipe": config.recipe,  # the retrieval configuration in effect (see config.RECIPES)
        "candidates": len(rows),
        "vector_hits": sum(1 for row in rows if row["vector_score"] is not None),
        # Whether the vector half was searched again, deeper: a full-text hit proved it missed.
        "vector_searched_deeper": gathered.searched_deeper,
        "text_hits": sum(1 for row in rows if row["text_score"] is not None),
        "feedback_weight": gathered.feedback_weight,
        "graph": expansion.summary(hits) if expansion else None,
        "plugin": gathered.plugin,  # the retrieval plugin in effect for the user (key@version)
        "degraded": gathered.degraded,  # why only the full-text half answered, if it did
        "time_window": _window_report(gathered),
        "as_of": _state_report(gathered),
    }
    if level in ("verbose", "analyze"):
        report["config"] = dataclasses.asdict(config)
        raw = {row["memory"]["memory_id"]: row for row in rows}
        by_id = {candidate.memory_id: candidate for candidate in gathered.candidates}
        report["ranking"] = [
            {
                "memory_id": item.memory_id,
                "score": item.score,
                "similarity": by_id[item.memory_id].cosine,
                "vector_score": raw[item.memory_id]["vector_score"],
                "text_score": raw[item.memory_id]["text_score"],
                "text_rank": by_id[item.memory_id].text_rank,
                # What each feature contributed: the score is the product of the factors
                # (relevance, feedback, ...); relevance is the larger of vector + text and graph.
                **item.components,
                "relevance_parts": item.relevance_parts,
                **_graph_part(item, hits),
            }
            for item in ranked
        ]
    if gathered.profile is not None:
        report["plan"] = gathered.profile
    return report


def time_window_of(request: RetrieveRequest, now: datetime) -> tuple[TimeWindow | None, bool]:
    """The event-time window the request gives (observed_after / observed_before), else the one
    its query names as asked at reference_time (default now); and whether it was given."""
    if request.observed_after is not None or request.observed_before is not None:
        start = request.observed_after or time_window.OPEN_START
        end = request.observed_before or datetime.max.replace(tzinfo=UTC)
        return TimeWindow(start, end, ""), True
    return time_window.window(request.query, request.reference_time or now), False


def _window_report(gathered: Gathered) -> dict[str, Any] | None:
    window = gathered.window
    if window is None:
        return None
    return {
        "start": None if window.start == time_window.OPEN_START else window.start.isoformat(),
        "end": None if window.end.year == datetime.max.year else window.end.isoformat(),
        "expression": window.expression or None,
        "source": "request" if gathered.window_given else "query",
    }


def _state_report(gathered: Gathered) -> dict[str, Any] | None:
    """The past state read (None: now): its change seq, its time, and the snapshot that named
    it."""
    as_of = gathered.as_of
    if as_of.at is None:
        return None
    return {"seq": as_of.seq, "at": as_of.at.isoformat(), "snapshot": gathered.snapshot}


def _graph_part(item: ranking.Scored, hits: dict[str, graph_stage.GraphHit]) -> dict[str, Any]:
    """What the graph stage gave a result: its score in relevance terms, its worth and path."""
    reached = graph_walk.Expansion.explain(hits, item.memory_id)
    return {"graph": item.relevance_parts["graph"], **reached} if reached else {}
