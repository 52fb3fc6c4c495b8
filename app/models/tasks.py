"""Tasks: work a request hands to the background (session summaries), as clients poll it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel

TaskStatus = Literal["processing", "completed", "failed"]


class Task(BaseModel):
    task_id: str
    kind: str
    status: TaskStatus
    result: dict[str, Any] | None = None
    error: str | None = None
    created_at: datetime
    updated_at: datetime


class TaskAccepted(BaseModel):
    """202: the work runs in the background; poll GET /v1/tasks/{task_id}."""

    task_id: str
    status: Literal["processing"] = "processing"
