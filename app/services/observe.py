"""Observe: turn a conversation into memories, distilled by the LLM or stored message by message."""

from __future__ import annotations

from app.models.memories import NewMemory, Observe, Observed
from app.prompts import observe as prompt
from app.registry import Registry
from app.services.memories import store_batch
from app.services.scope import Caller
from app.services.versioning.versions import Why

OBSERVED_CONFIDENCE = 0.7
DISTILLED_TIER = "T3"
SPEAKERS = ("user", "assistant")
OBSERVED = Why("observe")
RAW_OBSERVE_WARNING = (
    "no LLM is configured: each message was stored as it was, without distillation"
)


async def observe(registry: Registry, caller: Caller, request: Observe) -> Observed:
    """Without an LLM every non-blank user or assistant message becomes a memory (with a
    warning); with one, the facts it distils become T3 memories (those it could not make a
    memory of are counted as dropped; when it could make none, nothing is stored and the
    answer is 503). Each is observed when the request says the conversation took place (its
    `observed_at`), else now."""
    if registry.llm is None:
        items = [
            NewMemory(
                content=message.content,
                session_id=request.session_id,
                subject_id=request.subject_id,
                observed_at=request.observed_at,
                initial_confidence=OBSERVED_CONFIDENCE,
            )
            for message in request.messages
            if message.role in SPEAKERS and message.content.strip()
        ]
        stored = (
            await store_batch(registry, caller, items, request.branch, OBSERVED) if items else []
        )
        return Observed(memories=stored, warning=RAW_OBSERVE_WARNING)
    transcript = "\n".join(f"{message.role}: {message.content}" for message in request.messages)
    read = await registry.llm.answer("observe", prompt.SYSTEM, transcript, prompt.Distilled)
    facts = [
        NewMemory(
            content=fact.content,
            memory_type=fact.memory_type,
            session_id=request.session_id,
            subject_id=request.subject_id,
            observed_at=request.observed_at,
            trust_tier=DISTILLED_TIER,
        )
        for fact in read.answer.facts
    ]
    dropped = read.all_dropped(len(facts))  # none usable: 503, the caller keeps its conversation
    stored = await store_batch(registry, caller, facts, request.branch, OBSERVED) if facts else []
    return Observed(memories=stored, dropped=dropped)
