"""Cooldowns of the governance operations, kept in Neo4j so every instance sees them, and the
record of every run in the graph."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

from pydantic import BaseModel

from app.models.governance import Operation, Skipped
from app.registry import Registry

COOLDOWN_S: dict[Operation, int] = {
    "governance": 3600,
    "consolidate": 1800,
    "reflect": 7200,
}
RUNS_KEPT_DAYS = 30
Trigger = Literal["api", "admin", "scheduled", "console"]
Report = TypeVar("Report", bound=BaseModel)


def counts(report: BaseModel) -> dict[str, int | float | bool]:
    """A report's figures (numbers and flags), as a run records them."""
    return {
        name: value
        for name, value in report.model_dump().items()
        if isinstance(value, int | float | bool) and name != "skipped"
    }


async def guarded(
    registry: Registry,
    user_id: str,
    op: Operation,
    *,
    force: bool,
    trigger: Trigger,
    run: Callable[[], Awaitable[Report]],
) -> Report | Skipped:
    """Runs `run` unless the user's cooldown of `op` is still on (and not forced), then records
    the run; a run that fails gives its cooldown back."""
    [claim] = await registry.graph.write(
        "governance/claim_cooldown",
        user_id=user_id,
        op=op,
        seconds=COOLDOWN_S[op],
        force=force,
    )
    if not claim["claimed"]:
        return Skipped(cooldown_remaining_s=max(1, int(claim["remaining_s"])))
    try:
        report = await run()
    except BaseException:
        await registry.graph.write(
            "governance/release_cooldown",
            user_id=user_id,
            op=op,
            claim=claim["claim"],
            previous=claim["previous"],
        )
        raise
    await registry.graph.write(
        "governance/record_run",
        user_id=user_id,
        op=op,
        trigger=trigger,
        counts=counts(report),
        keep_days=RUNS_KEPT_DAYS,
    )
    return report
