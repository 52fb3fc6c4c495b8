"""Feedback and retrieval-parameter requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import BaseModel, Field, StringConstraints, computed_field

from app.models.common import Strict
from app.models.memories import BranchName, TrustTier

Signal = Literal["useful", "irrelevant", "outdated", "wrong"]
SIGNALS: tuple[Signal, ...] = get_args(Signal)
TIERS: tuple[TrustTier, ...] = get_args(TrustTier)
FEEDBACK_WEIGHT_MIN = 0.01
FEEDBACK_WEIGHT_MAX = 0.5
FEEDBACK_WEIGHT_DEFAULT = 0.1
MAX_CONTEXT_CHARS = 4000

TuningSource = Literal["default", "manual", "auto"]


class NewFeedback(Strict):
    signal: Signal
    branch: BranchName | None = None
    context: Annotated[str, StringConstraints(max_length=MAX_CONTEXT_CHARS)] = ""


class FeedbackRecorded(BaseModel):
    feedback_id: str
    memory_id: str
    signal: Signal


class FeedbackStats(BaseModel):
    total: int
    useful: int
    irrelevant: int
    outdated: int
    wrong: int


class TierSignalCount(BaseModel):
    tier: TrustTier
    signal: Signal
    count: int


class FeedbackByTier(BaseModel):
    breakdown: list[TierSignalCount]


class RetrievalParams(BaseModel):
    feedback_weight: float
    source: TuningSource
    tuned_at: datetime | None
    tuned_signals: int


class TuneRequest(Strict):
    """Manual tuning names the weight; an empty body (or {}) asks for automatic tuning."""

    body_optional: ClassVar[bool] = True  # documented as such in /openapi.json
    feedback_weight: float | None = Field(
        default=None, ge=FEEDBACK_WEIGHT_MIN, le=FEEDBACK_WEIGHT_MAX
    )


class TuneResult(BaseModel):
    """Whether the parameters changed, and what they were and are (Memoria's names for them:
    `old_params` and `new_params`)."""

    tuned: bool
    mode: Literal["manual", "auto"]
    message: str | None = None
    signals: int
    previous: RetrievalParams | None = None
    current: RetrievalParams
    rule: dict[str, float] | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def old_params(self) -> RetrievalParams | None:
        return self.previous

    @computed_field  # type: ignore[prop-decorator]
    @property
    def new_params(self) -> RetrievalParams:
        return self.current


class FeedbackGiven(BaseModel):
    """One signal given on a memory, as recorded."""

    feedback_id: str
    signal: Signal
    context: str
    created_at: datetime
