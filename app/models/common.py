"""Shapes shared by several resources."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Annotated, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
)

MAX_NAME_CHARS = 128
Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS)
]
# A name that appears in paths (branches, snapshots).
Slug = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]
Note = Annotated[str, StringConstraints(max_length=1000)]  # a reason or a description
INT64_MAX = 2**63 - 1  # Neo4j stores integers in 64 bits
# The largest integer every JSON client reads exactly: the bound of counters and offsets, far
# past any real count, so that arithmetic on them (SKIP plus LIMIT, seq + 1) stays in 64 bits.
SAFE_INT_MAX = 2**53 - 1
Scalar = TypeVar("Scalar")
PAGE_SIZE_DEFAULT = 50
PageSize = Annotated[int, Field(ge=1, le=500)]
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
LAX_DATETIME = TypeAdapter(datetime)


def _iso_8601(value: object) -> object:
    """Parses ISO 8601 text here: request bodies are validated strictly, and a strict datetime
    takes no text, while a lax one would also read a number (or digits) as Unix seconds."""
    if isinstance(value, str) and ISO_DATE.match(value):
        try:
            return LAX_DATETIME.validate_python(value)
        except ValueError:
            pass  # the message below says more than pydantic's
    elif isinstance(value, datetime):
        return value
    raise ValueError("must be an ISO 8601 timestamp such as 2024-05-01T12:00:00Z")


IsoTimestamp = Annotated[datetime, BeforeValidator(_iso_8601)]


def _utc(value: datetime) -> datetime:
    """Timestamps without a zone are UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


UtcTimestamp = Annotated[IsoTimestamp, AfterValidator(_utc)]


def storable(value: Scalar) -> Scalar:
    """A scalar as Neo4j stores it and JSON carries it back: 64-bit integers, finite floats."""
    if isinstance(value, int) and not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise ValueError("integers must fit in 64 bits")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite")
    return value


class Strict(BaseModel):
    """A request body: unknown fields are rejected so that typos do not pass silently, and a
    number too large for a float (1e400 reads as infinity) is no number."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def exactly_one(names: str, *given: bool) -> None:
    """The check of a request that takes exactly one of several alternatives (`names` says
    which, `given` whether each is there): a validation error otherwise."""
    if sum(given) != 1:
        raise ValueError(f"give exactly one of {names}")
