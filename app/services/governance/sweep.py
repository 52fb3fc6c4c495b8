"""Governance sweep: quarantine memories whose confidence has decayed too far, expire stale working
memories and tool results, make long-deleted memories collectable, remove what points at
nothing in the graph, and tune the feedback weight; plus the admin trigger and the scheduled
run over every user with changes."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.graph import Row, Tx
from app.models.entities import ExtractRequest
from app.models.governance import (
    GovernanceReport,
    ReflectRequest,
    Skipped,
    TriggerAnswer,
    TriggerOperation,
)
from app.registry import Registry
from app.services import admin, feedback
from app.services.entities import llm_extraction
from app.services.governance import confidence, consolidate, cooldowns, paging, reflect
from app.services.governance.cooldowns import Trigger
from app.services.memories import deletion
from app.services.plugins import effects
from app.services.scope import Caller, Scope, scope_for
from app.services.user_failures import UserFailures
from app.services.versioning import snapshots, versions
from app.services.versioning.versions import Why

log = logging.getLogger(__name__)

QUARANTINE_BELOW = 0.2
COLLECTABLE_AFTER_H = 24
USERS_PAGE = 200


def _quarantine(confidence_now: float, threshold: float) -> dict[str, Any]:
    return {
        "is_active": False,
        "quarantined": True,
        "quarantined_at": datetime.now(UTC),
        "quarantine_reason": (f"decayed confidence {confidence_now:.3f} is under {threshold}"),
    }


@dataclass
class _Cleaned:
    quarantined: int = 0
    expired: int = 0
    collectable: int = 0
    snapshot_name: str | None = None


async def _clean(registry: Registry, scope: Scope) -> _Cleaned:
    """Quarantines, expires and retires, a page of the branch's memory nodes at a time, each
    page with something to do in one change, the first of them after a safety snapshot (a
    rollback to it undoes the whole run; a run with nothing to do takes none)."""
    settings = registry.settings
    plan = await effects.effect(registry, "governance", scope.user_id)
    threshold = QUARANTINE_BELOW
    if plan is not None and plan.config.governance is not None:
        declared = plan.config.governance.quarantine_below
        threshold = threshold if declared is None else declared
    size = paging.batch(registry)
    criteria = {
        **scope.params(),
        "batch": size,
        "threshold": threshold,
        "decay_days": {tier: t.decay_days for tier, t in confidence.TIERS.items()},
        "expire_hours": {
            "working": settings.working_memory_max_age_h,
            "tool_result": settings.tool_result_max_age_h,
        },
        "collectable_hours": COLLECTABLE_AFTER_H,
    }
    done = _Cleaned()
    for source in paging.sources(scope):
        cursor = paging.Cursor.created_after(0)
        while True:
            rows = await registry.graph.read(
                "governance/stale", **criteria, source=source, **cursor.params()
            )
            if not rows:
                break
            page: Row | None = rows[0]
            if rows[0]["found"]:
                page = await _act(registry, scope, criteria | {"source": source}, cursor, done)
            if page is None or page["paged"] < size:
                break
            cursor = paging.Cursor.past(page)
            await paging.pause(registry)
    return done


async def _act(
    registry: Registry,
    scope: Scope,
    criteria: dict[str, Any],
    cursor: paging.Cursor,
    done: _Cleaned,
) -> Row | None:
    """One page's quarantines, expiries and retirements in one change (the page read again
    inside it, now that the user's writes wait); adds them to `done` and returns the page."""
    threshold = criteria["threshold"]

    async def work(tx: Tx) -> tuple[Row | None, str | None]:
        seq = await versions.open_change(tx, scope.user_id, scope.branch, Why("governance"))
        rows = await tx.run("governance/stale", **criteria, **cursor.params())
        if not rows:
            return None, None
        name = None
        if done.snapshot_name is None:
            name = await snapshots.take_safety(
                tx,
                scope.user_id,
                scope.branch,
                seq,
                "pre_governance",
                "governance: quarantine and clean-up",
                registry.settings.safety_snapshots_kept,
            )
        found = rows[0]["found"]
        changes = [
            (row["memory_id"], _quarantine(row["confidence"], threshold))
            for row in found
            if row["action"] == "quarantine"
        ]
        changes += [
            (row["memory_id"], deletion("expired")) for row in found if row["action"] == "expire"
        ]
        await versions.revise(tx, seq, scope.user_id, scope.branch, changes)
        collectable = [row["memory_id"] for row in found if row["action"] == "collect"]
        await versions.retire(tx, seq, scope.user_id, scope.branch, collectable)
        return rows[0], name

    page, name = await registry.graph.transaction(work)
    if page is not None:
        actions = [row["action"] for row in page["found"]]
        done.quarantined += actions.count("quarantine")
        done.expired += actions.count("expire")
        done.collectable += actions.count("collect")
        done.snapshot_name = done.snapshot_name or name
    return page


