"""The entity extraction prompt: typed entities and relations per memory, and the answer's shape."""

from __future__ import annotations

from typing import Annotated, ClassVar, get_args

from pydantic import BaseModel, Field

from app.models.entities import EntityName, EntityType
from app.prompts.answers import Answer, one_of, valid_items

SYSTEM = """You extract the named entities of short memories and the relations between them. \
The user message is a JSON list of {"memory_id", "content"}. Answer with a JSON object \
{"memories": [{"memory_id": str, "entities": [{"name": str, "type": str}], "relations": \
[{"source": str, "target": str, "type": str}]}]} with one item per memory you were given and \
no other memory ids. type is one of person, team, org, service, package, version, identifier, \
place, concept, other. A relation's source and target are names from that memory's entities and \
its type a short verb phrase in snake_case (owns, leads, depends_on, fixes, alias_of). Keep \
names as written in the memory, in its language; do not invent entities it does not name."""

FALLBACK_TYPE: EntityType = "other"
ENTITY_TYPES: tuple[str, ...] = get_args(EntityType)
RelationType = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")]


class NamedEntity(BaseModel):
    name: EntityName
    type: Annotated[EntityType, one_of(ENTITY_TYPES, FALLBACK_TYPE)] = FALLBACK_TYPE


class Relation(BaseModel):
    source: EntityName
    target: EntityName
    type: RelationType


class MemoryAnswer(BaseModel):
    """One memory's entities and relations. Entities that all are invalid make the item invalid:
    the memory then stays unprocessed (an empty list is an answer: nothing to name)."""

    memory_id: str
    entities: Annotated[list[NamedEntity], valid_items(NamedEntity, one_needed=True)] = Field(
        default_factory=list
    )
    relations: Annotated[list[Relation], valid_items(Relation)] = Field(default_factory=list)


class Extraction(Answer):
    """The answer: entities and relations per memory; invalid items are skipped, but without a
    list of memories the answer is unusable."""

    expected: ClassVar[str] = 'a list of "memories"'

    memories: Annotated[list[MemoryAnswer], valid_items(MemoryAnswer, required=True)]
