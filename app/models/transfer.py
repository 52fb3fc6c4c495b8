"""Export and import of one user's state: the JSON Lines records and the import's answer.

A file is a `header` line, then one line per record (`user`, `memory`, `entity`, `relation`,
`session`, `feedback`, `snapshot`, `branch`, `change`), then an `end` line counting the records
between.
Property maps hold Neo4j's values as JSON: strings, integers, floats, booleans, null and lists
of them, and temporal values tagged `{"$datetime": "<ISO 8601>"}` or `{"$date": "<ISO date>"}`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    RootModel,
    StrictStr,
    StringConstraints,
    ValidationError,
    model_validator,
)

from app.models.common import SAFE_INT_MAX, storable
from app.models.entities import EntityType
from app.models.feedback import FEEDBACK_WEIGHT_MAX, FEEDBACK_WEIGHT_MIN, TuningSource
from app.models.memories import MemoryType, TrustTier, is_metadata

FORMAT = "memory-service-export"
FORMAT_VERSION = 1
MEDIA_TYPE = "application/x-ndjson"
MemoryLabel = Literal["Memory", "MemoryVersion"]
# Relationship types travel as text and become types again: plain upper-case words only.
RelationshipType = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9_]{0,63}$")]
Key = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
Seq = Annotated[int, Field(ge=0, le=SAFE_INT_MAX)]


class Record(BaseModel):
    """One line of an export: unknown fields are an error, values are typed strictly."""

    model_config = ConfigDict(extra="forbid", strict=True)


SCALARS = (str, bool, int, float)
TEMPORAL: dict[str, Callable[[str], date]] = {
    "$datetime": datetime.fromisoformat,
    "$date": date.fromisoformat,
}
PROPERTY_VALUE = (
    'must be a string, number, boolean, null, a list of one of those, or {"$datetime": '
    '"<ISO 8601>"} or {"$date": "<ISO date>"}'
)


def _property_value(value: Any) -> Any:
    """A property value of the file as Neo4j takes it (tagged temporal values parsed)."""
    if value is None or isinstance(value, SCALARS):
        return storable(value)
    one_type = isinstance(value, list) and len({type(item) for item in value}) <= 1
    if one_type and all(isinstance(item, SCALARS) for item in value):
        return [storable(item) for item in value]  # Neo4j stores lists whose items have one type
    if isinstance(value, dict) and len(value) == 1:
        [(tag, text)] = value.items()
        if tag in TEMPORAL and isinstance(text, str):
            try:
                return TEMPORAL[tag](text)
            except ValueError:
                raise ValueError(f"{tag} must be ISO 8601 text") from None
    raise ValueError(PROPERTY_VALUE)


PropertyValue = Annotated[Any, BeforeValidator(_property_value)]
Properties = dict[Annotated[str, StringConstraints(min_length=1, max_length=256)], PropertyValue]
Count = Annotated[int, Field(ge=0, le=SAFE_INT_MAX)]


class Readable(BaseModel):
    """The properties of a record that the service reads back, typed as it reads them; other
    properties pass as they are. An import checks a record's props against its model, so that a
    file cannot store what a later read (or a Cypher predicate) would fail on."""

    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


class MemoryProps(Readable):
    memory_type: MemoryType
    trust_tier: TrustTier
    is_active: bool
    initial_confidence: Annotated[float, Field(ge=0, le=1)]
    observed_at: datetime
    created_at: datetime
    updated_at: datetime
    session_id: StrictStr | None = None
    subject_id: StrictStr | None = None
    superseded_by: StrictStr | None = None
    useful: Count | None = None
    irrelevant: Count | None = None
    outdated: Count | None = None
    wrong: Count | None = None

    @model_validator(mode="after")
    def _flat_metadata(self) -> MemoryProps:
        for name, value in (self.model_extra or {}).items():
            if is_metadata(name) and not isinstance(value, SCALARS):
                raise ValueError(f"{name}: metadata values are strings, numbers or booleans")
        return self


class EntityProps(Readable):
    name: StrictStr
    type: EntityType
    aliases: list[StrictStr]


class SnapshotProps(Readable):
    kind: Literal["user", "safety"]
    description: StrictStr = ""
    created_at: datetime


class BranchProps(Readable):
    from_snapshot: StrictStr | None = None
    source_branch: StrictStr | None = None
    created_at: datetime | None = None


def readable(model: type[Readable]) -> AfterValidator:
    """A check of a record's props against `model`: a ValueError names the first property the
    service could not read back."""

    def check(props: dict[str, Any]) -> dict[str, Any]:
        try:
            model.model_validate(props)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise ValueError(f"{where}: {problem['msg']}") from None
        return props

    return AfterValidator(check)


class Header(Record):
    kind: Literal["header"]
    format: Literal["memory-service-export"]
    version: Literal[1]
    user_id: Key  # the exported user: informational, an import loads into the caller
    embedding_model: str  # the model that made the file's embeddings
    seq: Seq  # the user's change counter when the export began: the state exported
    exported_at: AwareDatetime


class UserState(Record):
    """The user's own settings: the checked-out branch and the retrieval parameters."""

    kind: Literal["user"]
    active_branch: Key
    feedback_weight: (
        Annotated[float, Field(ge=FEEDBACK_WEIGHT_MIN, le=FEEDBACK_WEIGHT_MAX, allow_inf_nan=False)]
        | None
    ) = None
    tuning_source: TuningSource | None = None
    tuned_at: AwareDatetime | None = None
    tuned_signals: Count | None = None
    feedback_signals: Count | None = None
    # How far garbage collection had taken main's past versions (versions/collect_garbage):
    # main's state before that seq, or that time, is not in the file either.
    collected_through: Seq | None = None
    collected_through_at: AwareDatetime | None = None
    # When the user was first seen: their memory was empty before (as_of reads).
    created_at: AwareDatetime | None = None


