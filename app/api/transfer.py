"""/v1/export and /v1/import: one user's state as JSON Lines, out and in."""

from __future__ import annotations

from quart import Blueprint, Response, request
from quart_schema import document_response, validate_response

from app.api.auth import caller, limited, require
from app.api.context import registry as current_registry
from app.api.errors import USER_AUTH, error_statuses
from app.models.transfer import MEDIA_TYPE, ExportStream, Imported
from app.services.transfer import export_import

blueprint = Blueprint("transfer", __name__, url_prefix="/v1")
blueprint.before_request(require("user"))
IMPORT_PATH = "/v1/import"  # its body limit is IMPORT_MAX_BYTES (see create_app)


@blueprint.get("/export")
@document_response(ExportStream)
@error_statuses(*USER_AUTH, 429)
@limited("batch")
async def export() -> Response:
    """The caller's memories (every branch, with their history and links), entities,
    feedback, snapshots, branches and retrieval parameters as JSON Lines, streamed."""
    lines = await export_import.export(current_registry(), caller())
    response = Response(lines, mimetype=MEDIA_TYPE)
    response.timeout = None  # a large user takes longer than RESPONSE_TIMEOUT to send
    return response


@blueprint.post("/import")
@validate_response(Imported)
@error_statuses(*USER_AUTH, 409, 413, 429)
@limited("batch")
async def import_file() -> Imported:
    """Loads an export (JSON Lines, up to IMPORT_MAX_BYTES) into the caller, all or nothing:
    422 lists every bad line, 409 when the caller holds memories, snapshots or branches the
    file does not. Importing the same file again changes nothing."""
    return await export_import.import_file(current_registry(), caller(), request.body)
