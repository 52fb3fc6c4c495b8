"""Domain errors and the one table that maps them to HTTP statuses and {"detail": ...} bodies."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


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


class Gone(DomainError):
    """What the request asks for existed but is no longer kept (history garbage collection
    took)."""


class TooLarge(DomainError):
    """The request body is over the size limit."""


class RateLimited(DomainError):
    """Too many requests of one class in the window."""

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s


class Unavailable(DomainError):
    """A dependency (Neo4j, the LLM) cannot serve the request now; `retry_after_s`, when set,
    says when a retry may succeed (answered as a Retry-After header)."""

    def __init__(self, detail: str, retry_after_s: int | None = None, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.retry_after_s = retry_after_s


# What a client is told to wait during a database outage: about the time a driver needs to
# notice that a restarted database answers again.
DATABASE_RETRY_AFTER_S = 5


def database_unavailable() -> Unavailable:
    """The database cannot be reached (down, restarting, unreachable): 503 with Retry-After."""
    return Unavailable("the database is unavailable", retry_after_s=DATABASE_RETRY_AFTER_S)


# What a client is told to wait after the LLM failed it (unless the LLM said when to come back):
# long enough for a rate limit or an overloaded model to pass, short enough to retry by hand.
LLM_RETRY_AFTER_S = 30


def llm_unavailable(detail: str, retry_after_s: int | None = None) -> Unavailable:
    """The configured LLM failed a request (no answer in time, an error, an unusable answer):
    503 with Retry-After, the LLM's own when it gave one."""
    return Unavailable(detail, retry_after_s=retry_after_s or LLM_RETRY_AFTER_S)


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
    Gone: 410,
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


def headers_of(error: DomainError) -> dict[str, str]:
    """The HTTP headers an error's answer carries besides its status: when to retry (a 429, a
    503 expected to pass) and, for a 401, the credential scheme to use."""
    headers: dict[str, str] = {}
    if isinstance(error, RateLimited | Unavailable) and error.retry_after_s is not None:
        headers["Retry-After"] = str(error.retry_after_s)
    if isinstance(error, Unauthenticated):
        headers["WWW-Authenticate"] = "Bearer"
    return headers


def invalid_fields(error: ValidationError) -> tuple[str, list[dict[str, str]]]:
    """A request's validation failure as its detail (the first problem) and every problem by
    field, worded the same for REST bodies and MCP tool arguments."""
    fields = [
        {
            "field": ".".join(str(part) for part in problem["loc"]) or "body",
            "problem": problem["msg"],
        }
        for problem in error.errors(include_url=False)
    ]
    first = fields[0]
    return f"{first['field']}: {first['problem']}", fields
