"""The versioned write path: every change to memories goes through here.

A change happens at a new value of the user's `seq`. Nodes are never edited in place: a change
ends the current node (it becomes a :MemoryVersion with `ended_seq`) and creates its successor
with `created_seq`. Snapshots, diffs and rollbacks read these two numbers.
"""

from __future__ import annotations

from typing import Any

from app.graph import Row, Tx, packed_vector


async def open_change(tx: Tx, user_id: str) -> int:
    """The seq of a new change; also serialises the user's concurrent writes."""
    rows = await tx.run("versions/next_seq", user_id=user_id)
    return int(rows[0]["seq"])


async def create(tx: Tx, seq: int, memories: list[dict[str, Any]]) -> list[Row]:
    """Creates memories (property maps with their `embedding`) as current nodes of change
    `seq`; returns them in order."""
    rows = await tx.run(
        "versions/create",
        seq=seq,
        memories=[
            {
                "props": {key: value for key, value in props.items() if key != "embedding"},
                "embedding": packed_vector(props["embedding"]),
            }
            for props in memories
        ],
    )
    return [row["memory"] for row in rows]


async def revise(
    tx: Tx, seq: int, user_id: str, branch: str, changes: list[tuple[str, dict[str, Any]]]
) -> list[Row]:
    """Replaces each named current memory by a successor with `props` applied."""
    if not changes:
        return []
    rows = await tx.run(
        "versions/revise",
        seq=seq,
        user_id=user_id,
        branch=branch,
        changes=[{"memory_id": memory_id, "props": props} for memory_id, props in changes],
    )
    return [row["memory"] for row in rows]