class NodeKey(Record):
    """One memory node of a user: a memory's node on a branch, created by change `created_seq`."""

    memory_id: Key
    branch: Key
    created_seq: Seq


class Link(Record):
    """A relationship the memory node owns: outgoing (`out`) to another memory node, an entity
    or a session, or inbound (`in`) from a node that is not a memory (a feedback record). The
    other end is named by exactly one of `memory`, `entity` (key), `session` (id), `feedback`
    (feedback_id)."""

    type: RelationshipType
    direction: Literal["out", "in"]
    memory: NodeKey | None = None
    entity: Key | None = None
    session: Key | None = None
    feedback: Key | None = None
    props: Properties = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_end(self) -> Link:
        ends = [self.memory, self.entity, self.session, self.feedback]
        if sum(end is not None for end in ends) != 1:
            raise ValueError("a link names exactly one of memory, entity, session, feedback")
        if self.direction == "in" and self.memory is not None:
            raise ValueError("a link from another memory belongs to that memory (direction out)")
        return self


class MemoryNode(Record):
    """A memory node, current (`Memory`) or past (`MemoryVersion`), with every property but its
    embedding, which is base64 of little-endian float32 (null: none, or re-embed on import)."""

    kind: Literal["memory"]
    label: MemoryLabel
    props: Annotated[Properties, readable(MemoryProps)]
    embedding: StrictStr | None = None
    links: list[Link] = Field(default_factory=list)

    @model_validator(mode="after")
    def _identified(self) -> MemoryNode:
        for name, kind in (("memory_id", str), ("branch", str), ("created_seq", int)):
            value = self.props.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ValueError(f"props.{name} must be a {kind.__name__}")
        if not isinstance(self.props.get("content"), str):
            raise ValueError("props.content must be a string")
        ended = self.props.get("ended_seq")
        ended_is_seq = isinstance(ended, int) and not isinstance(ended, bool)
        if self.label == "MemoryVersion" and not ended_is_seq:
            raise ValueError("a MemoryVersion needs an integer props.ended_seq")
        if self.label == "Memory" and ended is not None:
            raise ValueError("a current Memory has no props.ended_seq")
        if "user_id" in self.props:
            raise ValueError("props.user_id is not exported: nodes belong to the importing user")
        return self

    @property
    def key(self) -> tuple[str, str, int]:
        return (str(self.props["memory_id"]), str(self.props["branch"]), self.created_seq)

    @property
    def created_seq(self) -> int:
        value = self.props["created_seq"]
        assert isinstance(value, int)
        return value


class Entity(Record):
    kind: Literal["entity"]
    key: Key
    props: Annotated[Properties, readable(EntityProps)]


class Relation(Record):
    """A relationship between two entities of the user (RELATES_TO), by their keys."""

    kind: Literal["relation"]
    type: RelationshipType
    source: Key
    target: Key
    props: Properties = Field(default_factory=dict)


class Session(Record):
    kind: Literal["session"]
    id: Key
    props: Properties = Field(default_factory=dict)


class Feedback(Record):
    kind: Literal["feedback"]
    feedback_id: Key
    props: Properties


class Snapshot(Record):
    kind: Literal["snapshot"]
    name: Key
    branch: Key
    seq: Seq
    props: Annotated[Properties, readable(SnapshotProps)]  # kind (user|safety), created_at, ...


class Branch(Record):
    kind: Literal["branch"]
    name: Key
    base_seq: Seq
    view_seq: Seq | None = None
    props: Annotated[Properties, readable(BranchProps)] = Field(default_factory=dict)


class Change(Record):
    """A change of the user's memories: what it did and why (a memory's history reads it)."""

    kind: Literal["change"]
    seq: Seq
    props: Properties = Field(default_factory=dict)  # kind, reason, at


class End(Record):
    kind: Literal["end"]
    records: Seq  # how many lines lie between the header and this one


class Line(
    RootModel[
        Annotated[
            Header
            | UserState
            | MemoryNode
            | Entity
            | Relation
            | Session
            | Feedback
            | Snapshot
            | Branch
            | Change
            | End,
            Field(discriminator="kind"),
        ]
    ]
):
    """Any line of a file, told apart by its `kind`."""


class ExportStream(RootModel[str]):
    """JSON Lines: a header, one line per record, and an end line (see the README)."""

    media_type: ClassVar[str] = MEDIA_TYPE


class Counts(BaseModel):
    """How many records of each kind (memory nodes, the links they own, ...)."""

    memories: int = 0
    links: int = 0
    entities: int = 0
    relations: int = 0
    sessions: int = 0
    feedback: int = 0
    snapshots: int = 0
    branches: int = 0
    changes: int = 0


class Imported(BaseModel):
    """What an import wrote (`imported`), found already there (`skipped`), encoded with this
    service's model (`reembedded` nodes), and gave new ids because another user of this
    instance holds theirs (`remapped_ids`)."""

    imported: Counts
    skipped: Counts
    reembedded: int
    remapped_ids: int
