"""An entity's neighbourhood in a user's graph, and the entities one memory mentions."""

from __future__ import annotations

from pydantic import BaseModel


class GraphEntity(BaseModel):
    key: str
    name: str
    type: str


class GraphMemory(BaseModel):
    memory_id: str
    content: str
    memory_type: str


class GraphEdge(BaseModel):
    """A memory mentions an entity (`mentions`, source memory id, target entity key), or an
    entity relates to another (`relates_to`, with the relation's own name in `label`)."""

    kind: str
    source: str
    target: str
    label: str | None = None


class Neighbourhood(BaseModel):
    """Two hops around an entity: the memories that mention it, the entities they mention and
    those it is related to; `capped` when more were left out than shown."""

    center: GraphEntity
    memories: list[GraphMemory]
    entities: list[GraphEntity]
    edges: list[GraphEdge]
    capped: bool


class Mention(BaseModel):
    """An entity a memory mentions, and how the link was made (auto, llm or manual)."""

    key: str
    name: str
    type: str
    source: str | None
