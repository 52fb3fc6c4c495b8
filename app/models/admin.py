"""Admin requests and responses."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.models.common import PAGE_SIZE_DEFAULT, PageSize


class SystemStats(BaseModel):
    users: int
    active_users: int
    api_keys: int
    live_api_keys: int
    active_memories: int
    memory_versions: int
    sessions: int
    snapshots: int
    branches: int
    feedback: int
    entities: int
    tasks: int


class User(BaseModel):
    user_id: str = Field(validation_alias="id")
    active: bool
    created_at: datetime
    deactivated_at: datetime | None = None
    active_branch: str = "main"


class UserSummary(User):
    live_keys: int
    active_memories: int


class UserPage(BaseModel):
    items: list[UserSummary]
    next_cursor: str | None


class UserPageQuery(BaseModel):
    cursor: str | None = None
    limit: PageSize = PAGE_SIZE_DEFAULT


class MemoryCount(BaseModel):
    branch: str
    memory_type: str
    count: int


class UserStats(BaseModel):
    user: User
    keys: int
    live_keys: int
    active_memories: int
    memories_by_type: dict[str, int]
    memories: list[MemoryCount]
    sessions: int
    snapshots: int
    branches: int
    feedback: int
