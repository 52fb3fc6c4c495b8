"""A memory's history: the versions of it and of its correction chain, what changed and why."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from app.models.memories import FeedbackCounts, MemoryType, MetadataValue, TrustTier

# What a change of a user's memory did; recorded with the change (see versions.Why).
ChangeKind = Literal[
    "store",
    "observe",
    "reflect",
    "summary",
    "correct",
    "delete",
    "purge",
    "feedback",
    "link",
    "extract_entities",
    "consolidate",
    "governance",
    "rollback",
    "fork",
    "merge",
    "pick",
    "restore",
]
# How a version came about: the change's kind, made precise where one change does several
# things (governance quarantines some memories and expires others).
Cause = Literal[ChangeKind, "quarantine", "expire", "supersede"]
# What may differ between two versions of one memory.
Aspect = Literal[
    "created",
    "content",
    "memory_type",
    "trust_tier",
    "confidence",
    "active",
    "metadata",
    "feedback",
    "links",
]


class VersionLink(BaseModel):
    """A relationship the version owns: its type and what it points at (a memory id, an
    entity's name, a session id)."""

    type: str
    target: str | None


class Version(BaseModel):
    memory_id: str
    seq: int
    ended_seq: int | None
    at: datetime
    cause: Cause | None  # None where the change predates change records
    reason: str | None
    changed: list[Aspect]
    content: str
    memory_type: MemoryType
    trust_tier: TrustTier
    initial_confidence: float
    is_active: bool
    quarantined: bool
    superseded_by: str | None
    extra_metadata: dict[str, MetadataValue]
    feedback: FeedbackCounts
    links: list[VersionLink]
    snapshots: list[str]  # the snapshots that hold this version


class History(BaseModel):
    memory_id: str
    branch: str
    versions: list[Version]  # oldest first
