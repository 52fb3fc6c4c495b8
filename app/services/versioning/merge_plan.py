"""What a merge or a pick of a branch's changes applies to its target (pure planning)."""

from __future__ import annotations

from typing import Any

from app.graph import Row
from app.models.feedback import SIGNALS
from app.services.scope import MAIN, Scope

# Bookkeeping that belongs to a node, not to the memory a merge carries over: node identity and
# versioning, the time of the node's last change (every change sets it anew, so comparing it
# would make a replaced memory differ again at once), and the feedback counters, which count
# signals given on that branch and are not versioned.
NOT_MERGED = (
    "branch",
    "created_seq",
    "created_seq_text",
    "ended_seq",
    "ended_seq_text",
    "memory_id",
    "user_id",
    "updated_at",
    *SIGNALS,
)


def carried(props: Row) -> dict[str, Any]:
    return {key: value for key, value in props.items() if key not in NOT_MERGED}


def plan(changes: list[Row], *, replacing: bool = True) -> tuple[list[Row], list[Row], list[Row]]:
    """From a branch's changes since its fork: new to the target, changed, deactivated.

    New: active branch memories the target lacks (neither the memory itself nor an active
    exact duplicate of it once the merge is done, as storing it there would not create one;
    `replacing` says whether the merge applies the changed and deactivated ones, which can end
    or change such a duplicate). Changed: memories on both whose branch version differs.
    Deactivated: the changed ones that the branch deleted, corrected or purged while the
    target still shows them (one it no longer shows has nothing left to remove). A memory the
    branch only
    gave new versions that left its properties as they were at the fork (feedback, links) is
    none of these, whatever the target did meanwhile.
    """
    changed: list[Row] = []
    deactivated: list[Row] = []
    candidates: list[Row] = []
    for row in changes:
        mine, theirs, forked = row["branch_memory"], row["target_memory"], row.get("fork_memory")
        if forked is not None and carried(forked) == carried(mine):
            continue  # a new version on the branch (feedback, links) that left it as it was
        if theirs is None:
            if mine.get("is_active"):
                candidates.append(row)
        elif carried(mine) != carried(theirs):
            # What the target has and the branch lacks (a deletion's reason, superseded_by)
            # goes too.
            replacement = {**dict.fromkeys(carried(theirs).keys() - mine.keys()), **mine}
            if mine.get("is_active"):
                changed.append(replacement)
            elif theirs.get("is_active"):
                deactivated.append(replacement)
    replaced = {props["memory_id"]: props for props in changed + deactivated} if replacing else {}

    def still_duplicated(row: Row) -> bool:
        fingerprint = row["branch_memory"].get("fingerprint")
        for memory_id in row.get("duplicates_on_target") or []:
            after = replaced.get(memory_id)
            if after is None:
                return True  # the merge leaves the target's duplicate as it is
            if after.get("is_active") and after.get("fingerprint") == fingerprint:
                return True
        return False

    new = [row["branch_memory"] for row in candidates if not still_duplicated(row)]
    return new, changed, deactivated


def since_fork(
    user_id: str, branch: Row, target: Scope | None = None, memory_ids: list[str] | None = None
) -> dict[str, Any]:
    """The parameters of branches/changes: the branch's changes (those of `memory_ids`) against
    the `target` branch (main by default)."""
    return {
        "user_id": user_id,
        "name": branch["name"],
        "base_seq": branch["base_seq"],
        "target": target.branch if target else MAIN,
        "target_view_seq": target.view_seq if target else None,
        "memory_ids": memory_ids,
    }


def diverged(row: Row, base_seq: int) -> bool:
    """Whether the target changed the memory too since the branch's fork: its node there is
    newer than the fork and no longer what the branch started from (a pick's conflict)."""
    theirs, forked = row["target_memory"], row.get("fork_memory")
    if theirs is None or theirs["created_seq"] <= base_seq:
        return False
    return forked is None or carried(theirs) != carried(forked)


def conflicts(changes: list[Row], base_seq: int) -> dict[str, str]:
    """The branch's changes that conflict with the target (pure), each with the memory the
    target changed: a memory the target changed too since the fork, and the branch's
    correction of one (two corrections of one memory would both stand)."""
    rows = {row["branch_memory"]["memory_id"]: row for row in changes}
    because: dict[str, str] = {}
    for memory_id, row in rows.items():
        if diverged(row, base_seq):
            because[memory_id] = memory_id
            correction = row["branch_memory"].get("superseded_by")
            if correction in rows:
                because[correction] = memory_id
    return because
