"""Scope of a request: the user it acts for, the branch a memory operation works on, and which
memories a read keeps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.errors import NotFound
from app.registry import Registry

MAIN = "main"


@dataclass(frozen=True)
class Caller:
    """The user a request acts for and the branch they have checked out."""

    user_id: str
    active_branch: str = MAIN


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a read keeps: of these types, of this subject, of this session only."""

    memory_types: Sequence[str] | None = None
    subject_id: str | None = None
    session_id: str | None = None

    @property
    def narrows(self) -> bool:
        """Whether it keeps a subject or a session only: filters a search applies to what it
        found, so it fetches more (types are filtered inside the search itself)."""
        return self.subject_id is not None or self.session_id is not None

    def admits(self, memory: Mapping[str, Any]) -> bool:
        return (
            (self.memory_types is None or memory["memory_type"] in self.memory_types)
            and (self.subject_id is None or memory.get("subject_id") == self.subject_id)
            and (self.session_id is None or memory.get("session_id") == self.session_id)
        )

    def params(self) -> dict[str, Any]:
        return {
            "memory_types": self.memory_types,
            "subject_id": self.subject_id,
            "session_id": self.session_id,
        }


@dataclass(frozen=True)
class Scope:
    """Where an operation reads and writes: one user's one branch.

    A branch made by copy-on-write reads main as it was at `view_seq` (main's current nodes
    created up to then) wherever it has no node of its own for a memory; `shadows` bounds how
    many of those main nodes its own nodes hide, which a search of main fetches in addition.
    Main, and branches that hold all their memories, have no `view_seq`.
    """

    user_id: str
    branch: str
    view_seq: int | None = None
    shadows: int = 0

    def params(self) -> dict[str, Any]:
        """The parameters every query of a branch's memories takes."""
        return {"user_id": self.user_id, "branch": self.branch, "view_seq": self.view_seq}


async def warm(registry: Registry) -> None:
    """Plans the lookup of a request's branch at startup (see warm_up)."""
    await registry.graph.read("branches/get", user_id="", name=MAIN)


async def scope_for(registry: Registry, caller: Caller, requested: str | None) -> Scope:
    """The request's branch if it names one (it must exist), else the checked-out branch."""
    branch = requested or caller.active_branch
    if branch == MAIN:
        return Scope(user_id=caller.user_id, branch=MAIN)
    rows = await registry.graph.read("branches/get", user_id=caller.user_id, name=branch)
    if not rows:
        raise NotFound(f"branch {branch} not found")
    found = rows[0]["branch"]
    return Scope(
        user_id=caller.user_id,
        branch=branch,
        view_seq=found.get("view_seq"),
        shadows=found.get("shadows") or 0,
    )
