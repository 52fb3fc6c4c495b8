"""Shapes shared by several resources."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, TypeAdapter

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]
# A name that appears in paths (branches, snapshots).
Slug = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]
Note = Annotated[str, StringConstraints(max_length=1000)]  # a reason or a description
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


class Strict(BaseModel):
    """A request body: unknown fields are rejected so that typos do not pass silently."""

    model_config = ConfigDict(extra="forbid")


def exactly_one(names: str, *given: bool) -> None:
    """The check of a request that takes exactly one of several alternatives (`names` says
    which, `given` whether each is there): a validation error otherwise."""
    if sum(given) != 1:
        raise ValueError(f"give exactly one of {names}")
