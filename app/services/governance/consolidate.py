"""Consolidate: contradictions between memories about the same entities, and orphans (graph
nodes that point at nothing, and insights whose sources are all gone).

Each run compares what changed since the last one: the memory nodes of the branch created after
the seq its last consolidate covered (new memories, corrections, restored and revised ones; the
first run of a branch, all of them), a page at a time (see `paging`), each with its most similar
partners from the graph (active memories that mention a common entity and are close in meaning,
not yet linked). A pair of older memories was compared when the newer of them was new.
`contradictions` reads whether a pair disagrees. A pair that does becomes
`(newer)-[:CONTRADICTS {severity, reason, detected_at, kept}]->(older)`, and the one not kept
gets a new version with its confidence lowered, so retrieval ranks the kept one first and a
rollback undoes both; each page's findings are one change. The newer memory is kept, unless it
is two or more tiers less trusted than the older one: a T4 note (or an LLM's T3 reading) that
claims to override a T1 fact does not displace it, while a T2 correction of a T1 fact does.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from app.graph import Row, Tx
from app.models.governance import ConsolidateReport, Orphans, Skipped
from app.registry import Registry
from app.services.governance import contradictions, cooldowns, paging
from app.services.governance.cooldowns import Trigger
from app.services.memories import deletion
from app.services.memory_view import still_active
from app.services.scope import Caller, Scope, scope_for
from app.services.versioning import versions
from app.services.versioning.versions import Link, Why

MIN_SIMILARITY = 0.5
HUB_LIMIT = 500
PARTNERS = 10  # the most similar partners each new memory is compared with
# Texts whose claims a run keeps (the least recently used forgotten first): a page's memories
# and their partners, and the pages before it; about 4 KiB a text on BEAM's messages, 20 MiB.
PARSED_TEXTS = 5_000
CONFIDENCE_FACTOR = 0.3  # what a contradicted memory keeps of its confidence
TRUST_GAP = 2  # tiers by which a newer memory must be less trusted to lose to an older one
SOURCES_GONE = "every memory the insight was drawn from is gone"


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


def find(
    page: list[Row],
    lowered_before: set[str],
    claims: Callable[[str], contradictions.Claims] = contradictions.parse,
) -> tuple[int, list[Contradiction]]:
    """The contradictions between a page's memories and their partners (each pair once), and
    how many pairs were compared; a memory is lowered once per run at most (`lowered_before`:
    by earlier pages). `claims` reads a text (a run passes one that remembers what it read)."""
    compared: set[tuple[str, str]] = set()
    found: list[Contradiction] = []
    lowered = set(lowered_before)
    for row in page:
        a = row["memory"]
        for partner in row["partners"] if a is not None else []:
            b = partner["memory"]
            pair = (min(a["memory_id"], b["memory_id"]), max(a["memory_id"], b["memory_id"]))
            if pair in compared:
                continue
            compared.add(pair)
            disagreement = contradictions.disagreement(claims(a["content"]), claims(b["content"]))
            if disagreement is None:
                continue
            verdict = judge(a, b, disagreement)
            if verdict.lowered is None or verdict.lowered in lowered:
                verdict = replace(verdict, lowered=None)
            else:
                lowered.add(verdict.lowered)
            found.append(verdict)
    return len(compared), found


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
    """Removes CONTRADICTS links whose other end is no longer active, gives memories lowered in
    favour of a memory that is gone their confidence back, and retires the insights whose
    sources are all gone (as Memoria retires such "scenes"), a page of each a change. Returns
    (links removed, memories restored, insights retired)."""
    size = paging.batch(registry)
    removed = restored = retired = 0
    while True:
        page = await _repair_page(registry, scope, size)
        removed, restored, retired = removed + page[0], restored + page[1], retired + page[2]
        if max(page) < size:
            return removed, restored, retired
        await paging.pause(registry)


async def _repair_page(registry: Registry, scope: Scope, size: int) -> tuple[int, int, int]:
    rows = await registry.graph.read(
        "governance/dangling_links", user_id=scope.user_id, branch=scope.branch, limit=size
    )
    links = [
        Link(
            memory_id=row["memory_id"], type="CONTRADICTS", target_memory_id=row["target_memory_id"]
        )
        for row in rows
    ]
    lowered = await registry.graph.read(
        "governance/lowered_without_winner", **scope.params(), limit=size
    )
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
    orphaned = await registry.graph.read(
        "governance/orphaned_insights", **scope.params(), limit=size
    )
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
    does): entities and sessions no memory node has, relations read from memories that are gone;
    a page of each kind a statement."""
    size = paging.batch(registry)
    total = Orphans(entities=0, sessions=0, relations=0)
    while True:
        [row] = await registry.graph.write("governance/orphans", user_id=user_id, limit=size)
        total = Orphans(
            entities=total.entities + row["entities"],
            sessions=total.sessions + row["sessions"],
            relations=total.relations + row["relations"],
        )
        if max(row["entities"], row["sessions"], row["relations"]) < size:
            return total
        await paging.pause(registry)


@dataclass
class _Compared:
    pairs: int = 0
    contradictions: int = 0
    lowered: int = 0


async def _compare_new(registry: Registry, scope: Scope) -> _Compared:
    """Compares the memory nodes created since the branch's last consolidate with their
    partners, page by page, and records what disagrees; then notes how far it got."""
    [span] = await registry.graph.read(
        "governance/consolidate_span", user_id=scope.user_id, branch=scope.branch
    )
    since, through = int(span["since"]), int(span["through"])
    # A branch's first run also compares main's nodes it reads; later runs its own new ones.
    walked = paging.sources(scope) if since == 0 else [scope.branch]
    done = _Compared()
    lowered: set[str] = set()
    # A memory is the partner of many others, on many pages: each text is read once a run.
    claims = functools.lru_cache(maxsize=PARSED_TEXTS)(contradictions.parse)
    size = paging.batch(registry)
    for source in walked:
        cursor = paging.Cursor.created_after(since)
        while True:
            page = await registry.graph.read(
                "governance/contradiction_pairs",
                **scope.params(),
                source=source,
                through=through,
                **cursor.params(),
                batch=size,
                min_similarity=MIN_SIMILARITY,
                hub_limit=HUB_LIMIT,
                partners=PARTNERS,
            )
            if not page:
                break
            # Segmenting and extracting from many texts is blocking work.
            pairs, found = await asyncio.to_thread(find, page, lowered, claims)
            done.pairs += pairs
            if found:
                done.contradictions += len(found)
                done.lowered += await _record(registry, scope, found)
                lowered.update(item.lowered for item in found if item.lowered)
            if len(page) < size:
                break
            cursor = paging.Cursor.past(page[-1])
            await paging.pause(registry)
    await registry.graph.write(
        "governance/mark_consolidated", user_id=scope.user_id, branch=scope.branch, seq=through
    )
    return done


async def _consolidate(registry: Registry, caller: Caller) -> ConsolidateReport:
    scope = await scope_for(registry, caller, None)
    compared = await _compare_new(registry, scope)
    dangling, restored, retired = await _repair(registry, scope)
    orphans = await clean_orphans(registry, scope.user_id)
    return ConsolidateReport(
        pairs_compared=compared.pairs,
        contradictions=compared.contradictions,
        confidence_lowered=compared.lowered,
        confidence_restored=restored,
        insights_retired=retired,
        orphan_entities=orphans.entities,
        orphan_sessions=orphans.sessions,
        dangling_links=dangling + orphans.relations,
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
