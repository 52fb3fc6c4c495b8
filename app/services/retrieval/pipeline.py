"""The retrieval pipeline: hybrid retrieve and search (vector + full-text) and full-text search."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from app import metrics
from app.graph import PackedVector, packed_vector
from app.models.feedback import FEEDBACK_WEIGHT_DEFAULT
from app.models.memories import Explain, FulltextRequest, Memory, RetrieveRequest
from app.registry import Registry
from app.services.governance import confidence
from app.services.memory_view import current_confidence, metadata_props, to_memory, whole
from app.services.plugins import effects
from app.services.retrieval import graph_walk, ranking
from app.services.retrieval.query_text import content_words, coverage, lucene_query
from app.services.scope import MAIN, Caller, MemoryFilter, Scope, scope_for

DEFAULT_TOP_K = {"retrieve": 5, "search": 10}
CANDIDATE_FACTOR = 4
MIN_CANDIDATES = 20
FILTER_FACTOR = 4  # how many more candidates a filtered search fetches
FULLTEXT_MIN_FETCH = 100
FULLTEXT_MAX_FETCH = 100_000


def _candidate(
    row: dict[str, Any], query_words: frozenset[str], session_id: str | None, now: datetime
) -> ranking.Candidate:
    memory = row["memory"]
    vector_score = row["vector_score"]
    text_score = row["text_score"]
    return ranking.Candidate(
        memory_id=memory["memory_id"],
        cosine=None if vector_score is None else ranking.cosine(vector_score),
        text_score=text_score,
        text_coverage=coverage(query_words, memory["content"]) if text_score is not None else 0.0,
        confidence=current_confidence(memory, now),
        age_days=confidence.age_days(memory["created_at"], now),
        same_session=session_id is not None and memory.get("session_id") == session_id,
        useful=memory.get("useful") or 0,
        irrelevant=memory.get("irrelevant") or 0,
        outdated=memory.get("outdated") or 0,
        wrong=memory.get("wrong") or 0,
        contradicted=memory.get("contradicted_by") is not None,
    )


def first_stage_params(
    scope: Scope,
    keep: MemoryFilter,
    vector: PackedVector,
    query: str,
    top_k: int,
    hub_limit: int = graph_walk.GRAPH.hub_limit,
) -> dict[str, Any]:
    """The parameters of retrieval/candidates for the top_k memories of `query` (`hub_limit`:
    the graph walk's, for what a candidate could seed)."""
    wanted = max(MIN_CANDIDATES, top_k * CANDIDATE_FACTOR)
    # Types are filtered inside the vector search; the rest apply to what the searches find.
    vector_k = wanted * FILTER_FACTOR if keep.narrows else wanted
    text_k = wanted * FILTER_FACTOR if keep.narrows or keep.memory_types else wanted
    return {
        **scope.params(),
        **keep.params(),
        "shadows": scope.shadows,
        "vector": vector,
        "vector_k": vector_k,
        "lucene": lucene_query(query, scope.user_id, scope.branch, scope.view_seq),
        "text_k": text_k,
        "hub_limit": hub_limit,
    }


async def warm(registry: Registry) -> None:
    """Reads the retrieval plugins and runs a first stage and a walk that find nothing, so that
    the server plans their queries at startup rather than at the first retrieves (planning the
    two stages takes a few hundred milliseconds each, longer than the walk's time limit)."""
    # Any vector but zeros, which a vector search refuses.
    direction = packed_vector([1.0] + [0.0] * (registry.embedder.dimensions - 1))
    await effects.effect(registry, "retrieval", "")
    await registry.graph.read(
        "retrieval/candidates",
        **first_stage_params(Scope("", MAIN), MemoryFilter(), direction, "", 1),
    )
    await graph_walk.warm(registry, direction)


async def hybrid(
    registry: Registry,
    caller: Caller,
    request: RetrieveRequest,
    *,
    mode: str,
) -> list[Memory] | dict[str, Any]:
    """Ranked memories; with `explain`, {"results": [...], "explain": {...}}."""
    started = time.perf_counter()
    scope = await scope_for(registry, caller, request.branch)
    top_k = request.top_k or DEFAULT_TOP_K[mode]
    plugin = await effects.effect(registry, "retrieval", scope.user_id)
    weights, graph_config = effects.retrieval_settings(plugin)
    # The walk's residual query is queued first, so that one model call encodes both.
    walk = (
        graph_walk.start(registry, request.query, graph_config)
        if request.graph and graph_config.enabled
        else None
    )
    vector = packed_vector(await registry.embedder.encode_query(request.query))
    embedded = time.perf_counter()
    keep = MemoryFilter(request.memory_types, request.subject_id, request.only_session)
    params = first_stage_params(scope, keep, vector, request.query, top_k, graph_config.hub_limit)

    async def first_stage() -> tuple[dict[str, Any], dict[str, Any] | None]:
        if request.explain == "analyze":
            [found], plan = await registry.graph.profile("retrieval/candidates", **params)
            return found, plan
        [found] = await registry.graph.read("retrieval/candidates", **params)
        return found, None

    # A walk from the query's own entities needs nothing from the first stage: the two round
    # trips run at once (its time then falls within the candidates stage's).
    reached: graph_walk.Reached | None = None
    if walk is not None and walk.keys:
        searching = asyncio.ensure_future(first_stage())
        walking = asyncio.ensure_future(walk.reach(registry, scope, vector, []))
        try:
            (found, profile), reached = await asyncio.gather(searching, walking)
        finally:  # when one fails, the other is not left running
            searching.cancel()
            walking.cancel()
    else:
        found, profile = await first_stage()
    queried = time.perf_counter()
    rows: list[dict[str, Any]] = [row for row in found["candidates"] if whole(row["memory"])]
    now = datetime.now(UTC)
    session_id = request.session_id if mode == "retrieve" else None  # the session it prefers
    weight = found["feedback_weight"]
    if weight is None:
        weight = FEEDBACK_WEIGHT_DEFAULT
    query_words = content_words(request.query)
    candidates = [_candidate(row, query_words, session_id, now) for row in rows]
    seedable = frozenset(row["memory"]["memory_id"] for row in rows if row["seeds"])
    expansion = (
        await walk.finish(registry, scope, vector, reached, candidates, keep, seedable, weights)
        if walk is not None
        else None
    )
    if expansion is not None:
        known = {candidate.memory_id for candidate in candidates}
        for row in expansion.rows:
            if row["memory"]["memory_id"] not in known:
                rows.append(row)
                candidates.append(_candidate(row, query_words, session_id, now))
        candidates = [expansion.scored(candidate) for candidate in candidates]
    expanded = time.perf_counter()
    ranked = ranking.rank(
        candidates,
        feedback_weight=weight,
        session_boost=mode == "retrieve",
        top_k=top_k,
        min_score=request.min_score,
        weights=weights,
    )
    by_id = {row["memory"]["memory_id"]: row["memory"] for row in rows}
    results = [to_memory(by_id[item.memory_id], item.score) for item in ranked]
    finished = time.perf_counter()
    for stage, seconds in (
        ("embed", embedded - started),
        ("candidates", queried - embedded),
        ("graph", expanded - queried),
        ("rank", finished - expanded),
    ):
        metrics.RETRIEVAL_STAGE_SECONDS.labels(stage).observe(seconds)
    if not request.explain:
        return results
    return {
        "results": [memory.model_dump(mode="json") for memory in results],
        "explain": _explain(
            request.explain,
            timings={
                "embed_ms": (embedded - started) * 1000,
                "candidates_ms": (queried - embedded) * 1000,
                "graph_ms": (expanded - queried) * 1000,
                "rank_ms": (finished - expanded) * 1000,
                "total_ms": (finished - started) * 1000,
            },
            rows=rows,
            candidates=candidates,
            ranked=ranked,
            weight=weight,
            profile=profile,
            expansion=expansion,
            plugin=plugin.plugin if plugin else None,
        ),
    }


def _explain(
    level: Explain,
    *,
    timings: dict[str, float],
    rows: list[dict[str, Any]],
    candidates: list[ranking.Candidate],
    ranked: list[ranking.Scored],
    weight: float,
    profile: dict[str, Any] | None,
    expansion: graph_walk.Expansion | None,
    plugin: str | None,
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "level": level if isinstance(level, str) else "timing",
        "timings_ms": {name: round(value, 3) for name, value in timings.items()},
        "candidates": len(rows),
        "vector_hits": sum(1 for row in rows if row["vector_score"] is not None),
        "text_hits": sum(1 for row in rows if row["text_score"] is not None),
        "feedback_weight": weight,
        "graph": expansion.summary() if expansion else None,
        "plugin": plugin,  # the retrieval plugin in effect for the user (key@version)
    }
    if level in ("verbose", "analyze"):
        raw = {row["memory"]["memory_id"]: row for row in rows}
        coverages = {candidate.memory_id: candidate.text_coverage for candidate in candidates}
        report["ranking"] = [
            {
                "memory_id": item.memory_id,
                "score": item.score,
                "vector_score": raw[item.memory_id]["vector_score"],
                "text_score": raw[item.memory_id]["text_score"],
                "text_coverage": coverages[item.memory_id],
                **item.components,
                **(expansion.explain(item.memory_id) if expansion else {}),
            }
            for item in ranked
        ]
    if profile is not None:
        report["plan"] = profile
    return report


async def fulltext(registry: Registry, caller: Caller, request: FulltextRequest) -> list[Memory]:
    """Purely lexical search with exact filters; ordered by score, then memory_id."""
    scope = await scope_for(registry, caller, request.branch)
    lucene = lucene_query(request.query, scope.user_id, scope.branch, scope.view_seq)
    if lucene is None:
        return []
    fetch = max(FULLTEXT_MIN_FETCH, request.limit * 5)
    while True:
        row = (
            await registry.graph.read(
                "retrieval/fulltext",
                lucene=lucene,
                fetch=fetch,
                **scope.params(),
                subject_id=request.subject_id,
                memory_types=request.memory_types,
                session_id=request.session_id,
                trust_tier=request.trust_tier,
                metadata=metadata_props(request.extra_metadata_filter or {}),
                limit=request.limit,
            )
        )[0]
        page = row["page"]
        exhausted = row["raw_hits"] < fetch
        # More hits beyond the fetch could still belong (filters dropped too many, or a tie
        # with the last kept score continues past the fetch): fetch more.
        settled = len(page) == request.limit and page[-1]["score"] > row["lowest"]
        if exhausted or settled or fetch >= FULLTEXT_MAX_FETCH:
            return [to_memory(hit["memory"], hit["score"]) for hit in page]
        fetch = min(FULLTEXT_MAX_FETCH, fetch * 4)
