"""Feedback on memories, the per-user retrieval parameters, and tuning them from feedback.

A signal is a (:Feedback) record on the request's branch (else the checked-out one), linked ON
the memory, whose matching counter (useful, irrelevant, outdated, wrong) goes up in the same
change, so ranking reads the counts with the memory. The link and the count make a new version
of the memory like any change (a rollback takes the link away again); the counters themselves
are not memory content: a rollback keeps them, and a correction starts at zero while the old
memory keeps its counts and feedback.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from app.errors import NotFound
from app.graph import Row, Tx
from app.models.feedback import (
    FEEDBACK_WEIGHT_DEFAULT,
    SIGNALS,
    TIERS,
    FeedbackByTier,
    FeedbackGiven,
    FeedbackRecorded,
    FeedbackStats,
    NewFeedback,
    RetrievalParams,
    TierSignalCount,
    TuneResult,
)
from app.registry import Registry
from app.services import tuning
from app.services.scope import Caller, scope_for
from app.services.user_failures import UserFailures
from app.services.versioning import versions
from app.services.versioning.versions import Link, Why

log = logging.getLogger(__name__)

NOT_ENOUGH_FEEDBACK = (
    "not enough feedback to tune automatically: {signals} signals so far, at least {needed} needed"
)
TUNE_PAGE = 200


async def record(
    registry: Registry, caller: Caller, memory_id: str, item: NewFeedback
) -> FeedbackRecorded:
    """Records a signal on one of the caller's active memories (on the branch the request
    names, else the checked-out one)."""
    scope = await scope_for(registry, caller, item.branch)

    async def work(tx: Tx) -> Row:
        seq = await versions.open_change(
            tx, scope.user_id, scope.branch, Why("feedback", item.signal), {"feedback_signals": 1}
        )
        rows = await tx.run(
            "feedback/record",
            **scope.params(),
            memory_id=memory_id,
            feedback_id=uuid.uuid4().hex,
            signal=item.signal,
            context=item.context,
        )
        if not rows:
            raise NotFound("memory not found")  # rolls the user's seq back too
        row = rows[0]
        on = Link(memory_id=memory_id, type="ON", target_node=row["feedback"], inbound=True)
        counted: dict[str, dict[str, Any]] = {memory_id: {item.signal: row["count"] + 1}}
        await versions.link(tx, seq, scope.user_id, scope.branch, [on], counted)
        return {key: row[key] for key in ("feedback_id", "memory_id", "signal")}

    row = await registry.graph.transaction(work)
    return FeedbackRecorded(**row)


async def given(
    registry: Registry, caller: Caller, memory_id: str, branch: str | None, limit: int
) -> list[FeedbackGiven]:
    """The signals given on a memory as it stands on the branch, newest first."""
    scope = await scope_for(registry, caller, branch)
    rows = await registry.graph.read(
        "feedback/of_memory", **scope.params(), memory_id=memory_id, limit=limit
    )
    return [FeedbackGiven(**row) for row in rows]


async def stats(registry: Registry, caller: Caller) -> FeedbackStats:
    """The caller's signals by kind, over all their branches."""
    counts = dict.fromkeys(SIGNALS, 0)
    for row in await registry.graph.read("feedback/stats", user_id=caller.user_id):
        if row["signal"] in counts:
            counts[row["signal"]] = row["count"]
    return FeedbackStats(total=sum(counts.values()), **counts)


async def by_tier(registry: Registry, caller: Caller) -> FeedbackByTier:
    """Every trust tier x signal with its count (zeros included)."""
    found = {
        (row["tier"], row["signal"]): row["count"]
        for row in await registry.graph.read("feedback/by_tier", user_id=caller.user_id)
    }
    return FeedbackByTier(
        breakdown=[
            TierSignalCount(tier=tier, signal=signal, count=found.get((tier, signal), 0))
            for tier in TIERS
            for signal in SIGNALS
        ]
    )


