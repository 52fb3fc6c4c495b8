"""Snapshots: named watermarks on a user's change sequence; diff, rollback, garbage collection.

A snapshot costs one node whatever the number of memories: the state it names is every node of
its branch with created_seq <= seq < ended_seq. Diffs and rollbacks read only what changed.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from app.errors import Conflict, NotFound
from app.graph import Tx
from app.models.memories import META_PREFIX
from app.models.snapshots import (
    DeleteSnapshots,
    Detail,
    Diff,
    Modified,
    RolledBack,
    Snapshot,
    SnapshotDetail,
    SnapshotListQuery,
    SnapshotsDeleted,
)
from app.registry import Registry
from app.services.memory_view import active_count, to_snapshot_memory
from app.services.scope import Caller, scope_for
from app.services.versioning import versions
from app.services.versioning.versions import Why

MAX_USER_SNAPSHOTS = 20
GC_BATCH = 5_000
# What a diff compares, besides metadata: the memory as a user sees it (not seq bookkeeping or
# timestamps).
COMPARED = (
    "content",
    "memory_type",
    "session_id",
    "subject_id",
    "trust_tier",
    "initial_confidence",
    "is_active",
    "superseded_by",
    "observed_at",
)
CHANGES = ("added", "removed", "modified")


async def take_safety(
    tx: Tx, user_id: str, branch: str, seq: int, prefix: str, reason: str, keep: int
) -> str:
    """Snapshots the state before change `seq` as `<prefix>_<8 hex>`; returns its name."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    await tx.run(
        "snapshots/take_safety",
        user_id=user_id,
        branch=branch,
        name=name,
        seq=seq - 1,
        reason=reason,
        keep=keep,
    )
    return name


async def create(
    registry: Registry, caller: Caller, name: str, description: str, branch: str | None
) -> Snapshot:
    scope = await scope_for(registry, caller, branch)
    row = (
        await registry.graph.write(
            "snapshots/create",
            user_id=scope.user_id,
            branch=scope.branch,
            name=name,
            description=description,
            max_user=MAX_USER_SNAPSHOTS,
        )
    )[0]
    if row["outcome"] == "duplicate":
        raise Conflict(f"a snapshot named {name} exists already")
    if row["outcome"] == "limit":
        raise Conflict(f"at most {MAX_USER_SNAPSHOTS} snapshots per user: delete one first")
    return Snapshot(**row["snapshot"])


async def list_all(registry: Registry, caller: Caller) -> list[Snapshot]:
    rows = await registry.graph.read("snapshots/list", user_id=caller.user_id)
    return [Snapshot(**row["snapshot"]) for row in rows]


async def list_slice(
    registry: Registry, caller: Caller, query: SnapshotListQuery
) -> list[Snapshot]:
    """GET /v1/snapshots: newest first, `offset` skipped, at most `limit`."""
    listed = await list_all(registry, caller)
    end = None if query.limit is None else query.offset + query.limit
    return listed[query.offset : end]


async def get(registry: Registry, user_id: str, name: str) -> Snapshot:
    rows = await registry.graph.read("snapshots/get", user_id=user_id, name=name)
    if not rows:
        raise NotFound(f"snapshot {name} not found")
    return Snapshot(**rows[0]["snapshot"])


async def detail(
    registry: Registry, caller: Caller, name: str, level: Detail, limit: int, offset: int
) -> SnapshotDetail:
    snapshot = await get(registry, caller.user_id, name)
    scope = await scope_for(registry, caller, snapshot.branch)
    row = (
        await registry.graph.read(
            "snapshots/state",
            **scope.params(),
            seq=snapshot.seq,
            offset=offset,
            limit=limit,
        )
    )[0]
    return SnapshotDetail(
        **snapshot.model_dump(),
        memory_count=row["total"],
        by_type={item["memory_type"]: item["count"] for item in row["by_type"]},
        detail=level,
        limit=limit,
        offset=offset,
        memories=[to_snapshot_memory(props, level) for props in row["page"]],
    )


