"""The HTTP face of errors: every failure becomes a status and a {"detail": "..."} body."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError
from quart import Quart, Response, jsonify
from quart_schema import RequestSchemaValidationError, document_response
from quart_schema.validation import QuerystringValidationError
from werkzeug.exceptions import HTTPException

from app.errors import DomainError, headers_of, invalid_fields, status_of
from app.models.errors import ErrorBody

log = logging.getLogger(__name__)
Handler = TypeVar("Handler", bound=Callable[..., Any])

HTTP_DETAILS = {
    400: "the request could not be parsed (malformed JSON or parameter)",
    404: "not found",
    405: "method not allowed",
    413: "request body is too large",
    415: "the request body must be a JSON object (Content-Type: application/json)",
}
PARSE_ERROR_TYPES = ("json_invalid", "int_parsing", "float_parsing", "bool_parsing")


# Error statuses shared by many routes.
USER_AUTH = (401, 403, 422, 503)  # key or master key + X-User-Id (422 without it); database down
MASTER_AUTH = (401, 403, 503)
JSON_BODY = (400, 413, 422)
QUERY_STRING = (400, 422)


def error_statuses(*statuses: int) -> Callable[[Handler], Handler]:
    """Documents the error statuses a route can answer, each with an ErrorBody."""

    def document(handler: Handler) -> Handler:
        for status in statuses:
            handler = document_response(ErrorBody, status)(handler)
        return handler

    return document


def _error(status: int, detail: str, **extra: Any) -> Response:
    response = jsonify({"detail": detail, **extra})
    response.status_code = status
    return response


def _validation_response(error: RequestSchemaValidationError) -> Response:
    cause = error.validation_error
    if not isinstance(cause, ValidationError):
        return _error(400, HTTP_DETAILS[415])
    problems = cause.errors(include_url=False)
    if any(problem["type"] == "model_type" and not problem["loc"] for problem in problems):
        return _error(400, HTTP_DETAILS[415])
    detail, fields = invalid_fields(cause)
    unparseable = isinstance(error, QuerystringValidationError) and any(
        problem["type"] in PARSE_ERROR_TYPES for problem in problems
    )
    return _error(400 if unparseable else 422, detail, errors=fields)


def register(app: Quart) -> None:
    """Installs the handlers; nothing else in the code base turns errors into responses."""

    @app.errorhandler(DomainError)
    async def domain_error(error: DomainError) -> Response:
        response = _error(status_of(error), error.detail, **error.extra)
        response.headers.update(headers_of(error))
        return response

    @app.errorhandler(RequestSchemaValidationError)
    async def schema_error(error: RequestSchemaValidationError) -> Response:
        return _validation_response(error)

    @app.errorhandler(HTTPException)
    async def http_error(error: HTTPException) -> Response:
        status = error.code or 500
        return _error(status, HTTP_DETAILS.get(status, error.name.lower()))

    @app.errorhandler(Exception)
    async def unexpected(error: Exception) -> Response:
        log.exception("unhandled error", exc_info=error)
        return _error(500, "internal error")
