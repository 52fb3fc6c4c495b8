"""The reflect prompt: one insight per cluster of related memories, and the answer's shape."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import BaseModel, Strict

from app.models.memories import Content
from app.prompts.answers import Answer, valid_items

SYSTEM = """You read clusters of related memories an agent stored in different sessions and \
write, for each cluster where they say something together that none says alone, one insight: \
a short self-contained statement in the memories' language (a pattern, a lasting preference, a \
cause, a rule). The user message is a JSON list of {"cluster": int, "memories": [{"memory_id", \
"session_id", "content"}]}. Answer with a JSON object {"insights": [{"cluster": int, "content": \
str}]}, at most one insight per cluster, and leave out clusters with nothing to add. Do not \
restate a single memory and do not invent facts the memories do not support."""


class Insight(BaseModel):
    cluster: Annotated[int, Strict()]
    content: Annotated[Content, Strict()]


class Insights(Answer):
    """The answer: insights by cluster number; an invalid item is skipped."""

    expected: ClassVar[str] = 'a list of "insights"'

    insights: Annotated[list[Insight], valid_items(Insight, required=True)]  # no list: unusable
