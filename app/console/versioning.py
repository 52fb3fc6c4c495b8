"""The versioning pages: snapshots with their diff against now and a rollback that asks for
confirmation; branches with their diff against main, a merge, and a pick previewed (dry run)
before it is applied."""

from __future__ import annotations

from quart import Response, request

from app.api.context import registry
from app.console import pages
from app.console.forms import decoded, filled
from app.console.web import back_to, blueprint, caller, notify, page
from app.errors import Invalid
from app.models.branches import CreateBranch, Merge, Pick
from app.models.snapshots import CreateSnapshot
from app.services.versioning import branches, pick, snapshots


@blueprint.get("/versioning")
async def versioning() -> Response:
    shown = await pages.versioning_page(registry(), caller())
    return await page("versioning.html", shown=shown)


@blueprint.post("/snapshots")
async def create_snapshot() -> Response:
    asked = decoded(CreateSnapshot, filled(await request.form, "name", "description"))
    made = await snapshots.create(registry(), caller(), asked.name, asked.description, None)
    notify(f"Snapshot {made.name} taken of branch {made.branch}.")
    return back_to("console.versioning")


@blueprint.get("/snapshots/<name>")
async def snapshot(name: str) -> Response:
    shown = await pages.snapshot_page(registry(), caller(), name)
    return await page("snapshot.html", shown=shown)


def _confirmed(name: str, typed: str | None) -> None:
    if (typed or "").strip() != name:
        raise Invalid(f"type the name {name} to confirm")


@blueprint.post("/snapshots/<name>/rollback")
async def rollback(name: str) -> Response:
    _confirmed(name, (await request.form).get("confirm"))
    done = await snapshots.rollback(registry(), caller(), name)
    notify(
        f"Rolled branch {done.branch} back to {done.snapshot}: {done.ended} memories ended, "
        f"{done.restored} restored. Safety snapshot {done.safety_snapshot} holds the state before."
    )
    return back_to("console.versioning")


@blueprint.post("/snapshots/<name>/delete")
async def delete_snapshot(name: str) -> Response:
    _confirmed(name, (await request.form).get("confirm"))
    await snapshots.delete(registry(), caller(), name)
    notify(f"Snapshot {name} deleted.")
    return back_to("console.versioning")


@blueprint.post("/branches")
async def create_branch() -> Response:
    asked = decoded(CreateBranch, filled(await request.form, "name", "from_snapshot"))
    made = await branches.create(registry(), caller(), asked)
    notify(f"Branch {made.name} created.")
    return back_to("console.versioning")


@blueprint.post("/branches/<name>/checkout")
async def checkout(name: str) -> Response:
    done = await branches.checkout(registry(), caller(), name)
    notify(f"Checked out {done.active_branch}: the console and the API now work on it.")
    return back_to("console.versioning")


@blueprint.post("/branches/<name>/delete")
async def delete_branch(name: str) -> Response:
    _confirmed(name, (await request.form).get("confirm"))
    await branches.delete(registry(), caller(), name)
    notify(f"Branch {name} deleted.")
    return back_to("console.versioning")


@blueprint.get("/branches/<name>")
async def branch(name: str) -> Response:
    shown = await branches.diff(registry(), caller(), name)
    return await page("branch.html", name=name, diff=shown)


@blueprint.post("/branches/<name>/merge")
async def merge(name: str) -> Response:
    form = await request.form
    asked = decoded(Merge, filled(form, "strategy"))
    _confirmed(name, form.get("confirm"))
    done = await branches.merge(registry(), caller(), name, asked.strategy)
    notify(
        f"Merged {name} into main ({done.strategy}): {done.added} added, {done.replaced} "
        f"replaced, {done.removed} removed."
    )
    return back_to("console.versioning")


@blueprint.post("/branches/<name>/pick")
async def pick_changes(name: str) -> Response:
    """A dry run shows what the pick would do, with the form that applies it."""
    form = await request.form
    if not form.getlist("memory_ids"):
        raise Invalid("choose at least one memory to pick")
    asked = decoded(
        Pick,
        {
            "memory_ids": form.getlist("memory_ids"),
            "strategy": form.get("strategy") or "fail",
            "dry_run": form.get("dry_run") == "on",
        },
    )
    done = await pick.pick(registry(), caller(), name, asked)
    if done.dry_run:
        return await page("pick.html", name=name, asked=asked, preview=done)
    notify(
        f"Picked from {name} into {done.target}: {done.added} added, {done.replaced} replaced, "
        f"{done.removed} removed, {done.skipped} skipped. Safety snapshot {done.snapshot_name}."
    )
    return back_to("console.versioning")
