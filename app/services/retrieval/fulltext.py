"""Full-text search: the purely lexical path, the full-text index with exact pre-filters and no
embedding, ordered by the index's score, then memory_id; now, or as the memory stood at a past
moment (`as_of`: current memories and past versions, each from its own index)."""

from __future__ import annotations

from app.models.memories import FulltextRequest, Memory
from app.registry import Registry
from app.services.memory_view import metadata_props, to_memory
from app.services.retrieval.query_text import lucene_query
from app.services.scope import Caller
from app.services.versioning.as_of import AsOf, read_scope

FULLTEXT_MIN_FETCH = 100
FULLTEXT_MAX_FETCH = 100_000
# The full-text indexes (migrations): of current memories, and of past versions (as_of).
CURRENT_INDEX = "memory_content"
VERSION_INDEX = "memory_version_content"


def indexes_for(as_of: AsOf) -> list[str]:
    """The full-text indexes a read of that state searches: a past state holds current
    memories (those created by then) and past versions (those alive then). Each index weighs
    words by the documents it holds, so their scores are alike but not equal: close enough to
    merge hits by score, as a past state is read far less often than a store writes one."""
    return [CURRENT_INDEX, VERSION_INDEX] if as_of.past else [CURRENT_INDEX]


async def search(registry: Registry, caller: Caller, request: FulltextRequest) -> list[Memory]:
    """Purely lexical search with exact filters; ordered by score, then memory_id."""
    scope, as_of = await read_scope(registry, caller, request.branch, request.as_of)
    lucene = lucene_query(request.query, scope.user_id, scope.branch, scope.view_seq, as_of.seq)
    if lucene is None:
        return []
    fetch = max(FULLTEXT_MIN_FETCH, request.limit * 5)
    while True:
        row = (
            await registry.graph.read(
                "retrieval/fulltext",
                indexes=indexes_for(as_of),
                lucene=lucene,
                fetch=fetch,
                **scope.params(),
                **as_of.params(),
                subject_id=request.subject_id,
                memory_types=request.memory_types,
                session_id=request.session_id,
                trust_tier=request.trust_tier,
                metadata=metadata_props(request.extra_metadata_filter or {}),
                limit=request.limit,
            )
        )[0]
        page = row["page"]
        # More hits beyond the fetch of an index that gave all it was asked for could still
        # belong (filters dropped too many, or a tie with the last kept score continues past
        # the fetch): fetch more.
        lowest = row["lowest"]
        settled = lowest is None or (len(page) == request.limit and page[-1]["score"] > lowest)
        if settled or fetch >= FULLTEXT_MAX_FETCH:
            return [to_memory(hit["memory"], hit["score"], as_of.at) for hit in page]
        fetch = min(FULLTEXT_MAX_FETCH, fetch * 4)
