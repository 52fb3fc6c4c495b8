"""The profile view: a user's profile memories joined as text, with memory counts by type."""

from __future__ import annotations

from app.models.memories import Profile, ProfileQuery
from app.registry import Registry
from app.services.memory_view import to_memory
from app.services.scope import Caller, scope_for


async def profile(registry: Registry, caller: Caller, query: ProfileQuery) -> Profile:
    """The branch's (by default the checked-out one's) active profile memories and its active
    memories by type, of one subject if the query names one."""
    scope = await scope_for(registry, caller, query.branch)
    [row] = await registry.graph.read(
        "memories/profile", **scope.params(), subject_id=query.subject_id
    )
    memories = [to_memory(props) for props in row["profile"]]
    stats = {item["memory_type"]: item["count"] for item in row["counts"]}
    return Profile(
        user_id=scope.user_id,
        profile="\n".join(memory.content for memory in memories),
        memories=memories,
        stats=stats,
        total=sum(stats.values()),
    )
