"""Memories: store, batch, list, correct, delete, observe and the profile view."""

from __future__ import annotations

import hashlib
import os
import time
from datetime import UTC, datetime
from typing import Any, cast

from pydantic import ValidationError

from app.embedder import Embedder
from app.errors import Invalid, NotFound, Unavailable
from app.graph import Graph, Row, Tx, packed_vector
from app.llm import LlmClient
from app.models.memories import (
    Corrected,
    Deleted,
    FeedbackCounts,
    Memory,
    MemoryPage,
    MemoryType,
    NewMemory,
    Observed,
    Profile,
)
from app.models.snapshots import Purge, Purged
from app.pagination import decode_cursor, encode_cursor
from app.services import confidence, snapshots, versions
from app.services.query_text import lucene_query
from app.services.scope import Caller, Scope, scope_for

META_PREFIX = "meta_"
FEEDBACK_SIGNALS = ("useful", "irrelevant", "outdated", "wrong")
CORRECTION_TIER = "T2"
OBSERVED_CONFIDENCE = 0.7
DISTILLED_TIER = "T3"
DISTILLED_TYPES = ("semantic", "profile", "procedural", "working", "tool_result")
MIN_CORRECTION_COSINE = 0.3
RAW_OBSERVE_WARNING = (
    "no LLM is configured: each message was stored as it was, without distillation"
)


COUNTER_BITS = 12  # rand_a of RFC 9562 used as a counter within one millisecond
_last_stamp = (0, 0)  # (millis, counter) of the last id this process issued


def new_memory_id() -> str:
    """A UUIDv7 as 32 lowercase hex: time-ordered, so id order is creation order.

    Within one millisecond the 12-bit rand_a field counts up (RFC 9562, method 1), so ids
    issued by this process in one batch also sort in the order they were issued.
    """
    global _last_stamp
    millis = time.time_ns() // 1_000_000
    last_millis, last_counter = _last_stamp
    if millis > last_millis:
        counter = int.from_bytes(os.urandom(2), "big") >> (16 - COUNTER_BITS + 1)  # lower half
    elif last_counter + 1 < 1 << COUNTER_BITS:
        millis, counter = last_millis, last_counter + 1
    else:  # counter exhausted: borrow the next millisecond
        millis, counter = last_millis + 1, 0
    _last_stamp = (millis, counter)
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= counter << 64
    value |= 0x2 << 62  # RFC 9562 variant bits
    value |= int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    return f"{value:032x}"


def fingerprint(memory_type: str, subject_id: str | None, content: str) -> str:
    """What makes two memories exact duplicates (same user and branch assumed)."""
    return hashlib.sha256(f"{memory_type}\x00{subject_id or ''}\x00{content}".encode()).hexdigest()


def memory_props(
    scope: Scope,
    item: NewMemory,
    embedding: list[float],
    *,
    trust_tier: str | None = None,
    initial: float | None = None,
) -> dict[str, Any]:
    """The node properties of a new memory (metadata as one meta_<key> property per key)."""
    tier = trust_tier or item.trust_tier
    props: dict[str, Any] = {
        "memory_id": new_memory_id(),
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
        "fingerprint": fingerprint(item.memory_type, item.subject_id, item.content),
        **dict.fromkeys(FEEDBACK_SIGNALS, 0),
    }
    props.update({META_PREFIX + key: value for key, value in item.extra_metadata.items()})
    return props


def to_memory(props: Row, retrieval_score: float | None = None) -> Memory:
    """A node's properties as the API's memory (confidence decayed to now)."""
    now = datetime.now(UTC)
    tier = props["trust_tier"]
    initial = props["initial_confidence"]
    return Memory(
        memory_id=props["memory_id"],
        id=props["memory_id"],
        user_id=props["user_id"],
        content=props["content"],
        memory_type=props["memory_type"],
        session_id=props.get("session_id"),
        subject_id=props.get("subject_id"),
        trust_tier=tier,
        initial_confidence=initial,
        confidence=confidence.decayed(
            initial, tier, confidence.age_days(props["observed_at"], now)
        ),
        is_active=props["is_active"],
        superseded_by=props.get("superseded_by"),
        observed_at=confidence.timestamp(props["observed_at"]),
        created_at=confidence.timestamp(props["created_at"]),
        updated_at=confidence.timestamp(props["updated_at"]),
        branch=props["branch"],
        extra_metadata={
            key.removeprefix(META_PREFIX): value
            for key, value in props.items()
            if key.startswith(META_PREFIX)
        },
        feedback=FeedbackCounts(**{signal: props.get(signal) or 0 for signal in FEEDBACK_SIGNALS}),
        retrieval_score=retrieval_score,
    )


