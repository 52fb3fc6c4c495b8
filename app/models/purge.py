"""Purge requests and responses."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from app.models.common import Name, Note, Strict, UtcTimestamp
from app.models.memories import BranchName, MemoryType


class Purge(Strict):
    memory_ids: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] | None = Field(
        default=None, max_length=10_000
    )
    memory_types: list[MemoryType] | None = None
    before: UtcTimestamp | None = None
    session_id: Name | None = None
    topic: Annotated[str, StringConstraints(min_length=1, max_length=4096)] | None = None
    reason: Note = ""
    branch: BranchName | None = None


class Purged(BaseModel):
    purged: int
    snapshot_name: str | None = None
