"""Branch requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    RootModel,
    StringConstraints,
    computed_field,
    model_validator,
)

from app.models.common import (
    PAGE_SIZE_DEFAULT,
    SAFE_INT_MAX,
    PageSize,
    Strict,
    UtcTimestamp,
    exactly_one,
)
from app.models.memories import BranchName, QueryText
from app.models.snapshots import SnapshotMemory, SnapshotName

PickStrategy = Literal["fail", "skip", "accept"]
Action = Literal["add", "replace", "remove"]
PREVIEW_CHARS = 200


class CreateBranch(Strict):
    """A fork of main now, of a snapshot's branch as it was at the snapshot (`from_snapshot`),
    or of main as it was at a time (`from_timestamp`, ISO 8601, UTC when it names no zone, as
    far back as the history of main garbage collection has left)."""

    name: BranchName
    from_snapshot: SnapshotName | None = None
    from_timestamp: UtcTimestamp | None = None

    @model_validator(mode="after")
    def _one_source(self) -> CreateBranch:
        if self.from_snapshot is not None and self.from_timestamp is not None:
            raise ValueError("give from_snapshot or from_timestamp, not both")
        return self


class Branch(BaseModel):
    name: str
    base_seq: int | None = None
    from_snapshot: str | None = None
    from_timestamp: datetime | None = None
    source_branch: str | None = None
    created_at: datetime | None = None
    memory_count: int | None = None
    active: bool = False


class BranchList(BaseModel):
    active_branch: str
    branches: list[Branch]


class CheckedOut(BaseModel):
    active_branch: str
    memory_count: int  # the active memories on it


def _accept_is_replace(strategy: str) -> str:
    """Memoria's merge strategy `accept` (its clients' default) is what it calls `replace`."""
    return "replace" if strategy == "accept" else strategy


class Merge(Strict):
    """`append` brings over what the target lacks; `replace` (or `accept`, Memoria's name for
    it) also applies the branch's corrections and deletions."""

    strategy: Annotated[
        Literal["append", "replace", "accept"], AfterValidator(_accept_is_replace)
    ] = "append"


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


MemoryKey = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class KeyList(Strict):
    type: Literal["key_list"]
    keys: list[MemoryKey] = Field(min_length=1, max_length=1000)


class SnapshotRange(Strict):
    type: Literal["snapshot_range"]
    from_snapshot: SnapshotName
    to_snapshot: SnapshotName


class RetrieveSelector(Strict):
    type: Literal["retrieve"]
    query: QueryText
    top_k: int = Field(default=5, ge=1, le=100)
    min_score: float | None = Field(default=None, ge=0.0)


class PickPreview(Strict):
    """Memoria's dry run: a preview, `offset` items skipped, `limit` shown (contents are always
    previewed; there are no scores to include or leave out)."""

    limit: int = Field(default=10, ge=1, le=500)
    offset: int = Field(default=0, ge=0, le=SAFE_INT_MAX)
    include_content_preview: bool = True
    include_scores: bool = True


class MemoriaPick(Strict):
    """Memoria's form of a pick: the selector as an object (`key_list` of memory ids, a
    `snapshot_range` of the branch's snapshots, or the `retrieve` matches of a query), and a
    dry run as an object of preview options (null: not a dry run)."""

    target: BranchName = "main"
    strategy: PickStrategy = "fail"
    selector: Annotated[KeyList | SnapshotRange | RetrieveSelector, Field(discriminator="type")]
    dry_run: PickPreview | None = None

    def as_pick(self) -> Pick:
        """The same pick in our form."""
        chosen = self.selector
        preview = self.dry_run
        fields: dict[str, object] = {"target": self.target, "strategy": self.strategy}
        if preview is not None:
            fields |= {"dry_run": True, "limit": preview.limit}
        if isinstance(chosen, KeyList):
            fields["memory_ids"] = list(dict.fromkeys(chosen.keys))
        elif isinstance(chosen, SnapshotRange):
            fields |= {"from_snapshot": chosen.from_snapshot, "to_snapshot": chosen.to_snapshot}
        else:
            fields |= {"query": chosen.query, "top_k": chosen.top_k, "min_score": chosen.min_score}
        return Pick.model_validate(fields)

    @property
    def skipped_items(self) -> int:
        """The items a dry run's preview skips (its `offset`)."""
        return 0 if self.dry_run is None else self.dry_run.offset