async def _create_in(
    tx: Tx, seq: int, user_id: str, branch: str, props: list[dict[str, Any]]
) -> list[tuple[Row, bool]]:
    """Creates memories at change `seq`; an exact duplicate of an active memory (or of an
    earlier item of the same call) is not created again: (memory, created) in input order.

    Duplicates are resolved here, inside the change (which serialises the user's writes), so
    that only new memories reach the versioned create.
    """
    rows = await tx.run(
        "memories/active_duplicates",
        user_id=user_id,
        branch=branch,
        fingerprints=list({item["fingerprint"] for item in props}),
    )
    known: dict[str, Row] = {row["fingerprint"]: row["memory"] for row in rows}
    fresh: dict[str, dict[str, Any]] = {}
    for item in props:
        if item["fingerprint"] not in known:
            fresh.setdefault(item["fingerprint"], item)
    created: dict[str, Row] = {}
    if fresh:
        made = await versions.create(tx, seq, list(fresh.values()))
        created = {row["fingerprint"]: row for row in made}
    results: list[tuple[Row, bool]] = []
    for item in props:
        key = item["fingerprint"]
        if key in known:
            results.append((known[key], False))
        else:
            results.append((created[key], fresh[key] is item))
    return results


async def _create(
    graph: Graph, scope: Scope, props: list[dict[str, Any]]
) -> list[tuple[Row, bool]]:
    async def work(tx: Tx) -> list[tuple[Row, bool]]:
        seq = await versions.open_change(tx, scope.user_id)
        return await _create_in(tx, seq, scope.user_id, scope.branch, props)

    return await graph.transaction(work)


async def store(
    graph: Graph, embedder: Embedder, caller: Caller, item: NewMemory, branch: str | None
) -> tuple[Memory, bool]:
    """Stores one memory; (memory, False) when an identical active one already exists."""
    scope = await scope_for(graph, caller, branch)
    [embedding] = await embedder.encode([item.content])
    [(row, created)] = await _create(graph, scope, [memory_props(scope, item, embedding)])
    return to_memory(row), created


async def store_batch(
    graph: Graph, embedder: Embedder, caller: Caller, items: list[NewMemory], branch: str | None
) -> list[Memory]:
    """Stores up to 100 memories in one encode call and one transaction."""
    scope = await scope_for(graph, caller, branch)
    embeddings = await embedder.encode([item.content for item in items])
    props = [
        memory_props(scope, item, vector) for item, vector in zip(items, embeddings, strict=True)
    ]
    return [to_memory(row) for row, _ in await _create(graph, scope, props)]


async def list_page(
    graph: Graph,
    caller: Caller,
    *,
    limit: int,
    cursor: str | None,
    memory_type: str | None,
    branch: str | None,
) -> MemoryPage:
    scope = await scope_for(graph, caller, branch)
    rows = await graph.read(
        "memories/list",
        user_id=scope.user_id,
        branch=scope.branch,
        before=decode_cursor(cursor) if cursor else None,
        memory_type=memory_type,
        limit=limit + 1,
    )
    items = [to_memory(row["memory"]) for row in rows[:limit]]
    next_cursor = encode_cursor(items[-1].memory_id) if len(rows) > limit else None
    return MemoryPage(items=items, next_cursor=next_cursor)


async def _active(tx: Tx, scope: Scope, memory_id: str) -> Row:
    rows = await tx.run(
        "memories/get_active", user_id=scope.user_id, branch=scope.branch, memory_id=memory_id
    )
    if not rows:
        raise NotFound("memory not found")
    memory: Row = rows[0]["memory"]
    return memory


