"""Governance, consolidate and reflect: requests (force, mode) and their reports."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field, RootModel

from app.models.common import Strict
from app.models.entities import Extracted
from app.models.memories import Memory

Operation = Literal["governance", "consolidate", "reflect"]
TriggerOperation = Literal["governance", "consolidate", "reflect", "extract_entities"]
CLUSTERS_DEFAULT = 10


class ForceQuery(BaseModel):
    """`?force=true` runs the operation inside its cooldown."""

    force: bool = False


class ForceBody(Strict):
    """`{"force": true}` does what `?force=true` does."""

    body_optional: ClassVar[bool] = True  # documented as such in /openapi.json

    force: bool = False


class ReflectRequest(ForceBody):
    """`mode: candidates` answers what /v1/reflect/candidates answers, without an LLM."""

    mode: Literal["llm", "candidates"] = "llm"
    limit: int = Field(default=CLUSTERS_DEFAULT, ge=1, le=50)


class ReflectCandidatesRequest(Strict):
    body_optional: ClassVar[bool] = True  # documented as such in /openapi.json

    limit: int = Field(default=CLUSTERS_DEFAULT, ge=1, le=50)


class TriggerQuery(BaseModel):
    op: TriggerOperation


class Skipped(BaseModel):
    """The operation ran less than its cooldown ago and was not forced."""

    skipped: Literal[True] = True
    cooldown_remaining_s: int


class GovernanceReport(BaseModel):
    """What governance did: counts per action, and the safety snapshot taken before them."""

    skipped: Literal[False] = False
    quarantined: int
    expired: int
    collectable: int
    feedback_tuned: bool
    feedback_weight: float
    snapshot_name: str | None = None


class ConsolidateReport(BaseModel):
    """What consolidate found and fixed."""

    skipped: Literal[False] = False
    pairs_compared: int
    contradictions: int
    confidence_lowered: int
    confidence_restored: int
    orphan_entities: int
    orphan_sessions: int
    dangling_links: int


class ClusterMember(BaseModel):
    memory_id: str
    content: str
    session_id: str | None
    memory_type: str


class Cluster(BaseModel):
    """Related memories from two or more sessions that no insight covers yet."""

    memory_ids: list[str]
    sessions: list[str]
    shared_entities: list[str]
    members: list[ClusterMember]


class ReflectCandidates(BaseModel):
    items: list[Cluster]


class Reflected(BaseModel):
    """The insights reflect stored (T4, linked DERIVED_FROM their sources)."""

    skipped: Literal[False] = False
    clusters: int
    insights: list[Memory]
    dropped: int = 0  # insights of the LLM's answer left out (invalid, or about no cluster given)


class GovernanceAnswer(RootModel[GovernanceReport | Skipped]):
    """A governance report, or the cooldown it is still in."""


class ConsolidateAnswer(RootModel[ConsolidateReport | Skipped]):
    """A consolidate report, or the cooldown it is still in."""


class ReflectAnswer(RootModel[Reflected | ReflectCandidates | Skipped]):
    """The insights stored, the candidates in candidates mode, or the cooldown."""


class TriggerAnswer(RootModel[GovernanceReport | ConsolidateReport | Reflected | Extracted]):
    """The report of the operation the admin triggered."""
