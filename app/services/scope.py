"""Scope of a request: the user it acts for and the branch a memory operation works on."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import NotFound
from app.registry import Registry

MAIN = "main"


@dataclass(frozen=True)
class Caller:
    """The user a request acts for and the branch they have checked out."""

    user_id: str
    active_branch: str = MAIN


@dataclass(frozen=True)
class Scope:
    """Where an operation reads and writes: one user's one branch."""

    user_id: str
    branch: str


async def scope_for(registry: Registry, caller: Caller, requested: str | None) -> Scope:
    """The request's branch if it names one (it must exist), else the checked-out branch."""
    branch = requested or caller.active_branch
    if requested and requested != MAIN:
        rows = await registry.graph.read("branches/exists", user_id=caller.user_id, name=requested)
        if not rows[0]["found"]:
            raise NotFound(f"branch {requested} not found")
    return Scope(user_id=caller.user_id, branch=branch)