async def _correct(
    graph: Graph, embedder: Embedder, scope: Scope, memory_id: str, new_content: str, reason: str
) -> Memory:
    [embedding] = await embedder.encode([new_content])

    async def work(tx: Tx) -> Row:
        seq = await versions.open_change(tx, scope.user_id)
        old = await _active(tx, scope, memory_id)
        if old["content"] == new_content:
            raise Invalid("new_content is the same as the memory's current content")
        replacement = NewMemory(
            content=new_content,
            memory_type=old["memory_type"],
            session_id=old.get("session_id"),
            subject_id=old.get("subject_id"),
            extra_metadata={
                key.removeprefix(META_PREFIX): value
                for key, value in old.items()
                if key.startswith(META_PREFIX)
            },
        )
        props = memory_props(scope, replacement, embedding, trust_tier=CORRECTION_TIER)
        props["correction_reason"] = reason
        [(new, _)] = await _create_in(tx, seq, scope.user_id, scope.branch, [props])
        await versions.revise(
            tx,
            seq,
            scope.user_id,
            scope.branch,
            [(memory_id, {"is_active": False, "superseded_by": new["memory_id"]})],
        )
        await tx.run(
            "memories/link_supersedes",
            user_id=scope.user_id,
            branch=scope.branch,
            new_id=new["memory_id"],
            old_id=memory_id,
        )
        return new

    return to_memory(await graph.transaction(work))


async def correct(
    graph: Graph,
    embedder: Embedder,
    caller: Caller,
    memory_id: str,
    new_content: str,
    reason: str,
    branch: str | None,
) -> Memory:
    """Replaces a memory by a corrected one (T2) that supersedes it."""
    scope = await scope_for(graph, caller, branch)
    return await _correct(graph, embedder, scope, memory_id, new_content, reason)


async def correct_by_query(
    graph: Graph,
    embedder: Embedder,
    caller: Caller,
    query: str,
    new_content: str,
    reason: str,
    branch: str | None,
) -> Corrected:
    """Corrects the active memory closest in meaning to `query`; 404 when none is close."""
    scope = await scope_for(graph, caller, branch)
    vector = packed_vector(await embedder.encode_query(query))
    rows = await graph.read(
        "retrieval/nearest", user_id=scope.user_id, branch=scope.branch, vector=vector
    )
    if not rows or 2 * rows[0]["score"] - 1 < MIN_CORRECTION_COSINE:
        raise NotFound("no memory matches the query")
    matched = rows[0]["memory_id"]
    corrected = await _correct(graph, embedder, scope, matched, new_content, reason)
    return Corrected(**corrected.model_dump(), matched_memory_id=matched)


def _deletion(reason: str) -> dict[str, Any]:
    return {"is_active": False, "deleted_at": datetime.now(UTC), "delete_reason": reason}


async def delete(
    graph: Graph,
    caller: Caller,
    memory_id: str,
    reason: str,
    branch: str | None,
    safety_kept: int,
) -> Deleted:
    """Soft-deletes a memory after a safety snapshot; its history stays until collected."""
    scope = await scope_for(graph, caller, branch)

    async def work(tx: Tx) -> str:
        seq = await versions.open_change(tx, scope.user_id)
        await _active(tx, scope, memory_id)
        name = await snapshots.take_safety(
            tx, scope.user_id, scope.branch, seq, "pre_delete", reason, safety_kept
        )
        await versions.revise(
            tx,
            seq,
            scope.user_id,
            scope.branch,
            [
                (
                    memory_id,
                    {"is_active": False, "deleted_at": datetime.now(UTC), "delete_reason": reason},
                )
            ],
        )
        return name

    snapshot_name = await graph.transaction(work)
    return Deleted(memory_id=memory_id, deleted=True, snapshot_name=snapshot_name)


def _distilled_type(value: object) -> MemoryType:
    return cast(MemoryType, value) if value in DISTILLED_TYPES else "semantic"


DISTILL_PROMPT = """You extract durable memories from a conversation between a user and an \
assistant. Answer with a JSON object {"facts": [{"content": str, "memory_type": str}]} where \
memory_type is one of semantic, profile, procedural, working, tool_result. Keep each fact short, \
self-contained and in the user's language; skip greetings and small talk."""


