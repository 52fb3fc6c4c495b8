"""Snapshots: named watermarks on a user's change sequence."""

from __future__ import annotations

import secrets

from app.graph import Tx

DEFAULT_SAFETY_KEPT = 20


async def take_safety(
    tx: Tx, user_id: str, branch: str, seq: int, prefix: str, reason: str, keep: int
) -> str:
    """Snapshots the state before change `seq` as `<prefix>_<8 hex>`; returns its name."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    await tx.run(
        "snapshots/take_safety",
        user_id=user_id,
        branch=branch,
        name=name,
        seq=seq - 1,
        reason=reason,
        keep=keep,
    )
    return name