async def _govern(registry: Registry, caller: Caller) -> GovernanceReport:
    scope = await scope_for(registry, caller, None)
    cleaned = await _clean(registry, scope)
    orphans = await consolidate.clean_orphans(registry, caller.user_id)
    tuned = await feedback.autotune(registry, caller.user_id)
    return GovernanceReport(
        quarantined=cleaned.quarantined,
        expired=cleaned.expired,
        collectable=cleaned.collectable,
        orphan_graph_cleaned=orphans.total,
        feedback_tuned=tuned.tuned,
        feedback_weight=tuned.current.feedback_weight,
        snapshot_name=cleaned.snapshot_name,
    )


async def govern(
    registry: Registry, caller: Caller, *, force: bool = False, trigger: Trigger = "api"
) -> GovernanceReport | Skipped:
    """POST /v1/governance on the caller's checked-out branch, once per cooldown unless forced."""
    return await cooldowns.guarded(
        registry,
        caller.user_id,
        "governance",
        force=force,
        trigger=trigger,
        run=lambda: _govern(registry, caller),
    )


async def trigger(registry: Registry, user_id: str, op: TriggerOperation) -> TriggerAnswer:
    """The admin trigger: runs `op` as the user, whatever its cooldown."""
    caller = await admin.caller_of(registry, user_id)
    result: Any
    if op == "governance":
        result = await govern(registry, caller, force=True, trigger="admin")
    elif op == "consolidate":
        result = await consolidate.consolidate(registry, caller, force=True, trigger="admin")
    elif op == "reflect":
        result = await reflect.reflect(
            registry, caller, ReflectRequest(force=True), trigger="admin"
        )
    else:
        result = await llm_extraction.extract(registry, caller, ExtractRequest())
    return TriggerAnswer(result)


async def govern_all(registry: Registry) -> dict[str, int]:
    """The scheduled job: governance and consolidate for every active user with changes since
    their last scheduled run (each run is recorded with the user). A user that fails is logged
    and counted and the job goes on; not marked governed, they are retried by the next run (see
    user_failures)."""
    governed = 0
    failures = UserFailures("governance")
    after: str | None = None
    while True:
        rows = await registry.graph.read(
            "governance/users_to_govern", after=after, limit=USERS_PAGE
        )
        for row in rows:
            caller = Caller(user_id=row["user_id"], active_branch=row["active_branch"])
            try:
                await govern(registry, caller, force=True, trigger="scheduled")
                await consolidate.consolidate(registry, caller, force=True, trigger="scheduled")
                await registry.graph.write("governance/mark_governed", user_id=caller.user_id)
            except Exception as error:  # this user's failure, not the job's: the others go on
                failures.failed(caller.user_id, error)
                continue
            failures.succeeded()
            governed += 1
        if len(rows) < USERS_PAGE:
            break
        after = rows[-1]["user_id"]
    if governed or failures.count:
        log.info("scheduled governance ran for %d users, %d failed", governed, failures.count)
    return {"users_governed": governed, "users_failed": failures.count}
