"""The memories pages: the filtered list and the explained search, one memory with its history,
entities and feedback, and what can be done to it (correct, delete, feedback, restore)."""

from __future__ import annotations

from quart import Response, request

from app.api.context import registry
from app.console import pages
from app.console.forms import MEMORY_TYPES, TRUST_TIERS, MemoryFilters, decoded, filled
from app.console.web import back_to, blueprint, caller, limited, notify, page
from app.models.feedback import SIGNALS, NewFeedback
from app.models.memories import CorrectById, DeleteQuery
from app.models.oversight import Restore
from app.services import feedback, memories
from app.services.governance import quarantine


@blueprint.get("/memories")
async def memories_list() -> Response:
    filters = MemoryFilters.of(request.args)
    if filters.q:
        await limited("retrieve")
    shown = await pages.memories_page(registry(), caller(), filters)
    return await page(
        "memories.html", shown=shown, memory_types=MEMORY_TYPES, trust_tiers=TRUST_TIERS
    )


@blueprint.get("/memories/<memory_id>")
async def memory(memory_id: str) -> Response:
    branch = request.args.get("branch") or None
    shown = await pages.memory_page(registry(), caller(), memory_id, branch)
    return await page("memory.html", shown=shown, signals=SIGNALS)


@blueprint.post("/memories/<memory_id>/correct")
async def correct(memory_id: str) -> Response:
    form = await request.form
    change = decoded(CorrectById, filled(form, "new_content", "reason", "branch"))
    await limited("store")
    corrected = await memories.correct(registry(), caller(), memory_id, change)
    notify("Corrected: this is the new version; the old one is in its history.")
    return back_to("console.memory", memory_id=corrected.memory_id, branch=change.branch)


@blueprint.post("/memories/<memory_id>/delete")
async def delete(memory_id: str) -> Response:
    form = await request.form
    query = decoded(DeleteQuery, filled(form, "reason", "branch"))
    await limited("store")
    deleted = await memories.delete(registry(), caller(), memory_id, query)
    notify(f"Deleted; safety snapshot {deleted.snapshot_name} holds it as it was.")
    return back_to("console.memory", memory_id=memory_id, branch=query.branch)


@blueprint.post("/memories/<memory_id>/feedback")
async def give_feedback(memory_id: str) -> Response:
    form = await request.form
    signal = decoded(NewFeedback, filled(form, "signal", "context", "branch"))
    recorded = await feedback.record(registry(), caller(), memory_id, signal)
    notify(f"Feedback recorded: {recorded.signal}.")
    return back_to("console.memory", memory_id=memory_id, branch=signal.branch)


@blueprint.post("/memories/<memory_id>/restore")
async def restore(memory_id: str) -> Response:
    form = await request.form
    asked = decoded(Restore, filled(form, "reason", "branch"))
    await quarantine.restore(registry(), caller(), memory_id, asked)
    notify("Restored from quarantine: the memory is active again, as observed now.")
    return back_to("console.governance")
