"""The graph stage's round trip: the query's seed entities, the walk (cypher/retrieval/expand)
and the scored expansion that joins the candidates (scoring itself is graph_stage, pure)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from app.graph import PackedVector
from app.registry import Registry
from app.services.entities.extractor import extract
from app.services.entities.names import compact_key, name_keys
from app.services.memory_view import whole
from app.services.retrieval import graph_stage, ranking
from app.services.retrieval.config import DEFAULT, GraphConfig
from app.services.scope import MAIN, MemoryFilter, Scope
from app.services.versioning.as_of import NOW, AsOf

# An entity key of plain lowercase words: a name only where a query writes it as one.
_PLAIN_WORDS = re.compile(r"[a-z]+(?: [a-z]+)*")


@dataclass(frozen=True)
class Expansion:
    """What the walk found: the seed entity keys, the memories it reached (rows like the first
    stage's candidates) with their cosine to the query (what judges them), the paths, how strong
    each seeding candidate was, and the memories the query's entities are said to have nothing
    to do with (see cypher/retrieval/expand). What each memory is worth is the ranking's to say
    (see hits): the walk only gathers."""

    keys: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    paths: list[graph_stage.GraphPath] = field(default_factory=list)
    query_cosine: dict[str, float] = field(default_factory=dict)
    strength: dict[str, float] = field(default_factory=dict)
    deniers: frozenset[str] = frozenset()
    timed_out: bool = False  # the walk ran out of time and was dropped
    denied: frozenset[str] = frozenset()

    def hits(
        self, config: GraphConfig, on_scale: Callable[[float], float]
    ) -> dict[str, graph_stage.GraphHit]:
        """Each reached memory's worth relative to the best first-stage candidate, and the path
        that earned it (see graph_stage.score), its similarity to the query read on the first
        stage's scale (`on_scale`, see fusion.Scorer): how much of the question a memory covers
        does not depend on where a model puts unrelated texts."""
        similarity = {key: on_scale(cosine) for key, cosine in self.query_cosine.items()}
        return graph_stage.score(self.paths, similarity, self.strength, 1.0, config, self.deniers)

    def marked(self, candidate: ranking.Candidate, reached: bool) -> ranking.Candidate:
        """The candidate marked denied when no path reached it and a memory of the query's
        entities denies it (unchanged otherwise)."""
        if not reached and candidate.memory_id in self.denied:
            return replace(candidate, denied=True)
        return candidate

    @staticmethod
    def chain(hits: dict[str, graph_stage.GraphHit]) -> bool:
        """Whether the walk found a chain from an entity the question names: a path through
        two memories or more that scored."""
        return any(
            hit.path.seed_memory is None and len(hit.path.memories) >= 2 for hit in hits.values()
        )

    def summary(self, hits: dict[str, graph_stage.GraphHit]) -> dict[str, Any]:
        return {
            "seed_entities": self.keys,
            "reached": len(hits),
            "chain": self.chain(hits),
            "timed_out": self.timed_out,
        }

    @staticmethod
    def explain(hits: dict[str, graph_stage.GraphHit], memory_id: str) -> dict[str, Any]:
        """A result's graph worth (relative to the best first-stage candidate) and the path
        that brought it in (the first-stage memory that gave the seed if one did, then entity
        keys and memory ids in turn)."""
        hit = hits.get(memory_id)
        if hit is None:
            return {}
        start = [hit.path.seed_memory] if hit.path.seed_memory else []
        return {"graph_worth": hit.score, "graph_path": [*start, *hit.path.steps]}


@dataclass
class Walk:
    """A walk about to happen: the query's entity keys, through the state of the branch `as_of`
    names (now by default)."""

    keys: list[str]
    config: GraphConfig = DEFAULT.graph
    query: str = ""
    as_of: AsOf = NOW
    # Every name the query could hold (entities.names.name_keys), for the first stage to look
    # up among the user's entities: the extractor reads a question less well than a statement
    # ("Old Faithful", "小蓝在苹果手机上").
    names: list[str] = field(default_factory=list)

    def written(self, named: dict[str, Any]) -> bool:
        """Whether the query holds a user's entity (`named`: {key, aliases}) as a name: an
        entity named by plain words (a person, a product) only where the query writes it as one
        of the user's memories wrote it ("Redis", "Maria"), not where those words are ordinary
        ones ("code", "given", "asynchronous operations" against memories' headings); any other
        key (an identifier, Chinese) wherever its words are."""
        if not _PLAIN_WORDS.fullmatch(str(named["key"])):
            return True
        return any(
            re.search(rf"(?<!\w){re.escape(alias)}(?!\w)", self.query)
            for alias in named.get("aliases") or []
        )

    def first_keys(self, named: list[dict[str, Any]], seeded: bool) -> list[str]:
        """The entity keys to walk from as soon as the first stage's full-text half has looked
        the query's names up (`named`: those that are the user's entities; `seeded`: whether one
        of the query's own entities is): the query's own entities when they have a seed, else
        the other names of the user's entities the query holds; none when neither (a walk from
        them would find nothing)."""
        if self.keys and seeded:
            return self.keys
        return self.others(named)

    def others(self, named: list[dict[str, Any]]) -> list[str]:
        """The names of the user's entities the query holds (as names, see written) besides its
        own entities."""
        return [
            str(row["key"]) for row in named if row["key"] not in self.keys and self.written(row)
        ]

    def walk_from(
        self, registry: Registry, scope: Scope, vector: PackedVector
    ) -> Callable[[dict[str, Any]], Awaitable[Reached | None]]:
        """The first walk, from the names a first stage's row says the user's entities hold
        (see first_keys), for the first stage to start as soon as it has them."""

        async def walk(found: dict[str, Any]) -> Reached | None:
            keys = self.first_keys(found["named"], found["seeded"])
            return await self.reach(registry, scope, vector, [], keys) if keys else None

        return walk

    async def reach(
        self,
        registry: Registry,
        scope: Scope,
        vector: PackedVector,
        seeds: list[str],
        keys: list[str] | None = None,
    ) -> Reached:
        """Walks in one round trip from entities (by default the query's, as the extractor
        reads it) and the seed memories'."""
        keys = self.keys if keys is None else keys
        rows = await registry.graph.read_within(
            "retrieval/expand",
            registry.settings.graph_time_limit_s,
            **walk_params(self.config, scope, keys, seeds, vector, self.as_of),
        )
        return Reached(seeds=seeds, keys=keys, found=rows[0] if rows else None)

    async def finish(
        self,
        registry: Registry,
        scope: Scope,
        vector: PackedVector,
        first: Reached | None,
        relevance: dict[str, float],
        keep: MemoryFilter,
        seedable: frozenset[str],
        named: list[dict[str, Any]],
    ) -> Expansion | None:
        """Scores what the walk reached: the `first` one (see first_keys), from the query's
        entities as the extractor reads them or else from the other user's entities the query
        names (`named`: the first stage looked up every name the query could hold), or, when
        there was none or the one from the query's entities led nowhere, a walk from those
        other names, else from the best candidates' entities, those of them that name an entity
        to go on from (`seedable`: a walk from hubs, or from entities no other memory names,
        finds nothing and costs a round trip). None when there is nothing at all (no candidate,
        no entity in the query). `relevance`: the first stage's candidates' fused relevance."""
        candidates = bool(relevance)
        from_others = first is not None and first.keys != self.keys
        # Without candidates only a walk from the query's own entities counts.
        reached = None if from_others and not candidates else first
        if candidates and (reached is None or reached.nowhere) and not from_others:
            others = self.others(named)
            best = sorted(relevance, key=lambda key: (-relevance[key], key))[
                : self.config.seed_memories
            ]
            seeds = [memory_id for memory_id in best if memory_id in seedable]
            if others:
                reached = await self.reach(registry, scope, vector, [], others)
            elif seeds:
                reached = await self.reach(registry, scope, vector, seeds)
        if reached is None:
            return Expansion(self.keys) if candidates else None
        return self._scored(reached, relevance, keep)

    def _scored(
        self, reached: Reached, relevance: dict[str, float], keep: MemoryFilter
    ) -> Expansion:
        found = reached.found
        if found is None:
            return Expansion(reached.keys, timed_out=True)
        best = max(relevance.values(), default=0.0)
        if best <= 0.0:
            return Expansion(reached.keys)
        memories = [row for row in found["memories"] if whole(row["memory"])]
        query_cosine = {
            row["memory"]["memory_id"]: ranking.cosine(row["similarity"]) for row in memories
        }
        paths = [
            graph_stage.GraphPath(
                seed=path["seed"],
                seed_memory=path["seed_memory"],
                steps=tuple(path["steps"]),
                memories=tuple(
                    step
                    for step in (path["seed_memory"], *path["steps"])
                    if step is not None and step in query_cosine
                ),
            )
            for path in found["paths"]
        ]
        rows = [
            {
                "memory": row["memory"],
                "vector_score": None,
                "text_score": None,
                "similarity": row["similarity"],
            }
            for row in memories
            if keep.admits(row["memory"])
        ]
        return Expansion(
            keys=reached.keys,
            rows=rows,
            paths=paths,
            query_cosine=query_cosine,
            strength={key: relevance[key] / best for key in reached.seeds},
            deniers=frozenset(row["memory"]["memory_id"] for row in memories if row["denies"]),
            denied=frozenset(found["denied"]),
        )


@dataclass(frozen=True)
class Reached:
    """The walk's round trip: the first-stage memories whose entities seeded it, and its one
    row (None when it ran out of time and was dropped)."""

    seeds: list[str]
    keys: list[str]
    found: dict[str, Any] | None

    @property
    def nowhere(self) -> bool:
        """The walk found no path (its seeds are unknown entities or hubs)."""
        return self.found is not None and not self.found["paths"]


def seed_params(keys: list[str]) -> dict[str, list[str]]:
    """Entity keys as the statements look seeds up: by key, or by the key without spaces."""
    return {"keys": keys, "compacts": [compact_key(key) for key in keys]}


def walk_params(
    config: GraphConfig,
    scope: Scope,
    keys: list[str],
    seeds: list[str],
    vector: PackedVector,
    as_of: AsOf = NOW,
) -> dict[str, Any]:
    """The parameters of retrieval/expand, for the state `as_of` names."""
    return {
        **scope.params(),
        "seq": as_of.seq,
        "at": as_of.at,
        **seed_params(keys),
        "seed_memories": seeds,
        "vector": vector,
        "hub_limit": config.hub_limit,
        "max_memories": config.max_hops + 1,
        "max_paths": config.max_paths,
    }


async def warm(registry: Registry, vector: PackedVector) -> None:
    """Runs a walk that finds nothing, so that the server plans the walk's query at startup:
    planning it takes longer than the walk's time limit, and the first retrieves would
    otherwise wait for it or answer without the graph."""
    await registry.graph.read(
        "retrieval/expand",
        **walk_params(DEFAULT.graph, Scope("", MAIN), [], [], vector),
    )


def start(query: str, config: GraphConfig = DEFAULT.graph, as_of: AsOf = NOW) -> Walk:
    """Picks the query's entities (and every name it could hold) for a walk through the state
    `as_of` names."""
    mentions = extract(query)
    keys = [m.key for m in mentions if not m.negated]
    denied = {m.key for m in mentions if m.negated}
    names = [key for key in name_keys(query) if key not in denied and key not in keys]
    return Walk(keys=keys, config=config, names=names, query=query, as_of=as_of)
