"""Pick: promote chosen changes of a branch into main (or another target branch); Memoria's
selective apply is a pick of the memories its entries name."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.errors import Conflict, Invalid, NotFound
from app.graph import Row, Tx
from app.models.branches import (
    PREVIEW_CHARS,
    Action,
    Applied,
    ApplyChanges,
    MemoriaPick,
    Pick,
    Picked,
    PickItem,
)
from app.models.memories import RetrieveRequest
from app.pagination import Paging
from app.registry import Registry
from app.services.retrieval import pipeline
from app.services.scope import MAIN, Caller, Scope, scope_for
from app.services.versioning import branches, merge_plan, snapshots, versions
from app.services.versioning.versions import Why

# New, changed and deactivated memories, the items applied, and the conflicts left out.
Plan = tuple[list[Row], list[Row], list[Row], list[PickItem], int]


async def _selected(registry: Registry, caller: Caller, name: str, request: Pick) -> list[str]:
    """The memory ids the request's selector names (a pick applies those the branch changed)."""
    if request.memory_ids is not None:
        source = await scope_for(registry, caller, name)
        unknown = await registry.graph.read(
            "branches/unknown_memories", **source.params(), memory_ids=request.memory_ids
        )
        if unknown:
            raise NotFound(f"memory {unknown[0]['memory_id']} not found on branch {name}")
        return request.memory_ids
    if request.query is not None:
        found = await pipeline.hybrid(
            registry,
            caller,
            RetrieveRequest(
                query=request.query,
                top_k=request.top_k,
                min_score=request.min_score,
                branch=name,
            ),
            mode="search",
        )
        assert isinstance(found, list), "a request without explain answers a list"
        return [memory.memory_id for memory in found]
    bounds: list[int | None] = []
    for snapshot_name in (request.from_snapshot, request.to_snapshot):
        if snapshot_name is None:
            bounds.append(None)
            continue
        snapshot = await snapshots.get(registry, caller.user_id, snapshot_name)
        if snapshot.branch != name:
            raise Invalid(f"snapshot {snapshot_name} is of branch {snapshot.branch}, not {name}")
        bounds.append(snapshot.seq)
    after, until = bounds
    rows = await registry.graph.read(
        "branches/changed_between",
        user_id=caller.user_id,
        name=name,
        after=-1 if after is None else after,
        until=2**62 if until is None else until,
    )
    return [row["memory_id"] for row in rows]


def _item(props: Row, action: Action, rows: dict[str, Row], conflicts: set[str]) -> PickItem:
    theirs = rows[props["memory_id"]]["target_memory"]
    return PickItem(
        memory_id=props["memory_id"],
        action=action,
        preview=props["content"][:PREVIEW_CHARS],
        target_preview=None if theirs is None else theirs["content"][:PREVIEW_CHARS],
        conflict=props["memory_id"] in conflicts,
    )


def _plan(changes: list[Row], base_seq: int, request: Pick, accepted: frozenset[str]) -> Plan:
    """What the pick applies (new, changed, deactivated), every item it applies in memory id
    order, and how many conflicts the strategy leaves out; Conflict for strategy `fail`
    outside a dry run. `accepted` conflicts are applied whatever the strategy.

    Conflicts: see merge_plan.conflicts.
    """
    rows = {row["branch_memory"]["memory_id"]: row for row in changes}
    because = merge_plan.conflicts(changes, base_seq)
    conflicts = set(because)
    new, changed, deactivated = merge_plan.plan(changes)
    applied = {props["memory_id"] for props in new + changed + deactivated}
    refused = (conflicts & applied) - accepted
    if refused and request.strategy == "fail" and not request.dry_run:
        raise Conflict(
            f"picked memories changed on {request.target} since the fork too: "
            'pick with strategy "skip" or "accept"',
            conflicts=[
                {
                    "memory_id": memory_id,
                    "changed_on_target": because[memory_id],
                    "branch_content": rows[memory_id]["branch_memory"]["content"],
                    "target_content": rows[because[memory_id]]["target_memory"]["content"],
                }
                for memory_id in sorted(refused)
            ],
        )
    skipped = 0
    if request.strategy == "skip":
        skipped = len(refused)
        new, changed, deactivated = (
            [props for props in group if props["memory_id"] not in refused]
            for group in (new, changed, deactivated)
        )
    items = sorted(
        [_item(props, "add", rows, conflicts) for props in new]
        + [_item(props, "replace", rows, conflicts) for props in changed]
        + [_item(props, "remove", rows, conflicts) for props in deactivated],
        key=lambda item: item.memory_id,
    )
    return new, changed, deactivated, items, skipped


@dataclass(frozen=True)
class Outcome:
    """A pick done (or planned): its plan, the target's safety snapshot, and the corrections
    the accepted conflicts took along (by the memory they correct)."""

    plan: Plan
    snapshot_name: str | None = None
    corrections: dict[str, str] = field(default_factory=dict)


