"""Plugin administration: signers, packages (publish, review, score), the compatibility matrix
and the audit trail."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from app.models.common import PAGE_SIZE_DEFAULT, Name, PageSize, Slug, Strict
from app.models.memories import RecipeName

PluginStatus = Literal["pending", "active", "rejected", "disabled", "taken_down"]
Capability = Literal["retrieval.rerank", "governance.plan"]
MAX_FILES = 64


class NewSigner(Strict):
    name: Slug
    public_key: str = Field(
        min_length=1, max_length=200, description="Ed25519 public key: 32 raw bytes, base64"
    )


class Signer(BaseModel):
    name: str
    public_key: str
    created_at: datetime


class SignerList(BaseModel):
    items: list[Signer]


class Publish(Strict):
    """Files by path, base64-encoded; `manifest.json` among them."""

    files: dict[str, str] = Field(min_length=1, max_length=MAX_FILES)


class PackageFile(BaseModel):
    path: str
    sha256: str
    size: int


class Package(BaseModel):
    key: str
    version: str
    status: PluginStatus
    score: float | None = None
    capabilities: list[str]
    compatible: str
    signer: str
    files: list[PackageFile]
    config: dict[str, Any]
    created_at: datetime
    updated_at: datetime


class PackageList(BaseModel):
    items: list[Package]


class PackageQuery(BaseModel):
    status: PluginStatus | None = None
    capability: Capability | None = None


class Review(Strict):
    status: PluginStatus


class Score(Strict):
    score: float = Field(ge=0, le=100)


class MatrixRow(BaseModel):
    key: str
    version: str
    status: PluginStatus
    supported: bool
    reason: str


class Matrix(BaseModel):
    service_version: str
    items: list[MatrixRow]


class AuditEvent(BaseModel):
    event_id: str
    actor: str
    action: str
    target: str
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    at: datetime


class EventPage(BaseModel):
    items: list[AuditEvent]
    next_cursor: str | None = None


class EventQuery(BaseModel):
    plugin: Name | None = None
    action: Name | None = None
    cursor: str | None = None
    limit: PageSize = PAGE_SIZE_DEFAULT


class CandidateSettings(Strict):
    """What a retrieval plugin may set of the first stage (see services.retrieval.config).

    Each section's fields are fields of the configuration's section of the same name, and
    every default lies in the range given here (tests/unit/retrieval/test_config.py holds
    them to it)."""

    fulltext: bool | None = None
    per_result: int | None = Field(default=None, ge=1, le=20)
    minimum: int | None = Field(default=None, ge=1, le=200)
    text_depth: int | None = Field(default=None, ge=1, le=8)


class FusionSettings(Strict):
    """What a retrieval plugin may set of the fusion of the two halves."""

    vector_weight: float | None = Field(default=None, ge=0, le=1)
    text_rank_share: float | None = Field(default=None, ge=0, le=1)
    text_rank_scale: float | None = Field(default=None, ge=1, le=100)
    scale_from: int | None = Field(default=None, ge=1, le=200)
    bm25_share: float | None = Field(default=None, ge=0, le=1)
    bm25_k1: float | None = Field(default=None, ge=0, le=10)
    bm25_b: float | None = Field(default=None, ge=0, le=1)


class FeatureSettings(Strict):
    """What a retrieval plugin may set of the second stage's multipliers."""

    session_boost: float | None = Field(default=None, ge=1, le=2)
    recency_bonus: float | None = Field(default=None, ge=0, le=0.5)
    recency_days: float | None = Field(default=None, ge=1, le=3650)
    confidence_floor: float | None = Field(default=None, ge=0, le=1)
    contradicted: float | None = Field(default=None, ge=0, le=1)
    denied: float | None = Field(default=None, ge=0, le=1)
    in_window: float | None = Field(default=None, ge=1, le=2)
    window_lag_days: float | None = Field(default=None, ge=0, le=60)


class GraphSettings(Strict):
    """What a retrieval plugin may set of the graph stage (see graph_stage)."""

    enabled: bool | None = None
    max_hops: int | None = Field(default=None, ge=1, le=3)
    hop_decay: float | None = Field(default=None, ge=0, le=1)
    hub_limit: int | None = Field(default=None, ge=1, le=100)
    seed_memories: int | None = Field(default=None, ge=0, le=5)
    memory_seed_weight: float | None = Field(default=None, ge=0, le=1)
    weight: float | None = Field(default=None, ge=0, le=1)


class FloorSettings(Strict):
    relative: float | None = Field(default=None, ge=0, le=1)
    after_chain: float | None = Field(default=None, ge=0, le=1)


class RetrievalSettings(Strict):
    """A retrieval plugin's configuration: a named recipe (the service's default when absent)
    and fields of it overridden, section by section."""

    recipe: RecipeName | None = None
    candidates: CandidateSettings | None = None
    fusion: FusionSettings | None = None
    features: FeatureSettings | None = None
    graph: GraphSettings | None = None
    floor: FloorSettings | None = None


class RankingWeights(Strict):
    """The ranking fields of earlier manifests: the same as retrieval.fusion.vector_weight and
    retrieval.features' fields."""

    vector_weight: float | None = Field(default=None, ge=0, le=1)
    recency_bonus: float | None = Field(default=None, ge=0, le=0.5)
    session_boost: float | None = Field(default=None, ge=1, le=2)
    confidence_floor: float | None = Field(default=None, ge=0, le=1)


class GovernanceThresholds(Strict):
    """What a `governance.plan` plugin may set of governance."""

    quarantine_below: float | None = Field(default=None, ge=0, le=0.5)


class PluginConfig(Strict):
    """A manifest's declarative configuration: the only way a plugin takes effect (its files
    are never executed)."""

    retrieval: RetrievalSettings | None = None
    ranking: RankingWeights | None = None  # earlier manifests' form of retrieval's fields
    graph: GraphSettings | None = None  # earlier manifests' form of retrieval.graph
    governance: GovernanceThresholds | None = None


Domain = Literal["retrieval", "governance"]
PluginKey = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]


class NewBinding(Strict):
    """Who in a domain gets which plugin: `subject` `*` (everyone), `user:<id>` or
    `prefix:<start of user ids>`; `version` an exact version or a range (>=1.0.0,<2.0.0); the
    highest `priority` that selects a user wins; `rollout_percent` of the selected users, by a
    stable hash of the user id."""

    plugin: PluginKey
    version: str = Field(min_length=1, max_length=200)
    subject: str = Field(default="*", pattern=r"^(\*|user:.{1,128}|prefix:.{1,128})$")
    priority: int = Field(default=0, ge=0, le=1000)
    rollout_percent: int = Field(default=100, ge=0, le=100)


class Activation(Strict):
    """Binds one version for everyone in the domain (ahead of every rule)."""

    plugin: PluginKey
    version: str = Field(min_length=1, max_length=64)


class Binding(BaseModel):
    binding_id: str
    domain: Domain
    plugin: str
    version: str
    subject: str
    priority: int
    rollout_percent: int
    activation: bool
    created_at: datetime


class BindingList(BaseModel):
    items: list[Binding]
