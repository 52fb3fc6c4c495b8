"""What governance left for a person to look at: the contradictions standing on a branch (newer
and older side by side, which one consolidate kept and why) and the last runs of each operation
with their cooldowns."""

from __future__ import annotations

from datetime import UTC, datetime

from app.graph import Row
from app.models.oversight import (
    Contradiction,
    ContradictionSide,
    Cooldown,
    GovernanceActivity,
    GovernanceRun,
)
from app.registry import Registry
from app.services.governance import confidence
from app.services.governance.consolidate import TRUST_GAP
from app.services.memory_view import current_confidence
from app.services.scope import Caller, scope_for

RUNS_PER_OPERATION = 5
RUN_FIELDS = {"user_id", "op", "trigger", "at"}  # a run's other properties are its counts


def _side(node: Row, now: datetime) -> ContradictionSide:
    return ContradictionSide(
        memory_id=node["memory_id"],
        content=node["content"],
        trust_tier=node["trust_tier"],
        observed_at=confidence.timestamp(node["observed_at"]),
        confidence=current_confidence(node, now),
    )


def why_kept(newer: Row, older: Row, kept: str) -> str:
    """Consolidate's rule (see consolidate.judge) as it decided this pair."""
    if kept == newer["memory_id"]:
        return (
            f"the newer memory is kept: a newer memory wins unless it is {TRUST_GAP} or more "
            f"trust tiers less trusted than the older one ({newer['trust_tier']} against "
            f"{older['trust_tier']})"
        )
    return (
        f"the older memory is kept: the newer one ({newer['trust_tier']}) is {TRUST_GAP} or "
        f"more trust tiers less trusted than the older one ({older['trust_tier']})"
    )


async def contradictions(
    registry: Registry, caller: Caller, branch: str | None, limit: int
) -> list[Contradiction]:
    """The branch's standing contradictions, newest detection first."""
    scope = await scope_for(registry, caller, branch)
    rows = await registry.graph.read("governance/contradictions", **scope.params(), limit=limit)
    now = datetime.now(UTC)
    return [
        Contradiction(
            newer=_side(row["newer"], now),
            older=_side(row["older"], now),
            severity=row["severity"] or "",
            reason=row["reason"] or "",
            detected_at=row["detected_at"],
            kept=row["kept"],
            why_kept=why_kept(row["newer"], row["older"], row["kept"]),
        )
        for row in rows
    ]


async def activity(registry: Registry, caller: Caller) -> GovernanceActivity:
    """The user's last runs of each operation (newest first) and their cooldowns."""
    [row] = await registry.graph.read(
        "governance/activity", user_id=caller.user_id, per_op=RUNS_PER_OPERATION
    )
    return GovernanceActivity(
        runs=[
            GovernanceRun(
                op=run["op"],
                trigger=run["trigger"],
                at=run["at"],
                counts={key: value for key, value in run.items() if key not in RUN_FIELDS},
            )
            for run in row["runs"]
        ],
        cooldowns=[Cooldown(**cooldown) for cooldown in row["cooldowns"]],
    )
