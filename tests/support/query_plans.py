"""Neo4j's own record of the plans the service's statements ran on (db.stats, section QUERIES).

Neo4j keeps one record per statement and plan: the plan's operators and the rows it estimated
for each, fixed when the plan was made from the statistics of that moment. A statement served
from the plan cache adds to the record of the plan it was planned with; one planned again (for
another shape of its parameters, or after the data's statistics drifted) starts a record of its
own, with the estimates of the data as it is then. So the records of a stretch of a test say,
without a clock, which plans were made in it and which were used."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncDriver

from app.graph import load_queries
from tests.support.neo4j_direct import query

# Statements a request runs at most once every few seconds on an instance, however busy (the
# plugin bindings in force, cached for app.services.plugins.effects.CACHE_S): the warm-up leaves
# them to the first request that needs them.
OCCASIONAL = frozenset({"plugins/bindings", "plugins/signers"})
# How much of a statement's text Neo4j's record keeps (the rest is cut off).
RECORDED_TEXT = 10_000


@dataclass(frozen=True)
class Plan:
    """One plan Neo4j made for one of the service's statements ("<resource>/<verb>")."""

    statement: str
    operators: str  # the plan's operators and their estimated rows, as Neo4j reports them


@asynccontextmanager
async def plans_used(driver: AsyncDriver) -> AsyncIterator[set[Plan]]:
    """Yields a set that the plans the block's statements ran on fill in once it is done (only
    the service's named statements: the tests' own go unrecorded). Nothing else may use the
    database meanwhile: each pytest-xdist worker has one of its own."""
    found: set[Plan] = set()
    await query(driver, "CALL db.stats.stop('QUERIES')")
    await query(driver, "CALL db.stats.clear('QUERIES')")
    await query(driver, "CALL db.stats.collect('QUERIES')")
    yield found
    names = {text[:RECORDED_TEXT]: name for name, text in load_queries().items()}
    rows = await query(driver, "CALL db.stats.retrieve('QUERIES') YIELD data RETURN data")
    await query(driver, "CALL db.stats.stop('QUERIES')")
    for row in rows:
        name = names.get(row["data"]["query"])
        if name is not None:
            shape = [row["data"]["queryExecutionPlan"], row["data"]["estimatedRows"]]
            found.add(Plan(name, json.dumps(shape, sort_keys=True)))


def hot(plans: set[Plan]) -> set[Plan]:
    """The plans of the statements that requests run every time (all but OCCASIONAL)."""
    return {plan for plan in plans if plan.statement not in OCCASIONAL}


def statements(plans: set[Plan]) -> set[str]:
    """The statements that ran on these plans."""
    return {plan.statement for plan in plans}


def planned_again(plans: set[Plan]) -> set[str]:
    """The statements that ran on more than one plan: planned anew for some shape of their
    parameters, or after their data changed."""
    counted: dict[str, int] = {}
    for plan in plans:
        counted[plan.statement] = counted.get(plan.statement, 0) + 1
    return {statement for statement, count in counted.items() if count > 1}


def made_elsewhere(used: set[Plan], made: set[Plan]) -> list[str]:
    """The statements that ran on a plan although none was made for them in `made` (planned
    later, at first use), for an assertion's message: the statement and what it estimated.

    By statement, not by plan: every statement takes one map parameter, so Neo4j keeps one plan
    per statement whatever its values, and a plan of one made later can only be Neo4j's own
    replanning once the data's statistics drifted (after 10 s), which no warm-up prevents."""
    planned = statements(made)
    return sorted(
        f"{plan.statement}: {plan.operators[:300]}"
        for plan in used
        if plan.statement not in planned
    )


def operators(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """Each operator of an executed plan as the service reports it (app.graph.plan_summary:
    `Graph.profile`, `explain: "analyze"`), with its details, from the root down."""
    found = [(str(plan["operator"]), plan["details"] or "")]
    for child in plan["children"]:
        found += operators(child)
    return found
