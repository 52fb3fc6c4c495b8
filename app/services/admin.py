"""Operator views and actions over every user: stats, user pages, deactivation."""

from __future__ import annotations

from app.errors import NotFound
from app.models.admin import MemoryCount, SystemStats, User, UserPage, UserStats, UserSummary
from app.models.keys import ApiKey
from app.pagination import Paging
from app.registry import Registry
from app.services import keys
from app.services.scope import Caller


async def system_stats(registry: Registry) -> SystemStats:
    return SystemStats(**(await registry.graph.read("admin/stats"))[0])


async def users(registry: Registry, cursor: str | None, limit: int) -> UserPage:
    paging = Paging.of(cursor, limit)
    rows = await registry.graph.read("admin/users", after=paging.after, limit=paging.fetch)
    fetched = [UserSummary(**row["user"]) for row in rows]
    page, next_cursor = paging.page(fetched, lambda user: user.user_id)
    return UserPage(items=page, next_cursor=next_cursor)


async def user_stats(registry: Registry, user_id: str) -> UserStats:
    rows = await registry.graph.read("admin/user_stats", user_id=user_id)
    if not rows:
        raise NotFound("user not found")
    row = rows[0]
    memories = [MemoryCount(**item) for item in row["memories"]]
    by_type: dict[str, int] = {}
    for item in memories:
        if item.branch == row["user"]["active_branch"]:
            by_type[item.memory_type] = by_type.get(item.memory_type, 0) + item.count
    return UserStats(
        user=User(**row["user"]),
        keys=row["keys"],
        live_keys=row["live_keys"],
        active_memories=sum(by_type.values()),
        memories_by_type=by_type,
        memories=memories,
        sessions=row["sessions"],
        snapshots=row["snapshots"],
        branches=row["branches"],
        feedback=row["feedback"],
    )


async def user_keys(registry: Registry, user_id: str) -> list[ApiKey]:
    await caller_of(registry, user_id)
    return await keys.list_for(registry, user_id)


async def deactivate(registry: Registry, user_id: str) -> User:
    rows = await registry.graph.write("admin/deactivate_user", user_id=user_id)
    if not rows:
        raise NotFound("user not found")
    return User(**rows[0]["user"])


async def caller_of(registry: Registry, user_id: str) -> Caller:
    """An existing user as the caller of a use case run on their behalf (on their checked-out
    branch); NotFound for a user never seen."""
    rows = await registry.graph.read("users/state", user_id=user_id)
    if not rows:
        raise NotFound("user not found")
    return Caller(user_id=user_id, active_branch=rows[0]["active_branch"])