async def run(
    registry: Registry,
    caller: Caller,
    name: str,
    request: Pick,
    accepted: frozenset[str] = frozenset(),
) -> Outcome:
    """The pick of a branch's changes into the target: in one change of the target after a
    safety snapshot (so a rollback undoes it), or only planned with `dry_run`. A picked
    correction takes the memory it corrects along, and an `accepted` conflict its correction."""
    if request.target == name:
        raise Invalid("a branch cannot be picked into itself")
    branch = await branches.get(registry, caller.user_id, name)
    target = await scope_for(registry, caller, request.target)
    picked = await _selected(registry, caller, name, request)
    rows = await registry.graph.read(
        "branches/superseded", user_id=caller.user_id, name=name, memory_ids=picked
    )
    corrected = {row["memory_id"] for row in rows if row["superseded_by"] in picked}
    # An accepted conflict over a memory is settled the branch's way: with its correction.
    corrections = {r["memory_id"]: r["superseded_by"] for r in rows if r["memory_id"] in accepted}
    accepted |= set(corrections.values())
    picked = sorted({*picked, *corrected, *corrections.values()})
    query = merge_plan.since_fork(caller.user_id, branch, target, picked)

    if request.dry_run:
        changes = await registry.graph.read("branches/changes", **query)
        return Outcome(_plan(changes, branch["base_seq"], request, accepted), None, corrections)

    async def work(tx: Tx) -> Outcome:
        seq = await versions.open_change(
            tx,
            caller.user_id,
            target.branch,
            Why("pick", f"from {name}"),
            needs=[target.branch, name],
        )
        changes = await tx.run("branches/changes", **query)
        plan = _plan(changes, branch["base_seq"], request, accepted)
        new, changed, deactivated, _items, _skipped = plan
        safety = await _apply(registry, tx, seq, target, name, new, changed + deactivated)
        return Outcome(plan, safety, corrections)

    return await registry.graph.transaction(work)


async def pick(
    registry: Registry, caller: Caller, name: str, request: Pick | MemoriaPick
) -> Picked:
    """POST /v1/branches/{name}/pick, in our form or Memoria's: what was (or would be) applied,
    a page of its items."""
    skip = 0
    if isinstance(request, MemoriaPick):
        skip, request = request.skipped_items, request.as_pick()
    paging = Paging.of(request.cursor, request.limit)
    outcome = await run(registry, caller, name, request)
    new, changed, deactivated, items, skipped = outcome.plan
    listed = [item for item in items if paging.after is None or item.memory_id > paging.after]
    page, next_cursor = paging.page(listed[skip:], lambda item: item.memory_id)
    return Picked(
        branch=name,
        target=request.target,
        strategy=request.strategy,
        dry_run=request.dry_run,
        added=len(new),
        replaced=len(changed),
        removed=len(deactivated),
        skipped=skipped,
        snapshot_name=outcome.snapshot_name,
        items=page,
        next_cursor=next_cursor,
    )


async def apply(registry: Registry, caller: Caller, name: str, request: ApplyChanges) -> Applied:
    """POST /v1/branches/{name}/apply (Memoria's): a pick into main of the memories its
    entries name, conflicts left out unless accepted; which entries were applied."""
    if name == MAIN:
        raise Invalid("main is what branches are applied into: name a branch")
    outcome = Outcome(([], [], [], [], 0))
    if request.memory_ids:
        outcome = await run(
            registry,
            caller,
            name,
            Pick(memory_ids=request.memory_ids, strategy="skip"),
            frozenset(request.accept_branch_conflicts),
        )
    done = {item.memory_id for item in outcome.plan[3]}

    def applied(memory_id: str) -> bool:
        """Whether the memory, or (an accepted conflict) its correction, was applied."""
        return memory_id in done or outcome.corrections.get(memory_id) in done

    def split(entries: list[str]) -> tuple[list[str], list[str]]:
        return [e for e in entries if applied(e)], [e for e in entries if not applied(e)]

    adds, removes = split(request.adds), split(request.removes)
    conflicts = split(request.accept_branch_conflicts)
    return Applied(
        applied_adds=adds[0],
        skipped_adds=adds[1],
        applied_updates=[pair.label for pair in request.updates if pair.new_id in done],
        skipped_updates=[pair.label for pair in request.updates if pair.new_id not in done],
        applied_removes=removes[0],
        skipped_removes=removes[1],
        applied_conflicts=conflicts[0],
        skipped_conflicts=conflicts[1],
        snapshot_name=outcome.snapshot_name,
    )


async def _apply(
    registry: Registry,
    tx: Tx,
    seq: int,
    target: Scope,
    name: str,
    new: list[Row],
    replaced: list[Row],
) -> str | None:
    if not new and not replaced:
        return None
    safety = await snapshots.take_safety(
        tx,
        target.user_id,
        target.branch,
        seq,
        "pre_pick",
        f"before a pick from {name}",
        registry.settings.safety_snapshots_kept,
    )
    if new:
        await versions.copy(
            tx,
            seq,
            target.user_id,
            from_branch=name,
            to_branch=target.branch,
            state_seq=seq - 1,
            memory_ids=[props["memory_id"] for props in new],
        )
    await versions.replace(
        tx,
        seq,
        target.user_id,
        branch=target.branch,
        from_branch=name,
        changes=[(props["memory_id"], merge_plan.carried(props)) for props in replaced],
    )
    return safety
