"""What governance left to look at: quarantined memories, standing contradictions, the last runs
of each operation and their cooldowns, and restoring a quarantined memory."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from app.models.common import Note, Strict
from app.models.governance import Operation
from app.models.memories import BranchName, Memory


class Quarantined(BaseModel):
    """A memory governance quarantined, with when and why."""

    memory: Memory
    quarantined_at: datetime | None
    reason: str | None


class QuarantinePage(BaseModel):
    items: list[Quarantined]
    next_cursor: str | None


class Restore(Strict):
    reason: Note = ""
    branch: BranchName | None = None


class ContradictionSide(BaseModel):
    memory_id: str
    content: str
    trust_tier: str
    observed_at: datetime
    confidence: float  # decayed to now (the lowered one's is lowered)


class Contradiction(BaseModel):
    """Two memories that disagree, newer and older; which one consolidate kept and why."""

    newer: ContradictionSide
    older: ContradictionSide
    severity: str
    reason: str  # how they disagree
    detected_at: datetime
    kept: str  # memory id
    why_kept: str


class GovernanceRun(BaseModel):
    op: str
    trigger: str
    at: datetime
    counts: dict[str, int | float | bool]


class Cooldown(BaseModel):
    op: Operation
    until: datetime | None
    remaining_s: int  # 0: the operation may run now


class GovernanceActivity(BaseModel):
    """The last runs of governance, consolidate and reflect (newest first) and each one's
    cooldown."""

    runs: list[GovernanceRun]
    cooldowns: list[Cooldown]
