"""Governance sweep: quarantine memories whose confidence has decayed too far, expire stale working
memories and tool results, make long-deleted memories collectable, remove what points at
nothing in the graph, and tune the feedback weight; plus the admin trigger and the scheduled
run over every user with changes."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from app.errors import DomainError, Unavailable
from app.graph import Tx
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
from app.services.governance import confidence, consolidate, cooldowns, reflect
from app.services.governance.cooldowns import Trigger
from app.services.memories import deletion
from app.services.plugins import effects
from app.services.scope import Caller, Scope, scope_for
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


async def _clean(registry: Registry, scope: Scope) -> tuple[int, int, int, str | None]:
    """Quarantines, expires and retires in one change after a safety snapshot (only when there
    is something to do): (quarantined, expired, collectable, snapshot name)."""
    settings = registry.settings
    plan = await effects.effect(registry, "governance", scope.user_id)
    threshold = QUARANTINE_BELOW
    if plan is not None and plan.config.governance is not None:
        declared = plan.config.governance.quarantine_below
        threshold = threshold if declared is None else declared

    async def stale(tx: Tx) -> tuple[list[Any], list[str], list[str]]:
        [found] = await tx.run(
            "governance/stale",
            **scope.params(),
            threshold=threshold,
            decay_days={tier: t.decay_days for tier, t in confidence.TIERS.items()},
            expire_hours={
                "working": settings.working_memory_max_age_h,
                "tool_result": settings.tool_result_max_age_h,
            },
            collectable_hours=COLLECTABLE_AFTER_H,
        )
        return found["low_confidence"], found["expired"], found["collectable"]

    async def work(tx: Tx) -> tuple[int, int, int, str | None]:
        if not any(await stale(tx)):
            return 0, 0, 0, None  # no change opened: a no-op leaves no trace
        seq = await versions.open_change(tx, scope.user_id, scope.branch, Why("governance"))
        low, expired, collectable = await stale(tx)  # again, now that the user's writes wait
        name = await snapshots.take_safety(
            tx,
            scope.user_id,
            scope.branch,
            seq,
            "pre_governance",
            "governance: quarantine and clean-up",
            settings.safety_snapshots_kept,
        )
        changes = [(row["memory_id"], _quarantine(row["confidence"], threshold)) for row in low]
        changes += [(memory_id, deletion("expired")) for memory_id in expired]
        await versions.revise(tx, seq, scope.user_id, scope.branch, changes)
        retired = await versions.retire(tx, seq, scope.user_id, scope.branch, collectable)
        return len(low), len(expired), retired, name

    return await registry.graph.transaction(work)


async def _govern(registry: Registry, caller: Caller) -> GovernanceReport:
    scope = await scope_for(registry, caller, None)
    quarantined, expired, collectable, snapshot_name = await _clean(registry, scope)
    orphans = await consolidate.clean_orphans(registry, caller.user_id)
    tuned = await feedback.autotune(registry, caller.user_id)
    return GovernanceReport(
        quarantined=quarantined,
        expired=expired,
        collectable=collectable,
        orphan_graph_cleaned=orphans.total,
        feedback_tuned=tuned.tuned,
        feedback_weight=tuned.current.feedback_weight,
        snapshot_name=snapshot_name,
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
    their last scheduled run (each run is recorded with the user)."""
    governed = 0
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
            except Unavailable:
                raise
            except DomainError as error:  # this user's state, not the job: the others go on
                log.warning("scheduled governance skipped user %s: %s", caller.user_id, error)
                continue
            await registry.graph.write("governance/mark_governed", user_id=caller.user_id)
            governed += 1
        if len(rows) < USERS_PAGE:
            break
        after = rows[-1]["user_id"]
    if governed:
        log.info("scheduled governance ran for %d users", governed)
    return {"users_governed": governed}
