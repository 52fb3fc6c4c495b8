"""Branches: fork a user's memories, work on them apart, diff and merge them into main."""

from __future__ import annotations

from datetime import UTC, datetime

from app.errors import Conflict, Invalid, NotFound
from app.graph import Row, Tx
from app.models.branches import (
    Branch,
    BranchDiff,
    BranchList,
    CheckedOut,
    ConflictEntry,
    ConflictSide,
    CreateBranch,
    DeletedBranch,
    DiffEntry,
    DiffItems,
    Merged,
    UpdatedEntry,
)
from app.registry import Registry
from app.services.memory_view import active_count, to_snapshot_memory
from app.services.scope import MAIN, Caller, scope_for
from app.services.versioning import merge_plan, snapshots, versions
from app.services.versioning.versions import Why

MAX_BRANCHES = 20


async def create(registry: Registry, caller: Caller, request: CreateBranch) -> Branch:
    """Forks main now, the snapshot's branch as it was at the snapshot, or main as it was at
    a time (the state of the user's last change before it).

    Copy-on-write (see scope.Scope): the branch reads main's nodes as of the fork and copies
    only what main no longer holds as it was then: the versions of a past state of main that
    have ended since, or everything a snapshot of another branch holds of its own.
    """
    name, at = request.name, request.from_timestamp
    if name == MAIN:
        raise Conflict("the branch main exists already")
    if at is not None and at > datetime.now(UTC):
        raise Invalid("from_timestamp is in the future")
    source = (
        await snapshots.get(registry, caller.user_id, request.from_snapshot)
        if request.from_snapshot
        else None
    )
    source_branch = source.branch if source else MAIN
    reads = await scope_for(registry, caller, source_branch)

    async def work(tx: Tx) -> None:
        seq = await versions.open_change(
            tx, caller.user_id, name, Why("fork", name), needs=[source_branch]
        )
        state_seq = seq - 1
        if source is not None:
            state_seq = source.seq
        elif at is not None:
            state_seq = await _main_at(tx, caller.user_id, at)
        row = (
            await tx.run(
                "branches/create",
                user_id=caller.user_id,
                name=name,
                base_seq=seq,
                from_snapshot=request.from_snapshot,
                from_timestamp=at,
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
        if source is not None or at is not None:
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


async def _main_at(tx: Tx, user_id: str, at: datetime) -> int:
    """The seq of main's state at a time, while garbage collection has left its versions
    (versions/state_at holds off any collection of them until the transaction ends)."""
    [row] = await tx.run("versions/state_at", user_id=user_id, at=at)
    if row["seq"] < row["collected_through"]:
        raise Invalid(
            "main as it was at from_timestamp is no longer kept (garbage collection took some "
            "of its past versions): snapshots keep a state, fork from one"
        )
    return int(row["seq"])


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
    scope = await scope_for(registry, caller, name)
    return CheckedOut(active_branch=name, memory_count=await active_count(registry, scope))


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


def _entry(props: Row) -> DiffEntry:
    return DiffEntry(
        memory_id=props["memory_id"], content=props["content"], memory_type=props["memory_type"]
    )


def _side(props: Row, contents: dict[str, str]) -> ConflictSide:
    superseded_by = props.get("superseded_by")
    return ConflictSide(
        content=props["content"],
        is_active=bool(props.get("is_active")),
        superseded_by=superseded_by,
        superseded_by_content=contents.get(superseded_by) if superseded_by else None,
    )


async def diff_items(registry: Registry, caller: Caller, name: str, limit: int) -> DiffItems:
    """What the branch changed since its fork, entry by entry (Memoria's diff-items): what a
    merge or an apply would bring to main, the conflicts (a memory both sides changed, with
    the branch's correction of it), and what main changed meanwhile."""
    branch = await _merged_into_main(registry, caller.user_id, name)
    changes = await registry.graph.read(
        "branches/changes", **merge_plan.since_fork(caller.user_id, branch)
    )
    rows = {row["branch_memory"]["memory_id"]: row for row in changes}
    because = merge_plan.conflicts(changes, branch["base_seq"])
    new, changed, deactivated = (
        [props for props in group if props["memory_id"] not in because]
        for group in merge_plan.plan(changes)
    )
    fresh = {props["memory_id"] for props in new}
    # A correction made on the branch: its new memory replaces the one it deactivated.
    replaces = {
        props["superseded_by"]: props
        for props in deactivated
        if props.get("superseded_by") in fresh
    }
    pairs = [
        (props, replaces[props["memory_id"]]) for props in new if props["memory_id"] in replaces
    ]
    pairs += [(props, rows[props["memory_id"]]["target_memory"]) for props in changed]
    replaced = {props["memory_id"] for props in replaces.values()}
    disputed = sorted(key for key, changed_on_main in because.items() if key == changed_on_main)
    main_corrections = [rows[key]["target_memory"].get("superseded_by") for key in disputed]
    view_seq = branch.get("view_seq")  # where the branch reads main from (a fork's past state)
    [read] = await registry.graph.read(
        "branches/behind_main",
        user_id=caller.user_id,
        since=branch["base_seq"] if view_seq is None else view_seq,
        exclude=[*because, *filter(None, main_corrections)],
        related=list(filter(None, main_corrections)),
        limit=limit,
    )
    contents = {props["memory_id"]: props["content"] for props in read["related"]}
    contents |= {key: row["branch_memory"]["content"] for key, row in rows.items()}
    return DiffItems(
        branch=name,
        added=[_entry(props) for props in new if props["memory_id"] not in replaces][:limit],
        updated=[
            UpdatedEntry(
                **_entry(props).model_dump(),
                old_memory_id=old["memory_id"],
                old_content=old["content"],
            )
            for props, old in pairs[:limit]
        ],
        removed=[_entry(p) for p in deactivated if p["memory_id"] not in replaced][:limit],
        conflicts=[
            ConflictEntry(
                memory_id=key,
                branch=_side(rows[key]["branch_memory"], contents),
                main=_side(rows[key]["target_memory"], contents),
            )
            for key in disputed[:limit]
        ],
        behind_main=[_entry(props) for props in read["behind"]],
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
