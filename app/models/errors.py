"""The body of every error response."""

from __future__ import annotations

from pydantic import BaseModel


class FieldProblem(BaseModel):
    field: str
    problem: str


class ErrorBody(BaseModel):
    """An error: `detail` says what went wrong; a 422 on a request's fields lists them in `errors`.

    Readiness adds `status` and `instance_id` to its 503.
    """

    detail: str
    errors: list[FieldProblem] | None = None
