"""Entity requests and responses: the list, manual links, and the extraction candidates."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, Field, RootModel, StringConstraints

from app.models.common import PAGE_SIZE_DEFAULT, PageSize, Strict
from app.models.memories import BranchName

EntityType = Literal[
    "person",
    "team",
    "org",
    "service",
    "package",
    "version",
    "identifier",
    "place",
    "concept",
    "other",
]
EntityName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200, pattern=r"[^\W_]")
]
CANDIDATES_DEFAULT = 20


class ProposedEntity(BaseModel):
    key: str
    name: str
    type: EntityType


class EntityList(ProposedEntity):
    """An entity with the spellings seen and how many active memories mention it."""

    aliases: list[str]
    memory_count: int


class EntityPage(BaseModel):
    items: list[EntityList]
    next_cursor: str | None


class EntityQuery(BaseModel):
    limit: PageSize = PAGE_SIZE_DEFAULT
    cursor: str | None = None
    type: EntityType | None = None
    prefix: Annotated[str, StringConstraints(max_length=200)] | None = None
    branch: BranchName | None = None


class NamedEntity(Strict):
    name: EntityName
    type: EntityType = "other"


class LinkEntities(Strict):
    memory_id: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    entities: list[NamedEntity] = Field(min_length=1, max_length=50)
    branch: BranchName | None = None


class EntityLinks(BaseModel):
    """The entities now linked to the memory (keys as normalised)."""

    memory_id: str
    entities: list[ProposedEntity]


class CandidatesRequest(Strict):
    body_optional: ClassVar[bool] = True  # documented as such in /openapi.json

    limit: int = Field(default=CANDIDATES_DEFAULT, ge=1, le=100)
    branch: BranchName | None = None


class ExtractRequest(CandidatesRequest):
    mode: Literal["llm", "candidates"] = "llm"


class MemoryEntities(BaseModel):
    """A memory no LLM has processed yet, with the entities the extractor proposes."""

    memory_id: str
    content: str
    entities: list[ProposedEntity]


class EntityCandidates(BaseModel):
    items: list[MemoryEntities]


class Extracted(BaseModel):
    """What an LLM extraction did: memories processed, entity links and relations added, and
    the items of the LLM's answer left out (invalid, about a memory it was not given, a
    relation between names that are not the memory's entities)."""

    processed: int
    entities_linked: int
    relations: int
    dropped: int = 0


class ExtractAnswer(RootModel[Extracted | EntityCandidates]):
    """The extraction's counts, or in candidates mode what the candidates route answers."""
