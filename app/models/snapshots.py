"""Snapshot, diff and rollback requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    RootModel,
    StringConstraints,
    WithJsonSchema,
    computed_field,
    model_validator,
)

from app.models.common import (
    PAGE_SIZE_DEFAULT,
    SAFE_INT_MAX,
    Note,
    PageSize,
    Slug,
    Strict,
    UtcTimestamp,
    exactly_one,
)
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


class SnapshotListQuery(BaseModel):
    """A slice of the list (as Memoria's clients ask for it): `offset` skipped, at most
    `limit` (all when left out)."""

    limit: PageSize | None = None
    offset: int = Field(default=0, ge=0, le=SAFE_INT_MAX)


SnapshotNames = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=128)]],
    Field(min_length=1, max_length=100),
]


NAMES_SCHEMA = {
    "anyOf": [
        {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 128},
            "minItems": 1,
            "maxItems": 100,
        },
        {"type": "string", "pattern": "[^,\\s]", "description": "names separated by commas"},
    ]
}


def _listed(value: object) -> object:
    """Names separated by commas (as Memoria's MCP tool takes them) are a list of names."""
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    return value


class DeleteSnapshots(Strict):
    """Memoria's bulk delete: the snapshots `names` names (a list, or one string of names
    separated by commas; names the user has no snapshot of are skipped), those whose name
    starts with `prefix`, or those taken before `older_than` (ISO 8601; a date alone is its
    midnight, UTC); exactly one of the three."""

    names: (
        Annotated[SnapshotNames, BeforeValidator(_listed), WithJsonSchema(NAMES_SCHEMA)] | None
    ) = None
    prefix: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    older_than: UtcTimestamp | None = None

    @model_validator(mode="after")
    def _one_selector(self) -> DeleteSnapshots:
        exactly_one(
            "names, prefix and older_than",
            self.names is not None,
            self.prefix is not None,
            self.older_than is not None,
        )
        return self

    def selects(self, snapshot: Snapshot) -> bool:
        if self.names is not None:
            return snapshot.name in self.names
        if self.prefix is not None:
            return snapshot.name.startswith(self.prefix)
        assert self.older_than is not None
        return snapshot.created_at < self.older_than


class SnapshotsDeleted(BaseModel):
    deleted: int
    names: list[str]


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
    """A page of the snapshot's memories; `snapshot_name` and `has_more` as Memoria has them
    (whether pages follow)."""

    memory_count: int
    by_type: dict[str, int]
    detail: Detail
    limit: int
    offset: int
    memories: list[SnapshotMemory]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def snapshot_name(self) -> str:
        return self.name

    @computed_field  # type: ignore[prop-decorator]
    @property
    def has_more(self) -> bool:
        return self.offset + len(self.memories) < self.memory_count


class DiffQuery(BaseModel):
    limit: int = Field(default=100, ge=1, le=1000)


class Modified(BaseModel):
    memory_id: str
    before: SnapshotMemory
    after: SnapshotMemory


class Diff(BaseModel):
    """What changed on the snapshot's branch since the snapshot; Memoria's names beside ours:
    `snapshot_name`, and the active memories then (`snapshot_count`) and now (`current_count`)."""

    snapshot: str
    branch: str
    added: list[SnapshotMemory]
    removed: list[SnapshotMemory]
    modified: list[Modified]
    counts: dict[str, int]
    truncated: bool
    current_count: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def snapshot_name(self) -> str:
        return self.snapshot

    @computed_field  # type: ignore[prop-decorator]
    @property
    def snapshot_count(self) -> int:
        """Adding and removing are what changes a count: modified memories stay counted."""
        return self.current_count - self.counts["added"] + self.counts["removed"]


class RolledBack(BaseModel):
    snapshot: str
    branch: str
    safety_snapshot: str
    ended: int
    restored: int
