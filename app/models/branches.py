"""Branch requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints, model_validator

from app.models.common import PAGE_SIZE_DEFAULT, PageSize, Strict, exactly_one
from app.models.memories import BranchName, QueryText
from app.models.snapshots import SnapshotMemory, SnapshotName

PickStrategy = Literal["fail", "skip", "accept"]
Action = Literal["add", "replace", "remove"]
PREVIEW_CHARS = 200


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


class Pick(Strict):
    """Which of a branch's changes to promote, by exactly one selector: `memory_ids`; a range
    of the branch's snapshots (`from_snapshot`, exclusive, and/or `to_snapshot`, inclusive; the
    fork and now when left out); or a `query` (the branch's best `top_k` matches above
    `min_score`). Each picked memory arrives as it stands on the branch now."""

    target: BranchName = "main"
    memory_ids: list[Annotated[str, StringConstraints(min_length=1, max_length=128)]] | None = (
        Field(default=None, min_length=1, max_length=1000)
    )
    from_snapshot: SnapshotName | None = None
    to_snapshot: SnapshotName | None = None
    query: QueryText | None = None
    top_k: int = Field(default=10, ge=1, le=100)
    min_score: float | None = Field(default=None, ge=0.0)
    strategy: PickStrategy = "fail"
    dry_run: bool = False
    limit: PageSize = PAGE_SIZE_DEFAULT
    cursor: str | None = None

    @model_validator(mode="after")
    def _one_selector(self) -> Pick:
        exactly_one(
            "memory_ids, a snapshot range (from_snapshot, to_snapshot) and query",
            self.memory_ids is not None,
            self.from_snapshot is not None or self.to_snapshot is not None,
            self.query is not None,
        )
        return self


class PickItem(BaseModel):
    """One memory a pick applies: added to the target, replacing its version there, or
    removing it (the branch deleted it); `conflict` when the target changed it too since the
    branch's fork."""

    memory_id: str
    action: Action
    preview: str
    target_preview: str | None
    conflict: bool


class Picked(BaseModel):
    branch: str
    target: str
    strategy: PickStrategy
    dry_run: bool
    added: int
    replaced: int
    removed: int
    skipped: int  # conflicts left out (strategy skip)
    snapshot_name: str | None  # the target's safety snapshot: a rollback undoes the pick
    items: list[PickItem]  # what was (or would be) applied, in memory id order, paged
    next_cursor: str | None