class PickRequest(RootModel[Pick | MemoriaPick]):
    """Our form, or Memoria's (with a `selector` object): the same pick."""

    @staticmethod
    def form_of(data: object) -> type[Pick | MemoriaPick]:
        """The form a body is in (see bodies.validate_body): Memoria's has a `selector`."""
        return MemoriaPick if isinstance(data, dict) and "selector" in data else Pick


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
    """What a pick applied (or would apply, in a dry run); `result` says it in a sentence, as
    Memoria's clients show it."""

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

    @computed_field  # type: ignore[prop-decorator]
    @property
    def result(self) -> str:
        changes = self.added + self.replaced + self.removed
        done = "Would pick" if self.dry_run else "Picked"
        return (
            f"{done} {changes} change(s) from branch '{self.branch}' into '{self.target}' "
            f"({self.added} added, {self.replaced} replaced, {self.removed} removed, "
            f"{self.skipped} skipped)"
        )


class UpdatePair(Strict):
    """A correction: the branch's `new_id` replaces main's `old_id`."""

    old_id: MemoryKey
    new_id: MemoryKey

    @property
    def label(self) -> str:
        return f"{self.old_id}→{self.new_id}"


class ApplyChanges(Strict):
    """Memoria's selective apply of a branch into main: the entries of its diff-items to
    apply (new memories, corrections as old -> new pairs, deletions, and conflicts to settle
    the branch's way); a pick of those memories, other conflicts left out."""

    adds: list[MemoryKey] = Field(default_factory=list, max_length=1000)
    removes: list[MemoryKey] = Field(default_factory=list, max_length=1000)
    updates: list[UpdatePair] = Field(default_factory=list, max_length=1000)
    accept_branch_conflicts: list[MemoryKey] = Field(default_factory=list, max_length=1000)

    @property
    def memory_ids(self) -> list[str]:
        named = [*self.adds, *self.removes, *self.accept_branch_conflicts]
        named += [memory_id for pair in self.updates for memory_id in (pair.old_id, pair.new_id)]
        return list(dict.fromkeys(named))


class Applied(BaseModel):
    """Which entries were applied and which were not (nothing of theirs to apply, or a
    conflict not accepted), as Memoria answers; `snapshot_name` is main's safety snapshot."""

    applied_adds: list[str]
    skipped_adds: list[str]
    applied_updates: list[str]  # "old_id→new_id"
    skipped_updates: list[str]
    applied_removes: list[str]
    skipped_removes: list[str]
    applied_conflicts: list[str]
    skipped_conflicts: list[str]
    snapshot_name: str | None


class DiffItemsQuery(BaseModel):
    limit: int = Field(default=100, ge=1, le=500)


class DiffEntry(BaseModel):
    memory_id: str
    content: str
    memory_type: str


class UpdatedEntry(DiffEntry):
    """The branch's memory and the one of main it replaces (a correction's old memory, or the
    same memory as main has it)."""

    old_memory_id: str
    old_content: str


class ConflictSide(BaseModel):
    content: str
    is_active: bool
    superseded_by: str | None
    superseded_by_content: str | None


class ConflictEntry(BaseModel):
    """A memory both the branch and main changed since the fork."""

    memory_id: str
    branch: ConflictSide
    main: ConflictSide


class DiffItems(BaseModel):
    """What the branch changed since its fork, entry by entry, as Memoria's diff-items lists
    it (up to `limit` per list): new memories, replacements, deletions, conflicts, and main's
    changes the branch does not have (`behind_main`)."""

    branch: str
    against: Literal["main"] = "main"
    added: list[DiffEntry]
    updated: list[UpdatedEntry]
    removed: list[DiffEntry]
    conflicts: list[ConflictEntry]
    behind_main: list[DiffEntry]
