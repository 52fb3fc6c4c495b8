"""Domain errors and the one table that maps them to HTTP statuses and {"detail": ...} bodies."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """An error a client can act on; `detail` is safe to show."""

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class Unparseable(DomainError):
    """The request cannot be parsed (bad JSON, wrong content type, unparseable parameter)."""


class Invalid(DomainError):
    """The request parses but a value is invalid."""


class Unauthenticated(DomainError):
    """No credential, or one that is unknown, revoked or expired."""


class Forbidden(DomainError):
    """A valid credential without permission for this route."""


class NotFound(DomainError):
    """The resource does not exist or belongs to someone else."""


class Conflict(DomainError):
    """The request clashes with the current state (duplicate name, limit reached)."""


class TooLarge(DomainError):
    """The request body is over the size limit."""


class RateLimited(DomainError):
    """Too many requests of one class in the window."""

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s


class Unavailable(DomainError):
    """A dependency (Neo4j, the LLM) cannot serve the request now."""


NO_LLM = "no LLM is configured"


def no_llm(feature: str, candidates_route: str | None = None) -> Unavailable:
    """What an LLM feature answers without an LLM, with its LLM-free candidates if it has any."""
    if candidates_route is None:
        return Unavailable(f"{NO_LLM} for {feature}: set LLM_API_KEY")
    return Unavailable(
        f'{NO_LLM} for {feature}: use {{"mode": "candidates"}} or {candidates_route}'
    )


STATUS_BY_ERROR: dict[type[DomainError], int] = {
    Unparseable: 400,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    TooLarge: 413,
    Invalid: 422,
    RateLimited: 429,
    Unavailable: 503,
}


def status_of(error: DomainError) -> int:
    """The HTTP status of a domain error (its nearest mapped ancestor)."""
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return 500
