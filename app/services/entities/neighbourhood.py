"""An entity's neighbourhood in a user's graph (two hops, capped) and the entities one memory
mentions: what the console draws and lists."""

from __future__ import annotations

from app.errors import NotFound
from app.models.neighbourhood import GraphEdge, GraphEntity, GraphMemory, Mention, Neighbourhood
from app.registry import Registry
from app.services.entities.names import entity_key
from app.services.scope import Caller, scope_for

MEMORIES_SHOWN = 25
ENTITIES_SHOWN = 40


async def neighbourhood(
    registry: Registry, caller: Caller, key: str, branch: str | None
) -> Neighbourhood:
    """The memories that mention the entity (newest first), the entities they mention and the
    entities it relates to; NotFound for an entity the user does not have. `key` may be any
    spelling of the entity's name."""
    scope = await scope_for(registry, caller, branch)
    rows = await registry.graph.read(
        "entities/neighbourhood",
        **scope.params(),
        key=entity_key(key),
        memories=MEMORIES_SHOWN,
        entities=ENTITIES_SHOWN,
    )
    if not rows:
        raise NotFound("entity not found")
    row = rows[0]
    center = GraphEntity(**row["center"])
    entities: dict[str, GraphEntity] = {}
    for found in row["neighbours"]:
        entities.setdefault(found["key"], GraphEntity(**found))
    entities.pop(center.key, None)
    edges = [
        GraphEdge(kind="mentions", source=item["memory_id"], target=item["key"])
        for item in row["mentions"]
    ] + [
        GraphEdge(
            kind="relates_to", source=item["source"], target=item["target"], label=item["label"]
        )
        for item in row["relations"]
    ]
    return Neighbourhood(
        center=center,
        memories=[GraphMemory(**memory) for memory in row["memories"]],
        entities=list(entities.values()),
        edges=edges,
        capped=row["mentioning"] > MEMORIES_SHOWN or len(row["neighbours"]) >= ENTITIES_SHOWN,
    )


async def mentioned_by(
    registry: Registry, caller: Caller, memory_id: str, branch: str | None
) -> list[Mention]:
    """The entities a memory mentions as it stands on the branch (empty for an unknown one)."""
    scope = await scope_for(registry, caller, branch)
    rows = await registry.graph.read("entities/of_memory", **scope.params(), memory_id=memory_id)
    return [Mention(**row) for row in rows]
