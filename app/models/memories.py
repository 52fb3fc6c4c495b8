"""Memory requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    RootModel,
    StringConstraints,
    model_validator,
)

from app.models.common import (
    PAGE_SIZE_DEFAULT,
    AsOf,
    Name,
    Note,
    PageSize,
    Slug,
    Strict,
    UtcTimestamp,
    storable,
)

MemoryType = Literal["semantic", "profile", "procedural", "working", "tool_result", "episodic"]
TrustTier = Literal["T1", "T2", "T3", "T4"]
MAX_CONTENT_BYTES = 32 * 1024
MAX_QUERY_BYTES = 4096
MAX_METADATA_KEYS = 32
# Metadata lives on the node as one property per key, so Cypher can filter on it directly.
META_PREFIX = "meta_"


def is_metadata(prop: str) -> bool:
    """Whether a node property holds a metadata value (meta_<key>)."""
    return prop.startswith(META_PREFIX)


def _at_most(value: str, limit: int) -> str:
    if len(value.encode("utf-8")) > limit:
        raise ValueError(f"must be at most {limit} UTF-8 bytes")
    return value


def _filled(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _message(value: str) -> str:
    """A conversation message may be blank (it is skipped), but not over the content limit."""
    return _at_most(value, MAX_CONTENT_BYTES)


def _content(value: str) -> str:
    return _at_most(_filled(value), MAX_CONTENT_BYTES)


def _query(value: str) -> str:
    return _at_most(_filled(value), MAX_QUERY_BYTES)


# Infinity passes the union so that `storable` can say what is wrong with it.
AnyFloat = Annotated[float, Field(allow_inf_nan=True)]
MetadataValue = Annotated[str | bool | int | AnyFloat, AfterValidator(storable)]
Content = Annotated[str, AfterValidator(_content)]
QueryText = Annotated[str, AfterValidator(_query)]
BranchName = Slug
MetadataKey = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]


def _flat_metadata(value: dict[str, MetadataValue]) -> dict[str, MetadataValue]:
    if len(value) > MAX_METADATA_KEYS:
        raise ValueError(f"at most {MAX_METADATA_KEYS} keys")
    return value


Metadata = Annotated[dict[MetadataKey, MetadataValue], AfterValidator(_flat_metadata)]


class NewMemory(Strict):
    content: Content
    memory_type: MemoryType = "semantic"
    session_id: Name | None = None
    subject_id: Name | None = None
    trust_tier: TrustTier = "T1"
    initial_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    observed_at: UtcTimestamp | None = None
    extra_metadata: Metadata = Field(default_factory=dict)
    # Memoria's store takes a provenance label that it does not keep: accepted, so that its
    # clients work unchanged, and ignored as there.
    source: str | None = Field(default=None, max_length=256)


class StoreMemory(NewMemory):
    branch: BranchName | None = None


class StoreBatch(Strict):
    memories: list[NewMemory] = Field(min_length=1, max_length=100)
    branch: BranchName | None = None
    # The subject of every item that names none (Memoria's batch form).
    subject_id: Name | None = None

    def items(self) -> list[NewMemory]:
        """The memories, each with the batch's subject when it names none."""
        if self.subject_id is None:
            return self.memories
        return [
            item
            if item.subject_id is not None
            else item.model_copy(update={"subject_id": self.subject_id})
            for item in self.memories
        ]


class FeedbackCounts(BaseModel):
    useful: int = 0
    irrelevant: int = 0
    outdated: int = 0
    wrong: int = 0


class Memory(BaseModel):
    memory_id: str
    id: str
    user_id: str
    content: str
    memory_type: MemoryType
    session_id: str | None
    subject_id: str | None
    trust_tier: TrustTier
    initial_confidence: float
    confidence: float
    is_active: bool
    superseded_by: str | None
    observed_at: datetime
    created_at: datetime
    updated_at: datetime
    branch: str
    extra_metadata: dict[str, MetadataValue]
    feedback: FeedbackCounts
    retrieval_score: float | None = None


class MemoryList(RootModel[list[Memory]]):
    """Memories, best first."""


class StoredBatch(RootModel[list[Memory]]):
    """The memories stored, in the order given (a plain array, as Memoria answers it)."""


class MemoryPage(BaseModel):
    items: list[Memory]
    next_cursor: str | None


SessionScope = Literal["prefer", "only"]


class Scoped(BaseModel):
    """Who and which session a read is about: `subject_id` keeps only that subject's memories
    (memories without one are left out); with `session_scope` "only" the session is a strict
    filter, with "prefer" (retrieve and correct by query) its memories rank first."""

    subject_id: Name | None = None
    session_id: Name | None = None
    session_scope: SessionScope = "prefer"

    @model_validator(mode="after")
    def _session_for_scope(self) -> Scoped:
        explicit = "session_scope" in self.model_fields_set
        if explicit and self.session_scope == "only" and self.session_id is None:
            raise ValueError('session_scope "only" needs a session_id')
        return self

    @property
    def only_session(self) -> str | None:
        """The session every memory must be of, if any."""
        return self.session_id if self.session_scope == "only" else None


