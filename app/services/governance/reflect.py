"""Reflect: clusters of related memories from two or more sessions, and the insights an LLM
draws from them (T4 memories linked DERIVED_FROM their sources); the clusters alone, without an
LLM, for the calling agent to reflect on itself."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence

from app.errors import Conflict, no_llm
from app.graph import Row
from app.llm import LlmClient
from app.models.governance import (
    Cluster,
    ClusterMember,
    ReflectCandidates,
    Reflected,
    ReflectRequest,
    Skipped,
)
from app.models.memories import Memory, NewMemory
from app.prompts import reflect as prompt
from app.registry import Registry
from app.services import memories
from app.services.governance import cooldowns
from app.services.governance.cooldowns import Trigger
from app.services.scope import Caller, Scope, scope_for
from app.services.versioning.versions import Why

MIN_SIMILARITY = 0.45
HUB_LIMIT = 200
MAX_PAIRS = 2000
MAX_CLUSTER = 12
COVERED_SHARE = 2 / 3  # an insight derived from this share of a cluster already covers it
INSIGHT_TIER = "T4"
INSIGHT_KIND = {"kind": "insight"}


class _Groups:
    """Union-find over memory ids, with groups capped at MAX_CLUSTER members."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.size: dict[str, int] = {}

    def root(self, item: str) -> str:
        self.parent.setdefault(item, item)
        self.size.setdefault(item, 1)
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def join(self, first: str, second: str) -> None:
        a, b = self.root(first), self.root(second)
        if a != b and self.size[a] + self.size[b] <= MAX_CLUSTER:
            self.parent[b] = a
            self.size[a] += self.size[b]


def _covered(members: Sequence[Row]) -> bool:
    derived = Counter(insight for member in members for insight in member["insights"])
    needed = math.ceil(COVERED_SHARE * len(members))
    return any(count >= needed for count in derived.values())


def clusters(pairs: Sequence[Row], limit: int) -> list[Cluster]:
    """Related memories joined strongest pair first (pure): groups of two or more memories
    from two or more sessions that no active insight covers yet, largest first."""
    groups = _Groups()
    members: dict[str, Row] = {}
    for pair in sorted(pairs, key=lambda row: -row["similarity"]):
        members[pair["a"]["memory_id"]] = pair["a"]
        members[pair["b"]["memory_id"]] = pair["b"]
        groups.join(pair["a"]["memory_id"], pair["b"]["memory_id"])
    by_root: dict[str, list[Row]] = {}
    for memory_id in sorted(members):
        by_root.setdefault(groups.root(memory_id), []).append(members[memory_id])
    shared: dict[str, Counter[str]] = {}
    for pair in pairs:
        root = groups.root(pair["a"]["memory_id"])
        if root == groups.root(pair["b"]["memory_id"]):
            shared.setdefault(root, Counter()).update(pair["shared"])
    found = []
    for root, group in by_root.items():
        sessions = sorted({m["session_id"] for m in group if m["session_id"] is not None})
        if len(group) < 2 or len(sessions) < 2 or _covered(group):
            continue
        found.append(
            Cluster(
                memory_ids=[m["memory_id"] for m in group],
                sessions=sessions,
                shared_entities=[name for name, _ in shared[root].most_common(10)],
                members=[
                    ClusterMember(
                        memory_id=m["memory_id"],
                        content=m["content"],
                        session_id=m["session_id"],
                        memory_type=m["memory_type"],
                    )
                    for m in group
                ],
            )
        )
    found.sort(key=lambda cluster: (-len(cluster.memory_ids), cluster.memory_ids[0]))
    return found[:limit]


async def _clusters(registry: Registry, scope: Scope, limit: int) -> list[Cluster]:
    pairs = await registry.graph.read(
        "governance/related_pairs",
        **scope.params(),
        min_similarity=MIN_SIMILARITY,
        hub_limit=HUB_LIMIT,
        max_pairs=MAX_PAIRS,
    )
    return clusters(pairs, limit)


async def candidates(registry: Registry, caller: Caller, limit: int) -> ReflectCandidates:
    """POST /v1/reflect/candidates: the clusters reflect would give an LLM, without one."""
    scope = await scope_for(registry, caller, None)
    return ReflectCandidates(items=await _clusters(registry, scope, limit))


async def _insights(llm: LlmClient, found: list[Cluster]) -> tuple[dict[int, str], int]:
    """What the LLM draws from each cluster, by cluster number, and how many insights of its
    answer were left out; Unavailable when it drew some and none was usable."""
    read = await llm.answer(
        "reflect",
        prompt.SYSTEM,
        json.dumps(
            [
                {
                    "cluster": number,
                    "memories": [member.model_dump() for member in cluster.members],
                }
                for number, cluster in enumerate(found)
            ],
            ensure_ascii=False,
        ),
        prompt.Insights,
    )
    drawn: dict[int, str] = {}
    for insight in read.answer.insights:
        if 0 <= insight.cluster < len(found):  # only the clusters it was given, once each
            drawn.setdefault(insight.cluster, insight.content)
    return drawn, read.all_dropped(len(drawn), len(read.answer.insights) - len(drawn))


async def _reflect(registry: Registry, llm: LlmClient, caller: Caller, limit: int) -> Reflected:
    scope = await scope_for(registry, caller, None)
    found = await _clusters(registry, scope, limit)
    stored: list[Memory] = []
    if not found:
        return Reflected(clusters=0, insights=stored)
    drawn, dropped = await _insights(llm, found)
    for number, content in drawn.items():
        insight = NewMemory(content=content, extra_metadata=INSIGHT_KIND)
        try:
            memory, created = await memories.store_derived(
                registry, scope, insight, found[number].memory_ids, INSIGHT_TIER, Why("reflect")
            )
        except Conflict:  # its memories went while the LLM read them: no insight from them
            continue
        if created:
            stored.append(memory)
    return Reflected(clusters=len(found), insights=stored, dropped=dropped)


async def reflect(
    registry: Registry, caller: Caller, request: ReflectRequest, trigger: Trigger = "api"
) -> Reflected | ReflectCandidates | Skipped:
    """POST /v1/reflect: insights with an LLM (once per cooldown unless forced); in candidates
    mode what the candidates route answers."""
    if request.mode == "candidates":
        return await candidates(registry, caller, request.limit)
    llm = registry.llm
    if llm is None:
        raise no_llm("reflect", "/v1/reflect/candidates")
    return await cooldowns.guarded(
        registry,
        caller.user_id,
        "reflect",
        force=request.force,
        trigger=trigger,
        run=lambda: _reflect(registry, llm, caller, request.limit),
    )
