"""LLM entity extraction: typed entities and relations for the memories no LLM has read yet."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pydantic import ValidationError

from app.errors import Unavailable, no_llm
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
    has processed yet (source `llm`); in candidates mode, what the candidates route answers."""
    if answers_candidates(request.mode, registry.llm is not None):
        return await linking.candidates(registry, caller, request.limit, request.branch)
    if registry.llm is None:
        raise no_llm("entity extraction", "/v1/extract-entities/candidates")
    scope = await scope_for(registry, caller, request.branch)
    rows = await registry.graph.read("entities/unprocessed", **scope.params(), limit=request.limit)
    if not rows:
        return Extracted(processed=0, entities_linked=0, relations=0)
    given = {row["memory_id"]: row["content"] for row in rows}
    answer = await registry.llm.complete_json(
        prompt.SYSTEM,
        json.dumps([{"memory_id": key, "content": text} for key, text in given.items()]),
    )
    try:
        read = prompt.Extraction.model_validate(answer)
    except ValidationError as error:
        raise Unavailable('the LLM did not answer with a list of "memories"') from error
    # Only the memories it was given: an LLM never invents one.
    answers = {item.memory_id: item for item in read.memories if item.memory_id in given}
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
        for memory_id in given
    ]

    async def work(tx: Tx) -> Extracted:
        seq = await versions.open_change(tx, scope.user_id, scope.branch, Why("extract_entities"))
        # Deleted, purged or corrected while the LLM read them: nothing is written to those.
        active = await still_active(tx, scope, list(given))
        resolved = await linking.canonical(tx.run, scope.user_id, found)
        by_memory = {
            memory_id: mentions
            for memory_id, mentions in zip(given, resolved, strict=True)
            if memory_id in active
        }
        relations = [
            {"source": source, "target": target, "type": relation.type, "memory_id": memory_id}
            for memory_id, item in answers.items()
            if memory_id in by_memory
            for relation in item.relations
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
        return Extracted(processed=len(by_memory), entities_linked=linked, relations=related)

    return await registry.graph.transaction(work)


def _known(name: str, mentions: list[Mention]) -> str | None:
    """The canonical key of a relation's end when it is one of the memory's entities."""
    key = entity_key(name)
    for mention in mentions:
        if key in (mention.key, entity_key(mention.name)):
            return mention.key
    return None