def _distilled_facts(answer: dict[str, Any], session_id: str | None) -> list[NewMemory]:
    """The LLM's facts as new T3 memories; a fact that is not a valid memory is skipped."""
    raw = answer.get("facts", [])
    if not isinstance(raw, list):
        raise Unavailable('the LLM did not answer with a list of "facts"')
    facts = []
    for fact in raw:
        if not isinstance(fact, dict) or not isinstance(fact.get("content"), str):
            continue
        try:
            facts.append(
                NewMemory(
                    content=fact["content"],
                    memory_type=_distilled_type(fact.get("memory_type")),
                    session_id=session_id,
                    trust_tier=DISTILLED_TIER,
                )
            )
        except ValidationError:  # blank or over the content limit
            continue
    return facts


async def observe(
    graph: Graph,
    embedder: Embedder,
    llm: LlmClient | None,
    caller: Caller,
    messages: list[tuple[str, str]],
    session_id: str | None,
    branch: str | None,
) -> Observed:
    """Turns a conversation into memories: distilled by the LLM, or message by message."""
    if llm is None:
        items = [
            NewMemory(
                content=content, session_id=session_id, initial_confidence=OBSERVED_CONFIDENCE
            )
            for role, content in messages
            if role in ("user", "assistant") and content.strip()
        ]
        stored = await store_batch(graph, embedder, caller, items, branch) if items else []
        return Observed(memories=stored, warning=RAW_OBSERVE_WARNING)
    transcript = "\n".join(f"{role}: {content}" for role, content in messages)
    answer = await llm.complete_json(DISTILL_PROMPT, transcript)
    facts = _distilled_facts(answer, session_id)
    stored = await store_batch(graph, embedder, caller, facts, branch) if facts else []
    return Observed(memories=stored)


async def profile(graph: Graph, caller: Caller) -> Profile:
    """The user's profile memories joined as text, with active memory counts by type."""
    scope = await scope_for(graph, caller, None)
    row = (await graph.read("memories/profile", user_id=scope.user_id, branch=scope.branch))[0]
    memories = [to_memory(props) for props in row["profile"]]
    stats = {item["memory_type"]: item["count"] for item in row["counts"]}
    return Profile(
        user_id=scope.user_id,
        profile="\n".join(memory.content for memory in memories),
        memories=memories,
        stats=stats,
        total=sum(stats.values()),
    )


async def purge(
    graph: Graph,
    caller: Caller,
    request: Purge,
    safety_kept: int,
) -> Purged:
    """Soft-deletes every memory matching all the given selectors, after a safety snapshot."""
    selectors = (
        request.memory_ids,
        request.memory_types,
        request.before,
        request.session_id,
        request.topic,
    )
    if all(selector is None for selector in selectors):
        return Purged(purged=0)
    scope = await scope_for(graph, caller, request.branch)
    topic_ids = None
    if request.topic is not None:
        lucene = lucene_query(request.topic, scope.user_id)
        rows = (
            await graph.read(
                "memories/topic_ids", lucene=lucene, user_id=scope.user_id, branch=scope.branch
            )
            if lucene
            else []
        )
        topic_ids = [row["memory_id"] for row in rows]

    async def work(tx: Tx) -> Purged:
        seq = await versions.open_change(tx, scope.user_id)
        matched = await tx.run(
            "memories/select_for_purge",
            user_id=scope.user_id,
            branch=scope.branch,
            memory_ids=request.memory_ids,
            memory_types=request.memory_types,
            before=request.before,
            session_id=request.session_id,
            topic_ids=topic_ids,
        )
        name = await snapshots.take_safety(
            tx, scope.user_id, scope.branch, seq, "pre_purge", request.reason, safety_kept
        )
        removal = _deletion(request.reason)
        await versions.revise(
            tx, seq, scope.user_id, scope.branch, [(row["memory_id"], removal) for row in matched]
        )
        return Purged(purged=len(matched), snapshot_name=name)

    return await graph.transaction(work)