def _params(stored: dict[str, Any] | None) -> RetrievalParams:
    stored = stored or {}
    weight = stored.get("feedback_weight")
    return RetrievalParams(
        feedback_weight=FEEDBACK_WEIGHT_DEFAULT if weight is None else weight,
        source=stored.get("source") or ("default" if weight is None else "manual"),
        tuned_at=stored.get("tuned_at"),
        tuned_signals=stored.get("tuned_signals") or 0,
    )


async def params(registry: Registry, caller: Caller) -> RetrievalParams:
    """The caller's retrieval parameters (defaults until they are tuned)."""
    rows = await registry.graph.read("retrieval_params/get", user_id=caller.user_id)
    return _params(rows[0] if rows else None)


async def set_weight(registry: Registry, caller: Caller, weight: float) -> TuneResult:
    """Manual tuning: sets the weight (already validated to lie in 0.01-0.5)."""
    [row] = await registry.graph.write(
        "retrieval_params/set",
        user_id=caller.user_id,
        feedback_weight=weight,
        source="manual",
        seen=None,
    )
    current = _params(row["current"])
    return TuneResult(
        tuned=True,
        mode="manual",
        signals=current.tuned_signals,
        previous=_params(row["previous"]),
        current=current,
    )


async def autotune(registry: Registry, user_id: str) -> TuneResult:
    """Automatic tuning from the user's feedback mix (see app.services.tuning for the rule)."""
    [read] = await registry.graph.read("feedback/per_memory", user_id=user_id)
    memories = [tuning.MemorySignals(**counts) for counts in read["memories"]]
    weight = read["feedback_weight"]
    current_weight = FEEDBACK_WEIGHT_DEFAULT if weight is None else weight
    outcome = tuning.tune(current_weight, memories)
    if outcome is None:
        signals = sum(memory.total for memory in memories)
        rows = await registry.graph.read("retrieval_params/get", user_id=user_id)
        return TuneResult(
            tuned=False,
            mode="auto",
            message=NOT_ENOUGH_FEEDBACK.format(signals=signals, needed=tuning.MIN_SIGNALS),
            signals=signals,
            current=_params(rows[0] if rows else None),
        )
    [row] = await registry.graph.write(
        "retrieval_params/set",
        user_id=user_id,
        feedback_weight=outcome.weight,
        source="auto",
        seen=read["seen"],
    )
    return TuneResult(
        tuned=True,
        mode="auto",
        signals=outcome.signals,
        previous=_params(row["previous"]),
        current=_params(row["current"]),
        rule={
            "target": outcome.target,
            "agreement": outcome.agreement,
            "memory_judgement": outcome.memory_judgement,
            "step": outcome.step,
        },
    )


async def tune(registry: Registry, caller: Caller, weight: float | None) -> TuneResult:
    """POST /v1/retrieval-params/tune: a weight sets it; None tunes automatically."""
    if weight is not None:
        return await set_weight(registry, caller, weight)
    return await autotune(registry, caller.user_id)


async def autotune_all(registry: Registry) -> dict[str, int]:
    """The scheduled job: auto-tunes every user with new feedback since their last tuning. A
    user that fails is logged and counted and the job goes on; their next run retries them (see
    user_failures)."""
    checked = tuned = 0
    failures = UserFailures("autotune")
    after: str | None = None
    while True:
        rows = await registry.graph.read(
            "feedback/users_to_tune",
            after=after,
            min_signals=tuning.MIN_SIGNALS,
            limit=TUNE_PAGE,
        )
        for row in rows:
            checked += 1
            try:
                result = await autotune(registry, row["user_id"])
            except Exception as error:  # this user's failure, not the job's: the others go on
                failures.failed(row["user_id"], error)
                continue
            failures.succeeded()
            tuned += int(result.tuned)
        if len(rows) < TUNE_PAGE:
            break
        after = rows[-1]["user_id"]
    if checked:
        log.info("auto-tuned the feedback weight of %d of %d users", tuned, checked)
    return {"users_checked": checked, "users_tuned": tuned, "users_failed": failures.count}
