"""Memory use cases: store, store a batch, list, correct and delete (versioned writes)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from app.errors import Conflict, Invalid, NotFound
from app.graph import Row, Tx, packed_vector
from app.models.feedback import SIGNALS
from app.models.memories import (
    CorrectById,
    CorrectByQuery,
    Corrected,
    Deleted,
    DeleteQuery,
    FulltextRequest,
    ListQuery,
    Memory,
    MemoryPage,
    MemoryQuery,
    NewMemory,
    StoreMemory,
)
from app.pagination import Paging
from app.registry import Registry
from app.services.entities import linking
from app.services.entities.extractor import Mention
from app.services.governance import confidence
from app.services.ids import fingerprint, time_ordered_id
from app.services.memory_view import (
    active_memory,
    metadata,
    metadata_props,
    still_active,
    to_memory,
)
from app.services.retrieval import fulltext, ranking
from app.services.retrieval.query_text import CJK_RUN, content_words, coverage
from app.services.scope import MAIN, Caller, MemoryFilter, Scope, scope_for
from app.services.versioning import snapshots, versions
from app.services.versioning.as_of import read_scope
from app.services.versioning.versions import Link, Why

AUTO = "auto"  # the source of the entity links extracted on every write
CORRECTION_TIER = "T2"
NOT_EMBEDDED = ""  # the embedding model of a memory stored without an embedding on purpose
MIN_CORRECTION_COSINE = 0.3
MIN_CORRECTION_COVERAGE = 0.5  # the share of a Chinese query's words a corrected memory holds
NEAREST_FILTERED = 50  # matches fetched when a subject, types or a session narrow or steer it


def memory_props(
    scope: Scope,
    item: NewMemory,
    embedding: list[float] | None,
    model_id: str,
    *,
    trust_tier: str | None = None,
    initial: float | None = None,
    per_session: bool = False,
) -> dict[str, Any]:
    """The node properties of a new memory (metadata as one meta_<key> property per key);
    `per_session`: only a memory of the same session is its exact duplicate."""
    tier = trust_tier or item.trust_tier
    session = item.session_id if per_session else None
    return {
        "memory_id": time_ordered_id(),
        "user_id": scope.user_id,
        "branch": scope.branch,
        "content": item.content,
        "memory_type": item.memory_type,
        "session_id": item.session_id,
        "subject_id": item.subject_id,
        "trust_tier": tier,
        "initial_confidence": confidence.initial_confidence(
            tier, initial if initial is not None else item.initial_confidence
        ),
        "is_active": True,
        "observed_at": item.observed_at or datetime.now(UTC),
        "embedding": embedding,
        "embedding_model": model_id,
        "fingerprint": fingerprint(item.memory_type, item.subject_id, item.content, session),
        **dict.fromkeys(SIGNALS, 0),
        **metadata_props(item.extra_metadata),
    }


STORED = Why("store")


def deletion(reason: str) -> dict[str, Any]:
    """What a soft delete changes on a memory."""
    return {"is_active": False, "deleted_at": datetime.now(UTC), "delete_reason": reason}


async def _create_in(
    tx: Tx, seq: int, scope: Scope, props: list[dict[str, Any]], mentions: list[list[Mention]]
) -> list[tuple[Row, bool]]:
    """Creates memories at change `seq`, each linked to the entities it mentions; an exact
    duplicate of an active memory (or of an earlier item of the same call) is not created
    again: (memory, created) in input order.

    Duplicates are resolved here, inside the change (which serialises the user's writes), so
    that only new memories reach the versioned create.
    """
    rows = await tx.run(
        "memories/active_duplicates",
        **scope.params(),
        fingerprints=list({item["fingerprint"] for item in props}),
    )
    known: dict[str, Row] = {row["fingerprint"]: row["memory"] for row in rows}
    fresh: dict[str, dict[str, Any]] = {}
    fresh_mentions: list[list[Mention]] = []
    for item, found in zip(props, mentions, strict=True):
        if item["fingerprint"] not in known and item["fingerprint"] not in fresh:
            fresh[item["fingerprint"]] = item
            fresh_mentions.append(found)
    created: dict[str, Row] = {}
    if fresh:
        # Keyed to the user's entities under the change's lock: no concurrent write of the
        # user can add a near duplicate meanwhile.
        resolved = await linking.canonical(tx.run, scope.user_id, fresh_mentions)
        owners = [item["memory_id"] for item in fresh.values()]
        links = await linking.mention_links(
            tx, scope.user_id, list(zip(owners, resolved, strict=True)), AUTO
        )
        made = await versions.create(tx, seq, list(fresh.values()), links)
        created = {row["fingerprint"]: row for row in made}
    results: list[tuple[Row, bool]] = []
    for item in props:
        key = item["fingerprint"]
        if key in known:
            results.append((known[key], False))
        else:
            results.append((created[key], fresh[key] is item))
    return results


async def _understand(
    registry: Registry, texts: list[str]
) -> tuple[list[list[float]], list[list[Mention]]]:
    """The embeddings of texts and the entities they mention. One after the other: on two
    cores, extraction beside the encode slows the encode by more than it takes."""
    embeddings = await registry.embedder.encode_documents(texts)
    return embeddings, await linking.extract_all(texts)


async def _create(
    registry: Registry,
    scope: Scope,
    items: list[NewMemory],
    why: Why,
    *,
    trust_tier: str | None = None,
    embed: bool = True,
    derived_from: Sequence[str] = (),
    per_session: bool = False,
    rehearsal: bool = False,
    entity_texts: Sequence[Sequence[str]] | None = None,
) -> list[tuple[Row, bool]]:
    """Creates memories in one change (see _create_in); each new one is linked DERIVED_FROM
    the memories `derived_from` names. Without `embed` they get no embedding: vector search
    and retrieval do not see them. `per_session`: see memory_props. A `rehearsal` rolls the
    change back. `entity_texts`, a list per item, are what their entities are read from, each
    text on its own, when that is not the content (a summary's sentences without its
    labels)."""
    texts = [item.content for item in items]
    embeddings: Sequence[list[float] | None] = (
        await registry.embedder.encode_documents(texts) if embed else [None] * len(items)
    )
    # After the encode, not beside it (see _understand).
    if entity_texts is None:
        mentions = await linking.extract_all(texts)
    else:
        found = iter(await linking.extract_all([text for own in entity_texts for text in own]))
        mentions = [[mention for _ in own for mention in next(found)] for own in entity_texts]
    model_id = registry.embedder.model_id if embed else NOT_EMBEDDED
    props = [
        memory_props(scope, item, vector, model_id, trust_tier=trust_tier, per_session=per_session)
        for item, vector in zip(items, embeddings, strict=True)
    ]

    async def work(tx: Tx) -> list[tuple[Row, bool]]:
        seq = await versions.open_change(tx, scope.user_id, scope.branch, why)
        if set(derived_from) - await still_active(tx, scope, derived_from):
            raise Conflict(
                "memories it is made from were deleted, purged or corrected while it was being "
                "made: ask again"
            )
        made = await _create_in(tx, seq, scope, props, mentions)
        sources = [
            Link(memory_id=row["memory_id"], type="DERIVED_FROM", target_memory_id=source)
            for row, created in made
            if created
            for source in derived_from
        ]
        await versions.link(tx, seq, scope.user_id, scope.branch, sources)
        return made

    if rehearsal:
        return await registry.graph.rehearse(work)
    return await registry.graph.transaction(work)


# What the startup rehearsal stores: a session, and English and Chinese entities. No user has
# the empty id.
REHEARSED_STORE = NewMemory(
    content="Maria Lund 负责 payment-service, 它依赖 redis-cache 4.2。", session_id="warm-up"
)


async def warm(registry: Registry) -> None:
    """Rehearses a store, rolled back, so that the server plans a store's statements at
    startup rather than during the first stores (planning them takes 30-90 ms each)."""
    await _create(registry, Scope("", MAIN), [REHEARSED_STORE], STORED, rehearsal=True)


async def store(registry: Registry, caller: Caller, item: StoreMemory) -> tuple[Memory, bool]:
    """Stores one memory; (memory, False) when an identical active one already exists."""
    scope = await scope_for(registry, caller, item.branch)
    [(row, created)] = await _create(registry, scope, [item], STORED)
    return to_memory(row), created


async def store_batch(
    registry: Registry,
    caller: Caller,
    items: list[NewMemory],
    branch: str | None,
    why: Why = STORED,
) -> list[Memory]:
    """Stores many memories in one encode call and one transaction."""
    scope = await scope_for(registry, caller, branch)
    return [to_memory(row) for row, _ in await _create(registry, scope, items, why)]


async def store_derived(
    registry: Registry,
    scope: Scope,
    item: NewMemory,
    sources: list[str],
    trust_tier: str,
    why: Why,
    *,
    embed: bool = True,
    per_session: bool = False,
    entity_texts: Sequence[str] | None = None,
) -> tuple[Memory, bool]:
    """Stores a memory made from others (an insight, a summary), linked DERIVED_FROM each
    source in the same change; (memory, False) when an identical active one already exists
    (`per_session`: in the same session). Its entities come from `entity_texts` (each read
    on its own) when given, else from its content."""
    [(row, created)] = await _create(
        registry,
        scope,
        [item],
        why,
        trust_tier=trust_tier,
        embed=embed,
        derived_from=sources,
        per_session=per_session,
        entity_texts=None if entity_texts is None else [entity_texts],
    )
    return to_memory(row), created


async def get(
    registry: Registry,
    caller: Caller,
    memory_id: str,
    branch: str | None,
    as_of: datetime | str | None = None,
) -> Memory:
    """One memory as it stands on the branch (or as it stood `as_of` a past moment), active or
    not (superseded, deleted, quarantined); NotFound for an unknown or another user's memory,
    or one that did not exist yet."""
    scope, moment = await read_scope(registry, caller, branch, as_of)
    rows = await registry.graph.read(
        "memories/get", **scope.params(), **moment.params(), memory_id=memory_id
    )
    if not rows:
        raise NotFound("memory not found")
    return to_memory(rows[0]["memory"], at=moment.at)


async def query(registry: Registry, caller: Caller, request: MemoryQuery) -> MemoryPage:
    """POST /v1/memories/query: the memories every filter matches, newest first, paged (as they
    stood `as_of` a past moment, if asked)."""
    scope, as_of = await read_scope(registry, caller, request.branch, request.as_of)
    paging = Paging.of(request.cursor, request.limit)
    rows = await registry.graph.read(
        "memories/query",
        **scope.params(),
        **as_of.params(),
        include_inactive=request.include_inactive,
        subject_id=request.subject_id,
        memory_types=request.memory_types,
        session_id=request.session_id,
        trust_tier=request.trust_tier,
        metadata=metadata_props(request.extra_metadata_filter or {}),
        created_after=request.created_after,
        created_before=request.created_before,
        before=paging.after,
        limit=paging.fetch,
    )
    fetched = [to_memory(row["memory"], at=as_of.at) for row in rows]
    items, next_cursor = paging.page(fetched, lambda memory: memory.memory_id)
    return MemoryPage(items=items, next_cursor=next_cursor)


async def list_page(registry: Registry, caller: Caller, query: ListQuery) -> MemoryPage:
    """A page of active memories, newest first (as they stood `as_of` a past moment, if
    asked)."""
    scope, as_of = await read_scope(registry, caller, query.branch, query.as_of)
    paging = Paging.of(query.cursor, query.limit)
    rows = await registry.graph.read(
        "memories/list",
        **scope.params(),
        **as_of.params(),
        before=paging.after,
        memory_type=query.memory_type,
        trust_tier=query.trust_tier,
        subject_id=query.subject_id,
        session_id=query.only_session,
        limit=paging.fetch,
    )
    fetched = [to_memory(row["memory"], at=as_of.at) for row in rows]
    items, next_cursor = paging.page(fetched, lambda memory: memory.memory_id)
    return MemoryPage(items=items, next_cursor=next_cursor)


async def _correct(
    registry: Registry, scope: Scope, memory_id: str, new_content: str, reason: str
) -> Memory:
    [embedding], mentions = await _understand(registry, [new_content])

    async def work(tx: Tx) -> Row:
        seq = await versions.open_change(tx, scope.user_id, scope.branch, Why("correct", reason))
        old = await active_memory(tx, scope, memory_id)
        if old["content"] == new_content:
            raise Invalid("new_content is the same as the memory's current content")
        replacement = NewMemory(
            content=new_content,
            memory_type=old["memory_type"],
            session_id=old.get("session_id"),
            subject_id=old.get("subject_id"),
            extra_metadata=metadata(old),
        )
        props = memory_props(
            scope, replacement, embedding, registry.embedder.model_id, trust_tier=CORRECTION_TIER
        )
        props["correction_reason"] = reason
        [(new, _)] = await _create_in(tx, seq, scope, [props], mentions)
        await versions.revise(
            tx,
            seq,
            scope.user_id,
            scope.branch,
            [(memory_id, {"is_active": False, "superseded_by": new["memory_id"]})],
        )
        supersedes = Link(memory_id=new["memory_id"], type="SUPERSEDES", target_memory_id=memory_id)
        await versions.link(tx, seq, scope.user_id, scope.branch, [supersedes])
        return new

    return to_memory(await registry.graph.transaction(work))


async def correct(
    registry: Registry, caller: Caller, memory_id: str, change: CorrectById
) -> Memory:
    """Replaces a memory by a corrected one (T2) that supersedes it."""
    scope = await scope_for(registry, caller, change.branch)
    return await _correct(registry, scope, memory_id, change.new_content, change.reason)


async def correct_by_query(
    registry: Registry, caller: Caller, request: CorrectByQuery
) -> Corrected:
    """Corrects the active memory closest in meaning to the query (of the subject and session
    asked for; with session_scope "prefer", the session's closest if it is close enough);
    404 when none is close."""
    scope = await scope_for(registry, caller, request.branch)
    if CJK_RUN.search(request.query):
        close = await _holding_the_words(registry, caller, request)
    else:
        close = await _close_in_meaning(registry, scope, request)
    preferred = [row for row in close if row["session_id"] == request.session_id]
    if not close:
        raise NotFound("no memory matches the query")
    matched = (preferred or close)[0]["memory_id"]
    corrected = await _correct(registry, scope, matched, request.new_content, request.reason)
    return Corrected(**corrected.model_dump(), matched_memory_id=matched)


async def _close_in_meaning(registry: Registry, scope: Scope, request: CorrectByQuery) -> list[Row]:
    """The memories nearest the query (closest first) with a cosine of MIN_CORRECTION_COSINE."""
    vector = packed_vector(await registry.embedder.encode_query(request.query))
    keep = MemoryFilter(request.memory_types, request.subject_id, request.only_session)
    filtered = keep.narrows or keep.memory_types is not None or request.session_id is not None
    rows = await registry.graph.read(
        "retrieval/nearest",
        **scope.params(),
        shadows=scope.shadows,
        vector=vector,
        k=NEAREST_FILTERED if filtered else 1,
        **keep.params(),
    )
    return [row for row in rows if ranking.cosine(row["score"]) >= MIN_CORRECTION_COSINE]


async def _holding_the_words(
    registry: Registry, caller: Caller, request: CorrectByQuery
) -> list[Row]:
    """For a query in Chinese (or with Chinese in it), which the bundled model cannot read
    (every Chinese text is about as close to every other), the memories holding at least
    MIN_CORRECTION_COVERAGE of its words, best full-text match first."""
    found = await fulltext.search(
        registry,
        caller,
        FulltextRequest(
            query=request.query,
            subject_id=request.subject_id,
            memory_types=request.memory_types,
            session_id=request.only_session,
            branch=request.branch,
            limit=NEAREST_FILTERED,
        ),
    )
    wanted = content_words(request.query)
    return [
        {"memory_id": memory.memory_id, "session_id": memory.session_id}
        for memory in found
        if coverage(wanted, memory.content) >= MIN_CORRECTION_COVERAGE
    ]


async def delete(registry: Registry, caller: Caller, memory_id: str, query: DeleteQuery) -> Deleted:
    """Soft-deletes a memory after a safety snapshot; its history stays until collected."""
    scope = await scope_for(registry, caller, query.branch)

    async def work(tx: Tx) -> str:
        seq = await versions.open_change(
            tx, scope.user_id, scope.branch, Why("delete", query.reason)
        )
        await active_memory(tx, scope, memory_id)
        name = await snapshots.take_safety(
            tx,
            scope.user_id,
            scope.branch,
            seq,
            "pre_delete",
            query.reason,
            registry.settings.safety_snapshots_kept,
        )
        await versions.revise(
            tx, seq, scope.user_id, scope.branch, [(memory_id, deletion(query.reason))]
        )
        return name

    snapshot_name = await registry.graph.transaction(work)
    return Deleted(memory_id=memory_id, deleted=True, snapshot_name=snapshot_name)
