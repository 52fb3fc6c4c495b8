"""MCP tool arguments: REST's request models, plus the path parameters a tool takes as fields."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints, model_validator

from app.models.branches import Merge, Pick
from app.models.common import Name, Strict, exactly_one
from app.models.entities import EntityQuery
from app.models.feedback import NewFeedback
from app.models.governance import Operation, ReflectRequest
from app.models.memories import (
    BranchName,
    CorrectById,
    ListQuery,
    ProfileQuery,
    QueryText,
    ReadQuery,
    Scoped,
)
from app.models.snapshots import DiffQuery, SnapshotName
from app.models.summaries import SummaryRequest

Identifier = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class NoArguments(Strict):
    """A tool that takes nothing."""


class ListArguments(ListQuery, Strict):
    """memory_list: GET /v1/memories's query, with unknown fields rejected."""


class ProfileArguments(ProfileQuery, Strict):
    """memory_profile: GET /v1/profiles/me's query, with unknown fields rejected."""


class EntityArguments(EntityQuery, Strict):
    """memory_entities: GET /v1/entities's query, with unknown fields rejected."""


class FeedbackArguments(NewFeedback):
    memory_id: Identifier


class CorrectArguments(CorrectById, Scoped):
    """By `memory_id` (PUT /v1/memories/{id}/correct) or by `query`, the best semantic match
    (POST /v1/memories/correct, where subject and session narrow the match); exactly one of
    the two."""

    memory_id: Identifier | None = None
    query: QueryText | None = None

    @model_validator(mode="after")
    def _one_target(self) -> CorrectArguments:
        exactly_one("memory_id and query", self.memory_id is not None, self.query is not None)
        if self.memory_id is not None and self.model_fields_set & set(Scoped.model_fields):
            raise ValueError("subject_id and the session apply to a correction by query")
        return self


class SnapshotArguments(Strict):
    name: SnapshotName


class BranchArguments(Strict):
    name: BranchName


class DiffArguments(DiffQuery, Strict):
    """A snapshot against the current state, or a branch against main; exactly one."""

    snapshot: SnapshotName | None = None
    branch: BranchName | None = None

    @model_validator(mode="after")
    def _one_side(self) -> DiffArguments:
        exactly_one("snapshot and branch", self.snapshot is not None, self.branch is not None)
        return self


class MergeArguments(Merge):
    branch: BranchName


class PickArguments(Pick):
    branch: BranchName


class HistoryArguments(ReadQuery, Strict):
    memory_id: Identifier


class GovernanceArguments(ReflectRequest):
    """`op` picks the operation; `mode` and `limit` apply to reflect only."""

    op: Operation

    @model_validator(mode="after")
    def _reflect_options(self) -> GovernanceArguments:
        if self.op != "reflect" and self.model_fields_set & {"mode", "limit"}:
            raise ValueError("mode and limit apply to op reflect only")
        return self


class SummaryArguments(SummaryRequest):
    session_id: Name


class TaskArguments(Strict):
    task_id: Identifier
