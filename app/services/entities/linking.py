"""Entity use cases: recognise the entities of texts, link them to memories, list them, and the
LLM-free candidates for agents (the LLM extraction lives in entity_llm)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from app.graph import Statement, Tx
from app.models.entities import (
    EntityCandidates,
    EntityLinks,
    EntityList,
    EntityPage,
    EntityQuery,
    LinkCounts,
    LinkEntities,
    LinkEntitiesMany,
    ManyEntityLinks,
    MemoryEntities,
    ProposedEntity,
)
from app.pagination import Paging
from app.registry import Registry
from app.services.entities.extractor import Mention, extract
from app.services.entities.names import canonical_keys, compact_key, entity_key, prefix
from app.services.memory_view import active_memory
from app.services.scope import Caller, scope_for
from app.services.versioning import versions
from app.services.versioning.versions import Link, Why

MENTIONS = "MENTIONS"
MANUAL = "manual"  # the source of links a caller makes
KNOWN_PER_PREFIX = 50
KNOWN_ENTITIES = 100  # the user's entities a candidates answer lists for the agent to reuse
MAX_ALIASES = 20
# Extraction of a few short texts is quicker than handing it to a thread.
INLINE_EXTRACTION_CHARS = 2_000


async def extract_all(texts: Sequence[str]) -> list[list[Mention]]:
    """The entities each text mentions (off the event loop unless the texts are short)."""
    if sum(len(text) for text in texts) <= INLINE_EXTRACTION_CHARS:
        return [extract(text) for text in texts]
    return await asyncio.to_thread(lambda: [extract(text) for text in texts])


async def recognise(registry: Registry, user_id: str, texts: Sequence[str]) -> list[list[Mention]]:
    """The entities each text mentions, keyed to the user's existing entities where a mention
    is a near duplicate of one ("Payment Services" -> payment service)."""
    return await canonical(registry.graph.read, user_id, await extract_all(texts))


async def canonical(
    run: Statement, user_id: str, found: Sequence[Sequence[Mention]]
) -> list[list[Mention]]:
    """The mentions with each key replaced by the user's entity it duplicates, if any; `run`
    runs the lookup (in the caller's transaction, or as a read of its own)."""
    keys = list(dict.fromkeys(mention.key for mentions in found for mention in mentions))
    if not keys:
        return [list(mentions) for mentions in found]
    rows = await run(
        "entities/similar",
        user_id=user_id,
        prefixes=list({prefix(key) for key in keys}),
        per_prefix=KNOWN_PER_PREFIX,
    )
    mapping = canonical_keys(keys, [row["key"] for row in rows])
    return [
        list({mapping[m.key]: replace(m, key=mapping[m.key]) for m in mentions}.values())
        for mentions in found
    ]


async def mention_links(
    tx: Tx, user_id: str, mentions: Sequence[tuple[str, Sequence[Mention]]], source: str
) -> list[Link]:
    """Makes sure the entities exist and returns the MENTIONS links from each memory id to the
    entities it mentions, for the versioned write path to add."""
    # One row per spelling: each one seen joins the entity's aliases.
    entities = {
        (mention.key, mention.name): {
            "key": mention.key,
            "compact": compact_key(mention.key),
            "name": mention.name,
            "type": mention.type,
        }
        for _, found in mentions
        for mention in found
    }
    if not entities:
        return []
    rows = await tx.run(
        "entities/upsert",
        user_id=user_id,
        entities=list(entities.values()),
        max_aliases=MAX_ALIASES,
    )
    nodes = {row["key"]: row["node"] for row in rows}
    return [
        Link(
            memory_id=memory_id,
            type=MENTIONS,
            target_node=nodes[mention.key],
            props={"source": source, "negated": mention.negated},
        )
        for memory_id, found in mentions
        for mention in found
    ]


async def relate(tx: Tx, user_id: str, relations: list[dict[str, str]]) -> int:
    """Adds RELATES_TO {type, memory_id} between entities (by key); returns how many exist."""
    if not relations:
        return 0
    rows = await tx.run("entities/relate", user_id=user_id, relations=relations)
    return int(rows[0]["related"])


async def list_page(registry: Registry, caller: Caller, query: EntityQuery) -> EntityPage:
    """A page of the user's entities in key order, with their active memory counts."""
    scope = await scope_for(registry, caller, query.branch)
    paging = Paging.of(query.cursor, query.limit)
    rows = await registry.graph.read(
        "entities/list",
        **scope.params(),
        type=query.type,
        prefix=entity_key(query.prefix) if query.prefix else None,
        after=paging.after,
        limit=paging.fetch,
    )
    fetched = [EntityList(**row["entity"], memory_count=row["memory_count"]) for row in rows]
    items, next_cursor = paging.page(fetched, lambda entity: entity.key)
    return EntityPage(items=items, next_cursor=next_cursor)


Linked = list[tuple[str, list[Mention]]]  # memory id -> the entities linked to it


def link_counts(linked: Linked, existed: set[str], mentioned: set[tuple[str, str]]) -> LinkCounts:
    """What linking made (pure): entities new to the user and existing ones reused (by key),
    and links between a memory and an entity that were not `mentioned` before."""
    keys = {mention.key for _, mentions in linked for mention in mentions}
    pairs = {(memory_id, mention.key) for memory_id, mentions in linked for mention in mentions}
    return LinkCounts(
        entities_created=len(keys - existed),
        entities_reused=len(keys & existed),
        edges_created=len(pairs - mentioned),
    )


async def link_manually(
    registry: Registry, caller: Caller, request: LinkEntities | LinkEntitiesMany
) -> EntityLinks | ManyEntityLinks:
    """Links named entities to memories (source `manual`) in one change: one memory in our
    form, several in Memoria's, each answered in its own form."""
    scope = await scope_for(registry, caller, request.branch)
    asked = (
        [(request.memory_id, request.entities)]
        if isinstance(request, LinkEntities)
        else [(item.memory_id, item.entities) for item in request.entities]
    )
    memory_ids = list(dict.fromkeys(memory_id for memory_id, _ in asked))
    named = [
        [Mention(key=entity_key(e.name), name=e.name.strip(), type=e.type) for e in entities]
        for _, entities in asked
    ]

    async def work(tx: Tx) -> ManyEntityLinks:
        seq = await versions.open_change(tx, scope.user_id, scope.branch, Why("link"))
        for memory_id in memory_ids:
            await active_memory(tx, scope, memory_id)
        found = await canonical(tx.run, scope.user_id, named)
        linked = [
            (memory_id, mentions) for (memory_id, _), mentions in zip(asked, found, strict=True)
        ]
        keys = list(dict.fromkeys(m.key for _, mentions in linked for m in mentions))
        existed = await tx.run("entities/named", user_id=scope.user_id, keys=keys)
        before = await tx.run("entities/mentioned", **scope.params(), memory_ids=memory_ids)
        mentioned = {(row["memory_id"], key) for row in before for key in row["keys"]}
        links = await mention_links(tx, scope.user_id, linked, MANUAL)
        await versions.link(tx, seq, scope.user_id, scope.branch, links)
        # An entity that existed keeps its name and type: the answer shows it as it is.
        rows = await tx.run("entities/named", user_id=scope.user_id, keys=keys)
        stored = {row["key"]: ProposedEntity(**row) for row in rows}
        known = {row["key"] for row in existed}
        return ManyEntityLinks(
            links=[
                EntityLinks(
                    memory_id=memory_id,
                    entities=[stored[mention.key] for mention in mentions],
                    **link_counts([(memory_id, mentions)], known, mentioned).model_dump(),
                )
                for memory_id, mentions in linked
            ],
            **link_counts(linked, known, mentioned).model_dump(),
        )

    answer = await registry.graph.transaction(work)
    return answer.links[0] if isinstance(request, LinkEntities) else answer


async def candidates(
    registry: Registry, caller: Caller, limit: int, branch: str | None
) -> EntityCandidates:
    """Active memories no LLM has extracted entities from yet, with the entities the
    deterministic extractor proposes and the user's entities (the first KNOWN_ENTITIES by
    key), for the calling agent to finish."""
    scope = await scope_for(registry, caller, branch)
    rows = await registry.graph.read("entities/unprocessed", **scope.params(), limit=limit)
    found = await recognise(registry, scope.user_id, [row["content"] for row in rows])
    known = await list_page(registry, caller, EntityQuery(limit=KNOWN_ENTITIES, branch=branch))
    return EntityCandidates(
        existing_entities=known.entities,
        items=[
            MemoryEntities(
                memory_id=row["memory_id"],
                content=row["content"],
                entities=[ProposedEntity(key=m.key, name=m.name, type=m.type) for m in mentions],
            )
            for row, mentions in zip(rows, found, strict=True)
        ],
    )
