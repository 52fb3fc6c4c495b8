"""The observe prompt: distil a conversation into durable facts, and the answer's shape."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, BeforeValidator, Field, Strict, ValidationError

from app.models.memories import Content

SYSTEM = """You extract durable memories from a conversation between a user and an \
assistant. Answer with a JSON object {"facts": [{"content": str, "memory_type": str}]} where \
memory_type is one of semantic, profile, procedural, working, tool_result. Keep each fact short, \
self-contained and in the user's language; skip greetings and small talk."""

DistilledType = Literal["semantic", "profile", "procedural", "working", "tool_result"]
DISTILLED_TYPES: tuple[str, ...] = get_args(DistilledType)
FALLBACK_TYPE: DistilledType = "semantic"


def _known_type(value: object) -> object:
    # A type the prompt did not offer is not worth losing the fact over.
    return value if value in DISTILLED_TYPES else FALLBACK_TYPE


class Fact(BaseModel):
    content: Annotated[Content, Strict()]  # text only: a number is not a fact
    memory_type: Annotated[DistilledType, BeforeValidator(_known_type)] = FALLBACK_TYPE


def _valid_facts(items: object) -> list[Fact]:
    if not isinstance(items, list):
        raise ValueError('the LLM did not answer with a list of "facts"')
    facts = []
    for item in items:
        try:
            facts.append(Fact.model_validate(item))
        except ValidationError:  # not an object, no text, blank or over the content limit
            continue
    return facts


class Distilled(BaseModel):
    """The answer: the facts worth keeping; a fact that is not a valid memory is skipped."""

    facts: Annotated[list[Fact], BeforeValidator(_valid_facts)] = Field(default_factory=list)
