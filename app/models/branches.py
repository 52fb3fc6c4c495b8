"""Branch requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from app.models.common import Strict
from app.models.memories import BranchName
from app.models.snapshots import SnapshotMemory, SnapshotName


class CreateBranch(Strict):
    name: BranchName
    from_snapshot: SnapshotName | None = None


class Branch(BaseModel):
    name: str
    base_seq: int | None = None
    from_snapshot: str | None = None
    source_branch: str | None = None
    created_at: datetime | None = None
    memory_count: int | None = None
    active: bool = False


class BranchList(BaseModel):
    active_branch: str
    branches: list[Branch]


class CheckedOut(BaseModel):
    active_branch: str


class Merge(Strict):
    strategy: Literal["append", "replace"] = "append"


class BranchDiff(BaseModel):
    branch: str
    added: list[SnapshotMemory]
    modified: list[SnapshotMemory]
    removed: list[SnapshotMemory]


class Merged(BaseModel):
    branch: str
    strategy: str
    added: int
    replaced: int
    removed: int


class DeletedBranch(BaseModel):
    name: str
    deleted: bool
    active_branch: str
