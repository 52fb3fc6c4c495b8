"""Governance, consolidate and reflect: requests (force, mode) and their reports."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field, RootModel, computed_field

from app.models.common import LlmMode, Strict
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
    """`mode: candidates` answers what /v1/reflect/candidates answers, without an LLM; `auto`
    does so only when no LLM is configured (see LlmMode)."""

    mode: LlmMode = "llm"
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


class Orphans(BaseModel):
    """What pointed at nothing in a user's graph and was removed."""

    entities: int
    sessions: int
    relations: int

    @property
    def total(self) -> int:
        return self.entities + self.sessions + self.relations


class GovernanceReport(BaseModel):
    """What governance did: counts per action, and the safety snapshot taken before them.
    Memoria's names: `cleaned_stale` (expired plus made collectable) and
    `orphan_graph_cleaned` (entities, sessions and relations that pointed at nothing)."""

    skipped: Literal[False] = False
    quarantined: int
    expired: int
    collectable: int
    orphan_graph_cleaned: int
    feedback_tuned: bool
    feedback_weight: float
    snapshot_name: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cleaned_stale(self) -> int:
        return self.expired + self.collectable


class ConsolidateReport(BaseModel):
    """What consolidate found and fixed, and what it left undone (`warnings`). Memoria's
    names: `conflicts_detected` (contradictions), `demoted` and `promoted` (memories whose
    confidence it lowered, or gave back once the memory that won was gone),
    `orphaned_scenes` (insights retired because every memory they were drawn from is gone),
    `decision_count` (all of those) and `status` (`success`: a consolidate that fails
    answers an error instead)."""

    skipped: Literal[False] = False
    pairs_compared: int
    contradictions: int
    confidence_lowered: int
    confidence_restored: int
    insights_retired: int
    orphan_entities: int
    orphan_sessions: int
    dangling_links: int
    warnings: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> Literal["success"]:
        return "success"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def conflicts_detected(self) -> int:
        return self.contradictions

    @computed_field  # type: ignore[prop-decorator]
    @property
    def demoted(self) -> int:
        return self.confidence_lowered

    @computed_field  # type: ignore[prop-decorator]
    @property
    def promoted(self) -> int:
        return self.confidence_restored

    @computed_field  # type: ignore[prop-decorator]
    @property
    def orphaned_scenes(self) -> int:
        return self.insights_retired

    @computed_field  # type: ignore[prop-decorator]
    @property
    def decision_count(self) -> int:
        return self.contradictions + self.confidence_restored + self.insights_retired


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


class ClusterMemory(BaseModel):
    memory_id: str
    content: str


class MemoriaCluster(BaseModel):
    """A cluster as Memoria's clients read it: what brought it together (`signal`), how much
    it matters (`importance`, 0 to 1) and its memories."""

    signal: Literal["semantic_cluster"]
    importance: float
    memories: list[ClusterMemory]


def importance(cluster: Cluster) -> float:
    """How much a cluster asks for reflection: the more sessions its subject came up in, the
    more (0.5 for two sessions, 0.75 for four, towards 1)."""
    return round(1 - 1 / len(cluster.sessions), 3)


class ReflectCandidates(BaseModel):
    """The clusters, largest first; `candidates` is Memoria's view of them."""

    items: list[Cluster]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def candidates(self) -> list[MemoriaCluster]:
        return [
            MemoriaCluster(
                signal="semantic_cluster",
                importance=importance(cluster),
                memories=[
                    ClusterMemory(memory_id=m.memory_id, content=m.content) for m in cluster.members
                ],
            )
            for cluster in self.items
        ]


class Reflected(BaseModel):
    """The insights reflect stored (T4, linked DERIVED_FROM their sources); Memoria's names
    for the counts are `scenes_created` and `candidates_found`."""

    skipped: Literal[False] = False
    clusters: int
    insights: list[Memory]
    dropped: int = 0  # insights of the LLM's answer left out (invalid, or about no cluster given)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def scenes_created(self) -> int:
        return len(self.insights)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def candidates_found(self) -> int:
        return self.clusters


class GovernanceAnswer(RootModel[GovernanceReport | Skipped]):
    """A governance report, or the cooldown it is still in."""


class ConsolidateAnswer(RootModel[ConsolidateReport | Skipped]):
    """A consolidate report, or the cooldown it is still in."""


class ReflectAnswer(RootModel[Reflected | ReflectCandidates | Skipped]):
    """The insights stored, the candidates in candidates mode, or the cooldown."""


class TriggerAnswer(RootModel[GovernanceReport | ConsolidateReport | Reflected | Extracted]):
    """The report of the operation the admin triggered."""
