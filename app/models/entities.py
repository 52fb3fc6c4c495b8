"""Entity requests and responses: the list, manual links, and the extraction candidates."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    RootModel,
    StringConstraints,
    WithJsonSchema,
    computed_field,
)

from app.models.common import PAGE_SIZE_DEFAULT, LlmMode, PageSize, Strict
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


class MemoriaEntity(BaseModel):
    """An entity as Memoria's clients read it: `entity_type` is our `type`."""

    name: str
    entity_type: str


class EntityPage(BaseModel):
    items: list[EntityList]
    next_cursor: str | None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def entities(self) -> list[MemoriaEntity]:
        """The page's entities as Memoria lists them (beside `items`)."""
        return [MemoriaEntity(name=item.name, entity_type=item.type) for item in self.items]


class EntityQuery(BaseModel):
    limit: PageSize = PAGE_SIZE_DEFAULT
    cursor: str | None = None
    type: EntityType | None = None
    prefix: Annotated[str, StringConstraints(max_length=200)] | None = None
    branch: BranchName | None = None


class NamedEntity(Strict):
    name: EntityName
    type: EntityType = "other"


MemoryId = Annotated[str, StringConstraints(min_length=1, max_length=128)]
# Memoria's entity types (its extraction prompt's) in ours; a type neither knows is `other`.
MEMORIA_TYPES: dict[str, EntityType] = {"tech": "package", "repo": "identifier", "project": "other"}
ENTITY_TYPES: tuple[EntityType, ...] = get_args(EntityType)


def _our_type(value: object) -> object:
    if not isinstance(value, str) or value in ENTITY_TYPES:
        return value
    return MEMORIA_TYPES.get(value.strip().lower(), "other")


class LinkEntities(Strict):
    """Our form: entities linked to one memory."""

    memory_id: MemoryId
    entities: list[NamedEntity] = Field(min_length=1, max_length=50)
    branch: BranchName | None = None


class MemoriaNamedEntity(Strict):
    """An entity in Memoria's form: any `type` string (Memoria's own map to ours, others to
    `other`), `concept` when left out, as Memoria has it."""

    name: EntityName
    type: Annotated[EntityType, BeforeValidator(_our_type), WithJsonSchema({"type": "string"})] = (
        "concept"
    )


class MemoriaMemoryLinks(Strict):
    memory_id: MemoryId
    entities: list[MemoriaNamedEntity] = Field(max_length=50)


class LinkEntitiesMany(Strict):
    """Memoria's form: entities linked to several memories at once, in one change."""

    entities: list[MemoriaMemoryLinks] = Field(min_length=1, max_length=100)
    branch: BranchName | None = None


class LinkRequest(RootModel[LinkEntities | LinkEntitiesMany]):
    """`{memory_id, entities}` (ours) or `{entities: [{memory_id, entities}, ...]}` (Memoria's):
    the same operation on one memory or on several."""

    @staticmethod
    def form_of(data: Any) -> type[LinkEntities | LinkEntitiesMany]:
        """The form a body is in (see bodies.validate_body): ours names one `memory_id`."""
        return LinkEntities if isinstance(data, dict) and "memory_id" in data else LinkEntitiesMany


class LinkCounts(BaseModel):
    """What a manual link made: entities new to the user, existing ones it reused, and links
    between a memory and an entity that were not there before."""

    entities_created: int
    entities_reused: int
    edges_created: int


class EntityLinks(LinkCounts):
    """The entities now linked to the memory (keys as normalised)."""

    memory_id: str
    entities: list[ProposedEntity]


class ManyEntityLinks(LinkCounts):
    """Memoria's form answered: each memory's entities, with the counts over all of them."""

    links: list[EntityLinks]


class LinkAnswer(RootModel[EntityLinks | ManyEntityLinks]):
    """Our form's answer for our form, Memoria's counts (with the links) for Memoria's."""


class CandidatesRequest(Strict):
    body_optional: ClassVar[bool] = True  # documented as such in /openapi.json

    limit: int = Field(default=CANDIDATES_DEFAULT, ge=1, le=100)
    branch: BranchName | None = None


class ExtractRequest(CandidatesRequest):
    """See LlmMode: `auto` extracts with the LLM when one is configured, else answers the
    candidates."""

    mode: LlmMode = "llm"


class MemoryEntities(BaseModel):
    """A memory no LLM has processed yet, with the entities the extractor proposes."""

    memory_id: str
    content: str
    entities: list[ProposedEntity]


class UnlinkedMemory(BaseModel):
    memory_id: str
    content: str


class EntityCandidates(BaseModel):
    """The memories for the agent to extract from, and the user's entities for it to reuse
    (`existing_entities`, in key order); `status`, `memories` and `unlinked` are Memoria's view
    of `items`."""

    items: list[MemoryEntities]
    existing_entities: list[MemoriaEntity]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> Literal["candidates", "complete"]:
        """`complete` when no memory is left to extract from."""
        return "candidates" if self.items else "complete"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def memories(self) -> list[UnlinkedMemory]:
        return [UnlinkedMemory(memory_id=i.memory_id, content=i.content) for i in self.items]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def unlinked(self) -> int:
        """How many memories are listed."""
        return len(self.items)


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
