"""/v1/tasks/{task_id}."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_response

from app.api.auth import caller, require
from app.api.context import registry
from app.api.errors import USER_AUTH, error_statuses
from app.models.tasks import Task
from app.services import tasks

blueprint = Blueprint("tasks", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.get("/tasks/<task_id>")
@validate_response(Task)
@error_statuses(*USER_AUTH, 404)
async def get_task(task_id: str) -> Any:
    return await tasks.get(registry(), caller(), task_id)
