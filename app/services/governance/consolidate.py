"""Consolidate: contradictions between memories about the same entities, and orphans (graph
nodes that point at nothing, and insights whose sources are all gone).

Candidate pairs come from the graph (two active memories that mention a common entity and are
close in meaning, not yet linked); `contradictions` reads whether they disagree. A pair that does
becomes `(newer)-[:CONTRADICTS {severity, reason, detected_at, kept}]->(older)`, and the one
not kept gets a new version with its confidence lowered, so retrieval ranks the kept one first
and a rollback undoes both. The newer memory is kept, unless it is two or more tiers less trusted
than the older one: a T4 note (or an LLM's T3 reading) that claims to override a T1 fact does not
displace it, while a T2 correction of a T1 fact does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from app.graph import Row, Tx
from app.models.governance import ConsolidateReport, Orphans, Skipped
from app.registry import Registry
from app.services.governance import contradictions, cooldowns
from app.services.governance.cooldowns import Trigger
from app.services.memories import deletion
from app.services.memory_view import still_active
from app.services.scope import Caller, Scope, scope_for
from app.services.versioning import versions
from app.services.versioning.versions import Link, Why

MIN_SIMILARITY = 0.5
HUB_LIMIT = 500
MAX_PAIRS = 2000
CONFIDENCE_FACTOR = 0.3  # what a contradicted memory keeps of its confidence
TRUST_GAP = 2  # tiers by which a newer memory must be less trusted to lose to an older one
SOURCES_GONE = "every memory the insight was drawn from is gone"
PAIRS_CAPPED = "compared the {} most similar pairs only: less similar ones were not compared"


@dataclass(frozen=True)
class Contradiction:
    newer: str
    older: str
    kept: str
    lowered: str | None  # None: already lowered by another contradiction of this run
    lowered_confidence: float
    confidence_before: float  # what the lowered memory had before any contradiction
    found: contradictions.Disagreement

    @property
    def pair(self) -> tuple[str, str]:
        return (self.newer, self.older)


def _age_key(memory: Row) -> tuple[datetime, datetime, str]:
    return (memory["observed_at"], memory["created_at"], memory["memory_id"])


def _tier_number(memory: Row) -> int:
    return int(memory["trust_tier"].removeprefix("T"))


def judge(a: Row, b: Row, found: contradictions.Disagreement) -> Contradiction:
    """Which of two disagreeing memories is kept (pure; see the module docstring)."""
    newer, older = (a, b) if _age_key(a) > _age_key(b) else (b, a)
    gap = _tier_number(newer) - _tier_number(older)
    kept, lowered = (older, newer) if gap >= TRUST_GAP else (newer, older)
    # A memory contradicted before keeps a share of what it had before any contradiction: a
    # second one (its first winner corrected since) lowers it no further than the first did.
    before = lowered.get("confidence_before_contradiction") or lowered["initial_confidence"]
    return Contradiction(
        newer=newer["memory_id"],
        older=older["memory_id"],
        kept=kept["memory_id"],
        lowered=lowered["memory_id"],
        lowered_confidence=before * CONFIDENCE_FACTOR,
        confidence_before=before,
        found=found,
    )


def find(pairs: list[Row]) -> list[Contradiction]:
    """The contradictions among candidate pairs; each memory is lowered once per run at most."""
    parsed: dict[str, list[contradictions.Clause]] = {}
    for pair in pairs:
        for side in (pair["a"], pair["b"]):
            if side["memory_id"] not in parsed:
                parsed[side["memory_id"]] = contradictions.parse(side["content"])
    found: list[Contradiction] = []
    lowered: set[str] = set()
    for pair in pairs:
        a, b = pair["a"], pair["b"]
        disagreement = contradictions.disagreement(parsed[a["memory_id"]], parsed[b["memory_id"]])
        if disagreement is None:
            continue
        verdict = judge(a, b, disagreement)
        if verdict.lowered is None or verdict.lowered in lowered:
            verdict = replace(verdict, lowered=None)
        else:
            lowered.add(verdict.lowered)
        found.append(verdict)
    return found


def _links(found: list[Contradiction], now: datetime) -> list[Link]:
    return [
        Link(
            memory_id=item.newer,
            type="CONTRADICTS",
            target_memory_id=item.older,
            props={
                "severity": item.found.severity,
                "reason": item.found.reason,
                "detected_at": now,
                "kept": item.kept,
            },
        )
        for item in found
    ]


async def _record(registry: Registry, scope: Scope, found: list[Contradiction]) -> int:
    """Links the contradictions and lowers the confidence of the memories not kept, in one
    change; returns how many memories were lowered."""
    now = datetime.now(UTC)

    async def work(tx: Tx) -> int:
        seq = await versions.open_change(
            tx, scope.user_id, scope.branch, Why("consolidate", "contradictions")
        )
        # Pairs read before the change: one deleted or corrected since is no contradiction now.
        active = await still_active(tx, scope, [i for item in found for i in item.pair])
        standing = [item for item in found if set(item.pair) <= active]
        changes: list[tuple[str, dict[str, Any]]] = [
            (
                item.lowered,
                {
                    "initial_confidence": item.lowered_confidence,
                    "confidence_before_contradiction": item.confidence_before,
                    "contradicted_by": item.kept,
                    "contradicted_at": now,
                },
            )
            for item in standing
            if item.lowered
        ]
        await versions.revise(tx, seq, scope.user_id, scope.branch, changes)
        await versions.link(tx, seq, scope.user_id, scope.branch, _links(standing, now))
        return len(changes)

    return await registry.graph.transaction(work)


async def _repair(registry: Registry, scope: Scope) -> tuple[int, int, int]:
    """In one change: removes CONTRADICTS links whose other end is no longer active, gives
    memories lowered in favour of a memory that is gone their confidence back, and retires the
    insights whose sources are all gone (as Memoria retires such "scenes"). Returns (links
    removed, memories restored, insights retired)."""
    rows = await registry.graph.read(
        "governance/dangling_links", user_id=scope.user_id, branch=scope.branch
    )
    links = [
        Link(
            memory_id=row["memory_id"], type="CONTRADICTS", target_memory_id=row["target_memory_id"]
        )
        for row in rows
    ]
    lowered = await registry.graph.read("governance/lowered_without_winner", **scope.params())
    restored: list[tuple[str, dict[str, Any]]] = [
        (
            row["memory_id"],
            {
                "initial_confidence": row["confidence"],
                "contradicted_by": None,
                "contradicted_at": None,
                "confidence_before_contradiction": None,
            },
        )
        for row in lowered
    ]
    orphaned = await registry.graph.read("governance/orphaned_insights", **scope.params())
    retired = [(row["memory_id"], deletion(SOURCES_GONE)) for row in orphaned]
    if not links and not restored and not retired:
        return 0, 0, 0

    async def work(tx: Tx) -> int:
        seq = await versions.open_change(
            tx, scope.user_id, scope.branch, Why("consolidate", "repair")
        )
        await versions.revise(tx, seq, scope.user_id, scope.branch, restored + retired)
        return await versions.unlink(tx, seq, scope.user_id, scope.branch, links)

    return await registry.graph.transaction(work), len(restored), len(retired)


async def clean_orphans(registry: Registry, user_id: str) -> Orphans:
    """Removes what points at nothing in the user's graph (governance does it too, as Memoria's
    does): entities and sessions no memory node has, relations read from memories that are gone."""
    [row] = await registry.graph.write("governance/orphans", user_id=user_id)
    return Orphans(entities=row["entities"], sessions=row["sessions"], relations=row["relations"])


async def _consolidate(registry: Registry, caller: Caller) -> ConsolidateReport:
    scope = await scope_for(registry, caller, None)
    pairs = await registry.graph.read(
        "governance/contradiction_pairs",
        **scope.params(),
        min_similarity=MIN_SIMILARITY,
        hub_limit=HUB_LIMIT,
        max_pairs=MAX_PAIRS,
    )
    # Segmenting and extracting from many texts is blocking work.
    found = await asyncio.to_thread(find, pairs)
    lowered = await _record(registry, scope, found) if found else 0
    dangling, restored, retired = await _repair(registry, scope)
    orphans = await clean_orphans(registry, scope.user_id)
    return ConsolidateReport(
        pairs_compared=len(pairs),
        contradictions=len(found),
        confidence_lowered=lowered,
        confidence_restored=restored,
        insights_retired=retired,
        orphan_entities=orphans.entities,
        orphan_sessions=orphans.sessions,
        dangling_links=dangling + orphans.relations,
        warnings=[PAIRS_CAPPED.format(MAX_PAIRS)] if len(pairs) >= MAX_PAIRS else [],
    )


async def consolidate(
    registry: Registry, caller: Caller, *, force: bool = False, trigger: Trigger = "api"
) -> ConsolidateReport | Skipped:
    """POST /v1/consolidate on the caller's checked-out branch, once per cooldown unless
    forced."""
    return await cooldowns.guarded(
        registry,
        caller.user_id,
        "consolidate",
        force=force,
        trigger=trigger,
        run=lambda: _consolidate(registry, caller),
    )
