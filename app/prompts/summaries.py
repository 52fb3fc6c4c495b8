"""The session summary prompts (full and lightweight) and the shapes of their answers."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, Strict

from app.models.memories import Content

INSTRUCTIONS = """You summarise one session of an agent's memories. The user message is a JSON \
list of {"memory_id", "memory_type", "content"} in the order they were stored. Write in the \
memories' language, keep identifiers as written, and do not invent anything they do not say. """

FULL = (
    INSTRUCTIONS
    + """Answer with a JSON object {"topic": str, "action": str, "outcome": \
str}: what the session was about, what was done, and how it ended, one sentence each."""
)

LIGHTWEIGHT = (
    INSTRUCTIONS
    + """Answer with a JSON object {"bullets": [str]}: 3 to 5 short \
bullets, the most important first."""
)

MIN_BULLETS, MAX_BULLETS = 3, 5
Sentence = Annotated[Content, Strict()]


class FullSummary(BaseModel):
    topic: Sentence
    action: Sentence
    outcome: Sentence

    def text(self) -> str:
        return f"Topic: {self.topic}\nAction: {self.action}\nOutcome: {self.outcome}"


class LightweightSummary(BaseModel):
    """3 to 5 bullets; more are cut to the first five."""

    bullets: Annotated[list[Sentence], Field(min_length=MIN_BULLETS)]

    def text(self) -> str:
        return "\n".join(f"- {bullet}" for bullet in self.bullets[:MAX_BULLETS])
