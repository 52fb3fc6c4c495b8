"""What each console page shows, gathered from the use cases the API calls (a page that shows
several reads them at once): the one place the console composes use cases."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from app.console.forms import MemoryFilters
from app.models.admin import UserStats
from app.models.branches import BranchList
from app.models.entities import EntityPage, EntityQuery
from app.models.feedback import FeedbackByTier, FeedbackGiven, FeedbackStats, RetrievalParams
from app.models.history import History
from app.models.keys import ApiKey
from app.models.memories import Memory, MemoryPage
from app.models.neighbourhood import Mention, Neighbourhood
from app.models.oversight import Contradiction, GovernanceActivity, QuarantinePage
from app.models.snapshots import Diff, Snapshot
from app.registry import Registry
from app.services import admin, feedback, memories
from app.services.entities import linking, neighbourhood
from app.services.governance import oversight, quarantine
from app.services.retrieval import pipeline
from app.services.scope import Caller
from app.services.versioning import branches, history, snapshots

FEEDBACK_SHOWN = 50
CONTRADICTIONS_SHOWN = 50
QUARANTINE_PAGE = 50
DIFF_SHOWN = 200


@dataclass(frozen=True)
class MemoriesPage:
    filters: MemoryFilters
    branches: BranchList
    snapshots: list[Snapshot]  # what the "as of" picker offers
    listing: MemoryPage | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    explain: dict[str, Any] = field(default_factory=dict)
    ranking: dict[str, dict[str, Any]] = field(default_factory=dict)


async def memories_page(registry: Registry, caller: Caller, filters: MemoryFilters) -> MemoriesPage:
    """A page of the memories the filters keep, or with a search, its explained results (as
    the memory stood at the moment the filters name, if any)."""
    if filters.q:
        found, branch_list, snapshot_list = await asyncio.gather(
            pipeline.hybrid(registry, caller, filters.search(), mode="retrieve"),
            branches.list_all(registry, caller, counted=False),
            snapshots.list_all(registry, caller),
        )
        assert isinstance(found, dict), "an explained retrieve answers results and explain"
        explain = dict(found["explain"])
        ranking = explain.pop("ranking", None)
        by_id = {
            entry["memory_id"]: {key: value for key, value in entry.items() if key != "memory_id"}
            for entry in (ranking if isinstance(ranking, list) else [])
            if isinstance(entry, dict) and "memory_id" in entry
        }
        return MemoriesPage(
            filters,
            branch_list,
            snapshot_list,
            results=found["results"],
            explain=explain,
            ranking=by_id,
        )
    listing, branch_list, snapshot_list = await asyncio.gather(
        memories.query(registry, caller, filters.listing()),
        branches.list_all(registry, caller, counted=False),
        snapshots.list_all(registry, caller),
    )
    return MemoriesPage(filters, branch_list, snapshot_list, listing=listing)


@dataclass(frozen=True)
class MemoryDetail:
    memory: Memory
    history: History
    entities: list[Mention]
    feedback: list[FeedbackGiven]


async def memory_page(
    registry: Registry, caller: Caller, memory_id: str, branch: str | None
) -> MemoryDetail:
    """One memory (NotFound for an unknown or another user's), its history, entities and
    feedback."""
    memory = await memories.get(registry, caller, memory_id, branch)
    found_history, entities, given = await asyncio.gather(
        history.history(registry, caller, memory_id, branch),
        neighbourhood.mentioned_by(registry, caller, memory_id, branch),
        feedback.given(registry, caller, memory_id, branch, FEEDBACK_SHOWN),
    )
    return MemoryDetail(memory, found_history, entities, given)


@dataclass(frozen=True)
class VersioningPage:
    snapshots: list[Snapshot]
    branches: BranchList


async def versioning_page(registry: Registry, caller: Caller) -> VersioningPage:
    found, branch_list = await asyncio.gather(
        snapshots.list_all(registry, caller),
        branches.list_all(registry, caller, counted=False),
    )
    return VersioningPage(found, branch_list)


@dataclass(frozen=True)
class GovernancePage:
    quarantined: QuarantinePage
    contradictions: list[Contradiction]
    activity: GovernanceActivity
    feedback: FeedbackStats
    by_tier: FeedbackByTier
    params: RetrievalParams


async def governance_page(registry: Registry, caller: Caller, cursor: str | None) -> GovernancePage:
    """The checked-out branch's quarantine and contradictions, the user's governance runs,
    feedback and retrieval parameters."""
    found = await asyncio.gather(
        quarantine.quarantined(registry, caller, None, cursor, QUARANTINE_PAGE),
        oversight.contradictions(registry, caller, None, CONTRADICTIONS_SHOWN),
        oversight.activity(registry, caller),
        feedback.stats(registry, caller),
        feedback.by_tier(registry, caller),
        feedback.params(registry, caller),
    )
    return GovernancePage(*found)


@dataclass(frozen=True)
class UserPage:
    stats: UserStats
    keys: list[ApiKey]


async def user_page(registry: Registry, user_id: str) -> UserPage:
    """A user's counts and keys, for an operator (NotFound for a user never seen)."""
    stats, keys = await asyncio.gather(
        admin.user_stats(registry, user_id), admin.user_keys(registry, user_id)
    )
    return UserPage(stats, keys)


@dataclass(frozen=True)
class GraphPage:
    entities: EntityPage
    shown: Neighbourhood | None


async def graph_page(
    registry: Registry, caller: Caller, key: str | None, entities: EntityQuery
) -> GraphPage:
    """A page of the user's entities and, when one is chosen, its neighbourhood."""
    if key is None:
        return GraphPage(await linking.list_page(registry, caller, entities), None)
    found, shown = await asyncio.gather(
        linking.list_page(registry, caller, entities),
        neighbourhood.neighbourhood(registry, caller, key, entities.branch),
    )
    return GraphPage(found, shown)


@dataclass(frozen=True)
class SnapshotPage:
    snapshot: Snapshot
    diff: Diff


async def snapshot_page(registry: Registry, caller: Caller, name: str) -> SnapshotPage:
    """A snapshot and what changed on its branch since (NotFound for another user's)."""
    found, changes = await asyncio.gather(
        snapshots.get(registry, caller.user_id, name),
        snapshots.diff(registry, caller, name, DIFF_SHOWN),
    )
    return SnapshotPage(found, changes)
