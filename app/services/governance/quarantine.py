"""Quarantined memories: the page of them governance left on a branch, and restoring one.

Governance quarantines a memory whose decayed confidence fell under its threshold (see sweep):
the memory goes inactive, flagged with the reason. Restoring it is a person vouching for it:
the memory becomes active again as observed now, so its confidence starts over from its initial
confidence and the next governance run does not quarantine it again at once. The change is a
version like any other: the memory's history shows it, and a rollback undoes it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from app.errors import Conflict, NotFound
from app.graph import Tx
from app.models.memories import Memory
from app.models.oversight import Quarantined, QuarantinePage, Restore
from app.pagination import Paging
from app.registry import Registry
from app.services.memory_view import to_memory
from app.services.scope import Caller, scope_for
from app.services.versioning import versions
from app.services.versioning.versions import Why


async def quarantined(
    registry: Registry, caller: Caller, branch: str | None, cursor: str | None, limit: int
) -> QuarantinePage:
    """A page of the branch's quarantined memories, newest first."""
    scope = await scope_for(registry, caller, branch)
    paging = Paging.of(cursor, limit)
    rows = await registry.graph.read(
        "governance/quarantined", **scope.params(), before=paging.after, limit=paging.fetch
    )
    fetched = [
        Quarantined(
            memory=to_memory(row["memory"]),
            quarantined_at=row["quarantined_at"],
            reason=row["reason"],
        )
        for row in rows
    ]
    items, next_cursor = paging.page(fetched, lambda item: item.memory.memory_id)
    return QuarantinePage(items=items, next_cursor=next_cursor)


async def restore(registry: Registry, caller: Caller, memory_id: str, request: Restore) -> Memory:
    """Makes a quarantined memory active again, as observed now (see the module docstring);
    NotFound for an unknown or another user's memory, Conflict for one not quarantined."""
    scope = await scope_for(registry, caller, request.branch)
    now = datetime.now(UTC)

    async def work(tx: Tx) -> Memory:
        seq = await versions.open_change(
            tx, scope.user_id, scope.branch, Why("restore", request.reason)
        )
        rows = await tx.run("memories/get", **scope.params(), memory_id=memory_id)
        if not rows:
            raise NotFound("memory not found")
        found = rows[0]["memory"]
        if not found.get("quarantined") or found["is_active"]:
            raise Conflict("the memory is not quarantined")
        [restored] = await versions.revise(
            tx,
            seq,
            scope.user_id,
            scope.branch,
            [
                (
                    memory_id,
                    {
                        "is_active": True,
                        "quarantined": None,
                        "quarantined_at": None,
                        "quarantine_reason": None,
                        "observed_at": now,
                        "restored_at": now,
                    },
                )
            ],
        )
        return to_memory({**restored, "branch": scope.branch})

    return await registry.graph.transaction(work)
