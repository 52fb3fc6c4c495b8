"""Session summaries: the request, and what it answers (the summary, or its task)."""

from __future__ import annotations

from typing import ClassVar, Literal

from app.models.common import Strict
from app.models.memories import Memory

SummaryMode = Literal["full", "lightweight"]


class SummaryRequest(Strict):
    """`full`: topic, action, outcome; `lightweight`: 3 to 5 bullets (at most 3 per session).
    `sync: false` answers 202 with a task; `generate_embedding: false` stores the summary
    without an embedding (listed and found by full-text search only)."""

    body_optional: ClassVar[bool] = True  # documented as such in /openapi.json

    mode: SummaryMode = "full"
    sync: bool = False
    generate_embedding: bool = True


class Summary(Memory):
    """The summary, stored as an episodic memory, and how many items of the LLM's answer were
    left out (a bullet that was no sentence, or past the fifth)."""

    dropped: int = 0
