"""/v1/capabilities."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import validate_response

from app.api.auth import require
from app.api.context import registry
from app.api.errors import USER_AUTH, error_statuses
from app.models.capabilities import Capabilities
from app.services import capabilities

blueprint = Blueprint("capabilities", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))


@blueprint.get("/capabilities")
@validate_response(Capabilities)
@error_statuses(*USER_AUTH)
async def show() -> Any:
    return await capabilities.capabilities(registry())
