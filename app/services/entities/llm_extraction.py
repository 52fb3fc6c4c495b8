"""LLM entity extraction: typed entities and relations for the memories no LLM has read yet.

The memories of an answer whose items were all usable are processed, those it left out too (it
had nothing to say about them). When it dropped items, only the memories it answered for are:
a dropped item may have been another's (its id lost), so the rest are offered again next time.
An item whose every entity is invalid is dropped (it says nothing usable about its memory). An
answer usable for none of the memories processes none and is 503."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from app.errors import no_llm
from app.graph import Tx
from app.models.common import answers_candidates
from app.models.entities import EntityCandidates, Extracted, ExtractRequest
from app.prompts import entities as prompt
from app.registry import Registry
from app.services.entities import linking
from app.services.entities.extractor import Mention, negated_in
from app.services.entities.names import entity_key
from app.services.memory_view import still_active
from app.services.scope import Caller, scope_for
from app.services.versioning import versions
from app.services.versioning.versions import Why

LLM = "llm"


async def extract(
    registry: Registry, caller: Caller, request: ExtractRequest
) -> Extracted | EntityCandidates:
    """With an LLM, links the entities and relations it reads in up to `limit` memories no LLM
    has processed yet (source `llm`; its type replaces `other`); in candidates mode, what the
    candidates route answers."""
    if answers_candidates(request.mode, registry.llm is not None):
        return await linking.candidates(registry, caller, request.limit, request.branch)
    if registry.llm is None:
        raise no_llm("entity extraction", "/v1/extract-entities/candidates")
    scope = await scope_for(registry, caller, request.branch)
    rows = await registry.graph.read("entities/unprocessed", **scope.params(), limit=request.limit)
    if not rows:
        return Extracted(processed=0, entities_linked=0, relations=0)
    given = {row["memory_id"]: row["content"] for row in rows}
    read = await registry.llm.answer(
        "extract_entities",
        prompt.SYSTEM,
        json.dumps([{"memory_id": key, "content": text} for key, text in given.items()]),
        prompt.Extraction,
    )
    # Only the memories it was given (an LLM never invents one), once each.
    answers: dict[str, prompt.MemoryAnswer] = {}
    for item in read.answer.memories:
        if item.memory_id in given:
            answers.setdefault(item.memory_id, item)
    dropped = read.all_dropped(len(answers), len(read.answer.memories) - len(answers))
    if not answers:  # an empty list, where one item per memory was asked for
        raise read.unusable("the LLM answered for none of the memories it was given")
    processed = list(answers) if dropped else list(given)
    found = [
        [
            Mention(
                key=entity_key(entity.name),
                name=entity.name,
                type=entity.type,
                negated=negated_in(given[memory_id], entity.name),
            )
            for entity in answers[memory_id].entities
            if entity_key(entity.name)
        ]
        if memory_id in answers
        else []
        for memory_id in processed
    ]

    async def work(tx: Tx) -> Extracted:
        seq = await versions.open_change(tx, scope.user_id, scope.branch, Why("extract_entities"))
        # Deleted, purged or corrected while the LLM read them: nothing is written to those.
        active = await still_active(tx, scope, processed)
        resolved = await linking.canonical(tx.run, scope.user_id, found)
        by_memory = {
            memory_id: mentions
            for memory_id, mentions in zip(processed, resolved, strict=True)
            if memory_id in active
        }
        asked = [
            (memory_id, relation)
            for memory_id, item in answers.items()
            if memory_id in by_memory
            for relation in item.relations
        ]
        relations = [
            {"source": source, "target": target, "type": relation.type, "memory_id": memory_id}
            for memory_id, relation in asked
            if (source := _known(relation.source, by_memory[memory_id]))
            and (target := _known(relation.target, by_memory[memory_id]))
        ]
        processed_at = {"llm_entities_at": datetime.now(UTC)}
        await versions.revise(
            tx, seq, scope.user_id, scope.branch, [(key, processed_at) for key in by_memory]
        )
        links = await linking.mention_links(tx, scope.user_id, list(by_memory.items()), LLM)
        linked = await versions.link(tx, seq, scope.user_id, scope.branch, links)
        related = await linking.relate(tx, scope.user_id, relations)
        return Extracted(
            processed=len(by_memory),
            entities_linked=linked,
            relations=related,
            dropped=dropped + len(asked) - len(relations),
        )

    return await registry.graph.transaction(work)


def _known(name: str, mentions: list[Mention]) -> str | None:
    """The canonical key of a relation's end when it is one of the memory's entities."""
    key = entity_key(name)
    for mention in mentions:
        if key in (mention.key, entity_key(mention.name)):
            return mention.key
    return None
