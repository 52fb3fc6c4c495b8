"""How governance and consolidate walk a user's memory nodes: a page at a time, in (created_seq,
memory_id) order, each page one bounded statement (and at most one short change), with a pause
between pages (MAINTENANCE_BATCH, MAINTENANCE_PAUSE_S) that leaves the service's requests room."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from app.graph import Row
from app.registry import Registry
from app.services.scope import MAIN, Scope


@dataclass(frozen=True)
class Cursor:
    """Where a walk stands: after the node (seq, memory_id); ("", seq) before seq's nodes."""

    seq: int
    memory_id: str = ""

    @classmethod
    def created_after(cls, seq: int) -> Cursor:
        return cls(seq + 1)

    @classmethod
    def past(cls, row: Row) -> Cursor:
        """After the page's last node (its `created_seq` and `memory_id`)."""
        return cls(int(row["created_seq"]), str(row["memory_id"]))

    def params(self) -> dict[str, object]:
        return {"after_seq": self.seq, "after_id": self.memory_id}


def sources(scope: Scope) -> list[str]:
    """The branches whose nodes the scope's branch reads: its own, and main's as of its fork
    when it reads main (see scope.Scope)."""
    return [scope.branch] if scope.view_seq is None else [scope.branch, MAIN]


def batch(registry: Registry) -> int:
    return registry.settings.maintenance_batch


async def pause(registry: Registry) -> None:
    """Between two pages: the service's requests go first."""
    await asyncio.sleep(registry.settings.maintenance_pause_s)
