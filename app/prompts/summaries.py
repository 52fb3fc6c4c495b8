"""The session summary prompts (full and lightweight) and the shapes of their answers."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field, Strict, ValidationInfo, field_validator

from app.models.memories import Content
from app.prompts.answers import Answer, dropped, valid_items

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


class FullSummary(Answer):
    """Topic, action and outcome: all three, or the answer is unusable."""

    expected: ClassVar[str] = "topic, action and outcome"

    topic: Sentence
    action: Sentence
    outcome: Sentence

    def text(self) -> str:
        return f"Topic: {self.topic}\nAction: {self.action}\nOutcome: {self.outcome}"

    def sentences(self) -> list[str]:
        """What the summary says, without its labels (the text its entities come from)."""
        return [self.topic, self.action, self.outcome]


class LightweightSummary(Answer):
    """3 to 5 bullets: a bullet that is no sentence is left out, and more than five are cut to
    the first five; fewer than three left make the answer unusable."""

    expected: ClassVar[str] = "3 to 5 bullets"

    bullets: Annotated[list[Sentence], Field(min_length=MIN_BULLETS), valid_items(Sentence)]

    @field_validator("bullets")
    @classmethod
    def _first_five(cls, bullets: list[str], info: ValidationInfo) -> list[str]:
        dropped(info, len(bullets[MAX_BULLETS:]))
        return bullets[:MAX_BULLETS]

    def text(self) -> str:
        return "\n".join(f"- {bullet}" for bullet in self.bullets)

    def sentences(self) -> list[str]:
        return list(self.bullets)
