"""The governance page: quarantined memories (restored from the memories module), contradictions
side by side, the last runs and their cooldowns, feedback statistics and the retrieval
parameters; running governance or consolidate, and tuning the feedback weight."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from quart import Response, request

from app.api.context import registry
from app.console import pages
from app.console.forms import decoded, filled
from app.console.web import back_to, blueprint, caller, limited, notify, page
from app.models.feedback import TuneRequest
from app.services import feedback
from app.services.governance import consolidate, sweep


class Run(BaseModel):
    op: Literal["governance", "consolidate"]
    force: bool = False


@blueprint.get("/governance")
async def governance() -> Response:
    shown = await pages.governance_page(registry(), caller(), request.args.get("cursor") or None)
    return await page("governance.html", shown=shown)


@blueprint.post("/governance/run")
async def run() -> Response:
    form = await request.form
    asked = decoded(Run, {"op": form.get("op"), "force": form.get("force") == "on"})
    report: BaseModel
    if asked.op == "consolidate":
        await limited("consolidate_reflect")
        report = await consolidate.consolidate(
            registry(), caller(), force=asked.force, trigger="console"
        )
    else:
        report = await sweep.govern(registry(), caller(), force=asked.force, trigger="console")
    figures = ", ".join(
        f"{name.replace('_', ' ')} {value}"
        for name, value in report.model_dump().items()
        if name != "skipped" and value is not None
    )
    notify(f"{asked.op.capitalize()}: {figures}.")
    return back_to("console.governance")


@blueprint.post("/retrieval-params")
async def tune() -> Response:
    asked = decoded(TuneRequest, filled(await request.form, "feedback_weight"))
    result = await feedback.tune(registry(), caller(), asked.feedback_weight)
    notify(result.message or f"Feedback weight is now {result.current.feedback_weight}.")
    return back_to("console.governance")