async def _delete(registry: Registry, user_id: str, names: list[str]) -> list[str]:
    """Deletes the user's snapshots of these names; returns the names deleted."""
    if not names:
        return []
    rows = await registry.graph.write("snapshots/delete", user_id=user_id, names=names)
    deleted: list[str] = rows[0]["deleted"] if rows else []
    return deleted


async def delete(registry: Registry, caller: Caller, name: str) -> Snapshot:
    snapshot = await get(registry, caller.user_id, name)
    if not await _delete(registry, caller.user_id, [name]):  # a concurrent delete took it first
        raise NotFound(f"snapshot {name} not found")
    return snapshot


async def delete_many(
    registry: Registry, caller: Caller, request: DeleteSnapshots
) -> SnapshotsDeleted:
    """POST /v1/snapshots/delete: the snapshots the request selects (user and safety ones)."""
    chosen = [s.name for s in await list_all(registry, caller) if request.selects(s)]
    deleted = await _delete(registry, caller.user_id, chosen)
    return SnapshotsDeleted(deleted=len(deleted), names=deleted)


async def diff(registry: Registry, caller: Caller, name: str, limit: int) -> Diff:
    """What changed on the snapshot's branch since the snapshot, up to `limit` per list (in
    memory_id order), compared by Neo4j: the memory as a user sees it, not bookkeeping."""
    snapshot = await get(registry, caller.user_id, name)
    rows = await registry.graph.read(
        "snapshots/changes_since",
        user_id=caller.user_id,
        branch=snapshot.branch,
        seq=snapshot.seq,
        compared=list(COMPARED),
        meta_prefix=META_PREFIX,
        limit=limit,
    )
    nothing: dict[str, Any] = {"total": 0, "shown": []}  # a kind of change not found has no row
    found = {change: nothing for change in CHANGES} | {row["change"]: row for row in rows}
    counts = {change: found[change]["total"] for change in CHANGES}
    scope = await scope_for(registry, caller, snapshot.branch)
    return Diff(
        snapshot=name,
        branch=snapshot.branch,
        added=[to_snapshot_memory(pair["new"]) for pair in found["added"]["shown"]],
        removed=[to_snapshot_memory(pair["old"]) for pair in found["removed"]["shown"]],
        modified=[
            Modified(
                memory_id=pair["old"]["memory_id"],
                before=to_snapshot_memory(pair["old"]),
                after=to_snapshot_memory(pair["new"]),
            )
            for pair in found["modified"]["shown"]
        ],
        counts=counts,
        truncated=max(counts.values()) > limit,
        current_count=await active_count(registry, scope),
    )


async def rollback(registry: Registry, caller: Caller, name: str) -> RolledBack:
    """Restores the snapshot's branch exactly, as one new change after a safety snapshot."""
    snapshot = await get(registry, caller.user_id, name)
    user_id, branch = caller.user_id, snapshot.branch
    safety_kept = registry.settings.safety_snapshots_kept

    async def work(tx: Tx) -> dict[str, Any]:
        seq = await versions.open_change(tx, user_id, branch, Why("rollback", name))
        safety = await take_safety(
            tx, user_id, branch, seq, "pre_rollback", f"before rollback to {name}", safety_kept
        )
        outcome = await versions.restore(tx, seq, user_id, branch, snapshot.seq)
        return {"safety_snapshot": safety, **outcome}

    outcome = await registry.graph.transaction(work)
    return RolledBack(snapshot=name, branch=branch, **outcome)


async def collect_garbage(registry: Registry) -> int:
    """Deletes past versions no snapshot can see any more, once older than the history
    retention (HISTORY_RETENTION_DAYS); returns how many."""
    retention = timedelta(days=registry.settings.history_retention_days)
    total = 0
    while True:
        deleted = await registry.graph.transaction(
            lambda tx: versions.collect_garbage(tx, GC_BATCH, retention)
        )
        total += deleted
        if deleted < GC_BATCH:
            return total
