"""Branches: fork a user's memories, work on them apart, diff and merge them into main."""

from __future__ import annotations

from app.errors import Conflict, Invalid, NotFound
from app.graph import Row, Tx
from app.models.branches import (
    Branch,
    BranchDiff,
    BranchList,
    CheckedOut,
    DeletedBranch,
    Merged,
)
from app.registry import Registry
from app.services.memory_view import to_snapshot_memory
from app.services.scope import MAIN, Caller, scope_for
from app.services.versioning import merge_plan, snapshots, versions
from app.services.versioning.versions import Why

MAX_BRANCHES = 20


async def create(
    registry: Registry, caller: Caller, name: str, from_snapshot: str | None
) -> Branch:
    """Forks main now, or the snapshot's branch as it was at the snapshot.

    Copy-on-write (see scope.Scope): the branch reads main's nodes as of the fork and copies
    only what main no longer holds as it was then: the versions of a snapshot of main that have
    ended since, or everything a snapshot of another branch holds of its own.
    """
    if name == MAIN:
        raise Conflict("the branch main exists already")
    source = await snapshots.get(registry, caller.user_id, from_snapshot) if from_snapshot else None
    source_branch = source.branch if source else MAIN
    reads = await scope_for(registry, caller, source_branch)

    async def work(tx: Tx) -> None:
        seq = await versions.open_change(
            tx, caller.user_id, name, Why("fork", name), needs=[source_branch]
        )
        state_seq = source.seq if source else seq - 1
        row = (
            await tx.run(
                "branches/create",
                user_id=caller.user_id,
                name=name,
                base_seq=seq,
                from_snapshot=from_snapshot,
                source_branch=source_branch,
                view_seq=state_seq if source_branch == MAIN else reads.view_seq,
                shadows=reads.shadows,
                max_branches=MAX_BRANCHES,
            )
        )[0]
        if row["outcome"] == "duplicate":
            raise Conflict(f"a branch named {name} exists already")
        if row["outcome"] == "limit":
            raise Conflict(f"at most {MAX_BRANCHES} branches per user: delete one first")
        if source is not None:
            await versions.copy(
                tx,
                seq,
                caller.user_id,
                from_branch=source_branch,
                to_branch=name,
                state_seq=state_seq,
                past_only=source_branch == MAIN,
            )

    await registry.graph.transaction(work)
    listed = await list_all(registry, caller)
    return next(branch for branch in listed.branches if branch.name == name)


async def list_all(registry: Registry, caller: Caller, *, counted: bool = True) -> BranchList:
    """The user's branches, main first; each with its active memory count unless not
    `counted` (counting reads every memory of each branch)."""
    if counted:
        row = (await registry.graph.read("branches/list", user_id=caller.user_id))[0]
    else:
        row = (await registry.graph.read("branches/names", user_id=caller.user_id))[0]
    active = row["active_branch"]
    main = Branch(name=MAIN, memory_count=row.get("main_count"), active=active == MAIN)
    others = [Branch(**item, active=item["name"] == active) for item in row["branches"]]
    return BranchList(active_branch=active, branches=[main, *others])


async def get(registry: Registry, user_id: str, name: str) -> Row:
    rows = await registry.graph.read("branches/get", user_id=user_id, name=name)
    if not rows:
        raise NotFound(f"branch {name} not found")
    branch: Row = rows[0]["branch"]
    return branch


async def _merged_into_main(registry: Registry, user_id: str, name: str) -> Row:
    """The branch a diff or a merge compares with main (main itself is no such branch: 422)."""
    if name == MAIN:
        raise Invalid("main is what branches are diffed against and merged into: name a branch")
    return await get(registry, user_id, name)


async def checkout(registry: Registry, caller: Caller, name: str) -> CheckedOut:
    if name != MAIN:  # an unknown branch changes nothing, not even by making the user
        await get(registry, caller.user_id, name)
    [row] = await registry.graph.write("branches/checkout", user_id=caller.user_id, name=name)
    if not row["found"]:
        raise NotFound(f"branch {name} not found")
    return CheckedOut(active_branch=name)


async def diff(registry: Registry, caller: Caller, name: str) -> BranchDiff:
    """What merging the branch into main would change."""
    branch = await _merged_into_main(registry, caller.user_id, name)
    new, changed, deactivated = merge_plan.plan(
        await registry.graph.read(
            "branches/changes", **merge_plan.since_fork(caller.user_id, branch)
        )
    )
    return BranchDiff(
        branch=name,
        added=[to_snapshot_memory(props) for props in new],
        modified=[to_snapshot_memory(props) for props in changed],
        removed=[to_snapshot_memory(props) for props in deactivated],
    )


async def merge(registry: Registry, caller: Caller, name: str, strategy: str) -> Merged:
    """`append` brings over what main lacks; `replace` also applies changes and deletions.

    Merging twice changes nothing the second time.
    """
    branch = await _merged_into_main(registry, caller.user_id, name)

    async def work(tx: Tx) -> Merged:
        seq = await versions.open_change(tx, caller.user_id, MAIN, Why("merge", name), needs=[name])
        new, changed, deactivated = merge_plan.plan(
            await tx.run("branches/changes", **merge_plan.since_fork(caller.user_id, branch)),
            replacing=strategy == "replace",
        )
        if new:
            await versions.copy(
                tx,
                seq,
                caller.user_id,
                from_branch=name,
                to_branch=MAIN,
                state_seq=seq - 1,
                memory_ids=[props["memory_id"] for props in new],
            )
        replaced = changed + deactivated if strategy == "replace" else []
        await versions.replace(
            tx,
            seq,
            caller.user_id,
            branch=MAIN,
            from_branch=name,
            changes=[(props["memory_id"], merge_plan.carried(props)) for props in replaced],
        )
        return Merged(
            branch=name,
            strategy=strategy,
            added=len(new),
            replaced=len(changed) if strategy == "replace" else 0,
            removed=len(deactivated) if strategy == "replace" else 0,
        )

    return await registry.graph.transaction(work)


async def delete(registry: Registry, caller: Caller, name: str) -> DeletedBranch:
    if name == MAIN:
        raise Invalid("the branch main cannot be deleted")
    await get(registry, caller.user_id, name)

    async def work(tx: Tx) -> None:
        rows = await tx.run("branches/delete", user_id=caller.user_id, name=name)
        if not rows[0]["deleted"]:  # a concurrent delete took it first
            raise NotFound(f"branch {name} not found")
        await versions.drop_branch(tx, caller.user_id, name)

    await registry.graph.transaction(work)
    active = MAIN if caller.active_branch == name else caller.active_branch
    return DeletedBranch(name=name, deleted=True, active_branch=active)
