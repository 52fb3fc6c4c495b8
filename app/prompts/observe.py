"""The observe prompt: distil a conversation into durable facts, and the answer's shape."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, get_args

from pydantic import BaseModel, Strict

from app.models.memories import Content
from app.prompts.answers import Answer, one_of, valid_items

SYSTEM = """You extract durable memories from a conversation between a user and an \
assistant. Answer with a JSON object {"facts": [{"content": str, "memory_type": str}]} where \
memory_type is one of semantic, profile, procedural, working, tool_result. Keep each fact short, \
self-contained and in the user's language; skip greetings and small talk."""

DistilledType = Literal["semantic", "profile", "procedural", "working", "tool_result"]
DISTILLED_TYPES: tuple[str, ...] = get_args(DistilledType)
FALLBACK_TYPE: DistilledType = "semantic"


class Fact(BaseModel):
    content: Annotated[Content, Strict()]  # text only: a number is not a fact
    memory_type: Annotated[DistilledType, one_of(DISTILLED_TYPES, FALLBACK_TYPE)] = FALLBACK_TYPE


class Distilled(Answer):
    """The answer: the facts worth keeping; a fact that is not a valid memory is skipped."""

    expected: ClassVar[str] = 'a list of "facts"'

    facts: Annotated[list[Fact], valid_items(Fact, required=True)]  # no list: unusable
