"""Snapshot, diff and rollback requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, RootModel

from app.models.common import PAGE_SIZE_DEFAULT, SAFE_INT_MAX, Note, PageSize, Slug, Strict
from app.models.memories import BranchName

SnapshotName = Slug
Detail = Literal["brief", "normal", "full"]


class CreateSnapshot(Strict):
    name: SnapshotName
    description: Note = ""
    branch: BranchName | None = None


class Snapshot(BaseModel):
    name: str
    branch: str
    seq: int
    kind: Literal["user", "safety"]
    description: str = ""
    created_at: datetime


class SnapshotList(RootModel[list[Snapshot]]):
    """Snapshots, newest first."""


class SnapshotQuery(BaseModel):
    detail: Detail = "normal"
    limit: PageSize = PAGE_SIZE_DEFAULT
    offset: int = Field(default=0, ge=0, le=SAFE_INT_MAX)


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
