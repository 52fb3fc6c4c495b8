"""`as_of` reads: which state of a branch a read shows, now or as it stood at a past moment (a
time, or a snapshot's name), resolved once, read-only, into the change seq that every read
statement takes.

Two times belong to a memory: its event time (`observed_at`: when it was said or happened, as
the client gave it, else the time of the store) and its record time (when each version was
written: the `at` of the change that wrote it). `as_of` is record time: the state the service
held then. A time reads the state after the user's last change at or before it; a snapshot,
the state it recorded (of its own branch).

The state at seq `s` of a branch is every node of it with created_seq <= s < ended_seq (and for
a copy-on-write branch, main's nodes it reads: see scope.Scope). It is whole while garbage
collection has deleted none of its versions: the retention (`HISTORY_RETENTION_DAYS`) keeps the
recent past, snapshots keep their own states; anything older may be gone (Gone, 410).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.errors import Gone, Invalid, NotFound
from app.registry import Registry
from app.services.scope import MAIN, Caller, Scope, scope_for


@dataclass(frozen=True)
class AsOf:
    """The state a read shows: now (`seq` None), or the branch as it stood after change `seq`,
    at time `at` (what a past memory's confidence is decayed to).

    `from_start`: the moment is nearer the user's first change than their last, so the past
    versions alive then are fewer to find among those created by then than among those ended
    since (a read of many versions seeks from that end; time stands for how much was written
    before and after, as writing takes time)."""

    seq: int | None = None
    at: datetime | None = None
    from_start: bool = False

    @property
    def past(self) -> bool:
        return self.seq is not None

    def params(self) -> dict[str, Any]:
        """The parameters every read statement takes: `seq` (null for now) and
        `from_start`."""
        return {"seq": self.seq, "from_start": self.from_start}


NOW = AsOf()


async def resolve(registry: Registry, scope: Scope, as_of: datetime | str | None) -> AsOf:
    """The state of the scope's branch that `as_of` names (a time or a snapshot's name), or
    NOW without one. Reads only.

    Invalid (422): a time in the future, a snapshot of another branch, a time before the branch
    was made. NotFound: an unknown snapshot. Gone: a time whose state garbage collection has
    taken part of. A time before the user's first change reads the empty state.
    """
    if as_of is None:
        return NOW
    time = as_of if isinstance(as_of, datetime) else None
    if time is not None and time > datetime.now(UTC):
        raise Invalid("as_of is in the future: the memory as it stands now needs no as_of")
    [row] = await registry.graph.read(
        "versions/as_of",
        user_id=scope.user_id,
        branch=scope.branch,
        at=time,
        snapshot=None if isinstance(as_of, datetime) else as_of,
    )
    if isinstance(as_of, datetime):
        seq, at = _time(scope, as_of, row), as_of
    else:
        seq, at = _snapshot(scope, as_of, row)
    first, last = row["first_at"], row["last_at"]
    from_start = first is not None and last is not None and at - first < last - at
    return AsOf(seq=seq, at=at, from_start=from_start)


def _snapshot(scope: Scope, name: str, row: dict[str, Any]) -> tuple[int, datetime]:
    """The seq and time of the state the snapshot recorded."""
    found = row["snapshot"]
    if found is None:
        raise NotFound(f"snapshot {name} not found")
    if found["branch"] != scope.branch:
        raise Invalid(
            f"snapshot {name} is of branch {found['branch']}, and this request reads branch "
            f"{scope.branch}: name branch {found['branch']} to read it"
        )
    return found["seq"], found["created_at"]


def _time(scope: Scope, at: datetime, row: dict[str, Any]) -> int:
    """The seq of the state at `at`."""
    seq: int = row["seq"]
    if scope.branch != MAIN:
        created = row["created_at"]
        base_seq: int = row["base_seq"]
        if (created is not None and at < created) or (created is None and seq < base_seq):
            raise Invalid(
                f"branch {scope.branch} did not exist yet at as_of {at.isoformat()}"
                + (f" (made at {created.isoformat()})" if created is not None else "")
            )
        # Nodes the branch holds from before its fork (copies of main's) are its state then.
        seq = max(seq, base_seq)
    first = row["first_at"]
    if first is None or at < first:
        return 0  # before the user's first change: nothing
    if seq not in row["kept_seqs"] and _collected(at, seq, row):
        raise Gone(
            f"the memory as it stood at {at.isoformat()} is no longer kept: garbage collection "
            "has taken past versions of it (history is kept for HISTORY_RETENTION_DAYS, and "
            "snapshots keep theirs: read as_of a snapshot)"
        )
    return seq


def _collected(at: datetime, seq: int, row: dict[str, Any]) -> bool:
    """Whether garbage collection may have deleted a version of the state at `at` (seq `seq`):
    every version it deleted ended by `collected_at`, so a later state has lost none."""
    if row["collected_seq"] is None:
        return False
    if row["collected_at"] is None:  # collected before times were recorded: by seq alone
        return bool(seq < row["collected_seq"])
    return bool(at < row["collected_at"])


async def read_scope(
    registry: Registry, caller: Caller, branch: str | None, as_of: datetime | str | None
) -> tuple[Scope, AsOf]:
    """The request's branch (see scope.scope_for) and the state of it the read shows."""
    scope = await scope_for(registry, caller, branch)
    return scope, await resolve(registry, scope, as_of)
