"""Snapshot, diff, rollback and purge requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from app.models.common import Strict
from app.models.memories import BranchName, MemoryType, Name, UtcTimestamp

SnapshotName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]
Detail = Literal["brief", "normal", "full"]


class CreateSnapshot(Strict):
    name: SnapshotName
    description: Annotated[str, StringConstraints(max_length=1000)] = ""
    branch: BranchName | None = None


class Snapshot(BaseModel):
    name: str
    branch: str
    seq: int
    kind: Literal["user", "safety"]
    description: str = ""
    created_at: datetime


class SnapshotQuery(BaseModel):
    detail: Detail = "normal"
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0)


class SnapshotMemory(BaseModel):
    memory_id: str
    content: str
    memory_type: str
    session_id: str | None = None
    subject_id: str | None = None
    trust_tier: str | None = None
    confidence: float | None = None
    extra_metadata: dict[str, Any] | None = None


class SnapshotDetail(Snapshot):
    memory_count: int
    by_type: dict[str, int]
    detail: Detail
    limit: int
    offset: int
    memories: list[SnapshotMemory]


class DiffQuery(BaseModel):
    limit: int = Field(default=100, ge=1, le=1000)


class Modified(BaseModel):
    memory_id: str
    before: SnapshotMemory
    after: SnapshotMemory


class Diff(BaseModel):
    snapshot: str
    branch: str
    added: list[SnapshotMemory]
    removed: list[SnapshotMemory]
    modified: list[Modified]
    counts: dict[str, int]
    truncated: bool


class RolledBack(BaseModel):
    snapshot: str
    branch: str
    safety_snapshot: str
    ended: int
    restored: int


class Purge(Strict):
    memory_ids: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] | None = Field(
        default=None, max_length=10_000
    )
    memory_types: list[MemoryType] | None = None
    before: UtcTimestamp | None = None
    session_id: Name | None = None
    topic: Annotated[str, StringConstraints(min_length=1, max_length=4096)] | None = None
    reason: Annotated[str, StringConstraints(max_length=1000)] = ""
    branch: BranchName | None = None


class Purged(BaseModel):
    purged: int
    snapshot_name: str | None = None