class ListQuery(Scoped):
    """A listing has no ranking to prefer a session in: a session_id always filters."""

    limit: PageSize = PAGE_SIZE_DEFAULT
    cursor: str | None = None
    memory_type: MemoryType | None = None
    trust_tier: TrustTier | None = None
    branch: BranchName | None = None
    as_of: AsOf | None = None
    session_scope: SessionScope = "only"

    @model_validator(mode="after")
    def _strict_session(self) -> ListQuery:
        if self.session_scope == "prefer":
            raise ValueError('a listing has no ranking: session_scope "prefer" does not apply')
        return self


class CorrectById(Strict):
    new_content: Content
    reason: Note = ""
    branch: BranchName | None = None


class CorrectByQuery(CorrectById, Scoped):
    query: QueryText
    memory_types: list[MemoryType] | None = Field(default=None, min_length=1)


class Corrected(Memory):
    matched_memory_id: str


class BranchQuery(BaseModel):
    branch: BranchName | None = None


class ReadQuery(BranchQuery):
    """A read of one memory: on a branch, now or `as_of` a past moment."""

    as_of: AsOf | None = None


class DeleteQuery(BaseModel):
    reason: Note = ""
    branch: BranchName | None = None


class Deleted(BaseModel):
    memory_id: str
    deleted: bool
    snapshot_name: str | None


class Message(Strict):
    role: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32)]
    content: Annotated[str, AfterValidator(_message)]


class Observe(Strict):
    messages: list[Message] = Field(min_length=1, max_length=200)
    session_id: Name | None = None
    subject_id: Name | None = None
    # When the conversation took place (event time), for every memory made of it; else the time
    # of the request.
    observed_at: UtcTimestamp | None = None
    branch: BranchName | None = None


class Observed(BaseModel):
    """The memories stored; `dropped`: the facts of the LLM's answer that were left out (not a
    usable memory)."""

    memories: list[Memory]
    warning: str | None = None
    dropped: int = 0


class ProfileQuery(BaseModel):
    subject_id: Name | None = None
    branch: BranchName | None = None


class Profile(BaseModel):
    user_id: str
    profile: str
    memories: list[Memory]
    stats: dict[str, int]
    total: int


Explain = bool | Literal["verbose", "analyze"]
# The named retrieval configurations (services.retrieval.config.RECIPES).
RecipeName = Literal["balanced", "semantic", "lexical", "precise", "filled", "flat"]


class Explained(BaseModel):
    """Ranked memories with the explain report: `level`, `timings_ms`, candidate and hit counts
    and the feedback weight; `ranking` (each result's score parts) when verbose, and `plan` (the
    query profile) when analyze."""

    results: list[Memory]
    explain: dict[str, Any]


class Retrieved(RootModel[list[Memory] | Explained]):
    """Memories ranked by relevance; `{results, explain}` when the request asks to explain."""


class RetrieveRequest(Strict, Scoped):
    query: QueryText
    top_k: int | None = Field(default=None, ge=1, le=100)
    memory_types: list[MemoryType] | None = None
    explain: Explain = False
    min_score: float | None = Field(default=None, ge=0.0)
    branch: BranchName | None = None
    as_of: AsOf | None = None  # the memory as it stood then (see services.versioning.as_of)
    graph: bool = True  # the graph stage: expansion through the entities memories mention
    recipe: RecipeName | None = None  # another retrieval configuration than the user's
    # When the question is asked (default: now): what its time expressions ("last week", "上周")
    # are read against.
    reference_time: UtcTimestamp | None = None
    # A window on event time (observed_at) the question is about: it wins over the query's own
    # time expressions. Memories inside it are raised, the others kept.
    observed_after: UtcTimestamp | None = None
    observed_before: UtcTimestamp | None = None

    @model_validator(mode="after")
    def _window_is_ordered(self) -> RetrieveRequest:
        if (
            self.observed_after is not None
            and self.observed_before is not None
            and self.observed_after >= self.observed_before
        ):
            raise ValueError("observed_after must be earlier than observed_before")
        return self


class FulltextRequest(Strict):
    query: QueryText
    extra_metadata_filter: dict[MetadataKey, MetadataValue] | None = None
    subject_id: str | None = None
    memory_types: list[MemoryType] | None = None
    session_id: str | None = None
    trust_tier: TrustTier | None = None
    branch: BranchName | None = None
    as_of: AsOf | None = None
    limit: int = Field(default=20, ge=1, le=100)


class MemoryQuery(Strict):
    """Memories by filters alone, no ranking (at least one filter; all of them ANDed)."""

    extra_metadata_filter: dict[MetadataKey, MetadataValue] | None = None
    subject_id: str | None = None
    memory_types: list[MemoryType] | None = Field(default=None, min_length=1)
    session_id: str | None = None
    trust_tier: TrustTier | None = None
    created_after: UtcTimestamp | None = None
    created_before: UtcTimestamp | None = None
    branch: BranchName | None = None
    as_of: AsOf | None = None
    include_inactive: bool = False
    cursor: str | None = None
    limit: PageSize = PAGE_SIZE_DEFAULT

    @model_validator(mode="after")
    def _some_filter(self) -> MemoryQuery:
        filters = (
            self.extra_metadata_filter,
            self.subject_id,
            self.memory_types,
            self.session_id,
            self.trust_tier,
            self.created_after,
            self.created_before,
        )
        if all(value is None for value in filters):
            raise ValueError(
                "give at least one filter: extra_metadata_filter, subject_id, memory_types, "
                "session_id, trust_tier, created_after or created_before"
            )
        return self
