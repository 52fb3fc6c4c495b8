"""Stored memory nodes as API models: the meta_ encoding of metadata, decayed confidence, the
full (`Memory`) and snapshot (`SnapshotMemory`) views, reading one current memory, and how many
a branch holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from app.errors import NotFound
from app.graph import Row, Tx
from app.models.feedback import SIGNALS
from app.models.memories import META_PREFIX, FeedbackCounts, Memory, is_metadata
from app.models.snapshots import Detail, SnapshotMemory
from app.registry import Registry
from app.services.governance import confidence
from app.services.scope import Scope

CONTENT_CUT: dict[Detail, int] = {"brief": 80, "normal": 200}


def metadata_props(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata as node properties (meta_<key>)."""
    return {META_PREFIX + key: value for key, value in metadata.items()}


def metadata(props: Row) -> dict[str, Any]:
    """A node's metadata, back from its meta_<key> properties (or from the [key, value] pairs
    of those that the retrieval statements project as `metadata` instead of every property)."""
    pairs = props.get("metadata")
    found = props.items() if pairs is None else pairs
    return {key.removeprefix(META_PREFIX): value for key, value in found if is_metadata(key)}


# What every memory node holds, and to_memory reads: all of it. Reads take no locks: a node
# deleted while a read projected it (its branch dropped under a search) comes back with some of
# these, or none.
NODE_FIELDS = (
    "memory_id",
    "user_id",
    "branch",
    "content",
    "memory_type",
    "trust_tier",
    "initial_confidence",
    "is_active",
    "observed_at",
    "created_at",
    "updated_at",
)


def whole(props: Row) -> bool:
    """Whether a node read back is all there (not deleted while it was read)."""
    return None not in map(props.get, NODE_FIELDS)  # at C speed: every candidate of a retrieve


def current_confidence(props: Row, now: datetime) -> float:
    """The node's confidence decayed from its observation to `now` at its tier's rate."""
    return confidence.decayed(
        props["initial_confidence"],
        props["trust_tier"],
        confidence.age_days(props["observed_at"], now),
    )


def to_memory(
    props: Row, retrieval_score: float | None = None, at: datetime | None = None
) -> Memory:
    """A node's properties as the API's memory, its confidence decayed to `at` (a past state's
    time, see versioning.as_of) or to now."""
    return Memory(
        memory_id=props["memory_id"],
        id=props["memory_id"],
        user_id=props["user_id"],
        content=props["content"],
        memory_type=props["memory_type"],
        session_id=props.get("session_id"),
        subject_id=props.get("subject_id"),
        trust_tier=props["trust_tier"],
        initial_confidence=props["initial_confidence"],
        confidence=current_confidence(props, at or datetime.now(UTC)),
        is_active=props["is_active"],
        superseded_by=props.get("superseded_by"),
        observed_at=confidence.timestamp(props["observed_at"]),
        created_at=confidence.timestamp(props["created_at"]),
        updated_at=confidence.timestamp(props["updated_at"]),
        branch=props["branch"],
        extra_metadata=metadata(props),
        feedback=FeedbackCounts(**{signal: props.get(signal) or 0 for signal in SIGNALS}),
        retrieval_score=retrieval_score,
    )


def to_snapshot_memory(props: Row, detail: Detail = "full") -> SnapshotMemory:
    """A node as snapshot details and diffs show it: content cut short below `full`, whose
    confidence and metadata only `full` shows."""
    content = props["content"]
    cut = CONTENT_CUT.get(detail)
    if cut is not None and len(content) > cut:
        content = content[:cut] + "…"
    full = detail == "full"
    return SnapshotMemory(
        memory_id=props["memory_id"],
        content=content,
        memory_type=props["memory_type"],
        session_id=props.get("session_id"),
        subject_id=props.get("subject_id"),
        trust_tier=props.get("trust_tier"),
        confidence=current_confidence(props, datetime.now(UTC)) if full else None,
        extra_metadata=metadata(props) if full else None,
    )


async def active_memory(tx: Tx, scope: Scope, memory_id: str) -> Row:
    """The branch's current active node of a memory; NotFound when it has none."""
    rows = await tx.run("memories/get_active", **scope.params(), memory_id=memory_id)
    if not rows:
        raise NotFound("memory not found")
    memory: Row = rows[0]["memory"]
    return memory


async def still_active(tx: Tx, scope: Scope, memory_ids: Sequence[str]) -> set[str]:
    """Which of the memories are active on the scope's branch, read in the caller's change:
    those a slow job (an LLM's answer) may still write to or derive from."""
    if not memory_ids:
        return set()
    [row] = await tx.run("memories/active_among", **scope.params(), memory_ids=list(memory_ids))
    return set(row["memory_ids"])


async def active_count(registry: Registry, scope: Scope) -> int:
    """How many active memories the scope's branch holds now."""
    [row] = await registry.graph.read("memories/count", **scope.params())
    return int(row["count"])
