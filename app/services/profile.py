"""The profile view: a user's profile memories joined as text, with memory counts by type."""

from __future__ import annotations

from app.models.memories import Profile
from app.registry import Registry
from app.services.memory_view import to_memory
from app.services.scope import Caller, scope_for


async def profile(registry: Registry, caller: Caller) -> Profile:
    """The checked-out branch's active profile memories and its active memories by type."""
    scope = await scope_for(registry, caller, None)
    [row] = await registry.graph.read("memories/profile", **scope.params())
    memories = [to_memory(props) for props in row["profile"]]
    stats = {item["memory_type"]: item["count"] for item in row["counts"]}
    return Profile(
        user_id=scope.user_id,
        profile="\n".join(memory.content for memory in memories),
        memories=memories,
        stats=stats,
        total=sum(stats.values()),
    )
