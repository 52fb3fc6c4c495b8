"""Shapes shared by several resources."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StringConstraints,
    TypeAdapter,
    WithJsonSchema,
    model_validator,
)
from pydantic.fields import FieldInfo

MAX_NAME_CHARS = 128
Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS)
]
# A name that appears in paths (branches, snapshots).
SLUG_PATTERN = r"^[A-Za-z0-9_.\-]{1,64}$"
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN)]
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


def _as_of(value: object) -> datetime | str:
    """A past moment to read: ISO 8601 text is a time (no zone: UTC), anything else the name of
    a snapshot."""
    if isinstance(value, datetime):
        return _utc(value)
    if isinstance(value, str) and ISO_DATE.match(value):
        try:
            return _utc(LAX_DATETIME.validate_python(value))
        except ValueError:
            pass  # the message below says more than pydantic's
    elif isinstance(value, str) and re.match(SLUG_PATTERN, value):
        return value
    raise ValueError(
        "must be an ISO 8601 time such as 2024-05-01T12:00:00Z, or the name of a snapshot"
    )


# `as_of`: the state of the user's memory a read shows, as it stood at a time (the record time:
# when versions were written) or at a snapshot. A datetime for a time, a str for a snapshot name.
AsOf = Annotated[
    datetime | str,
    PlainValidator(_as_of),
    WithJsonSchema(
        {
            "type": "string",
            "description": "an ISO 8601 time (record time; no zone means UTC) or a snapshot name",
            "examples": ["2024-05-01T12:00:00Z", "before-cleanup"],
        }
    ),
]


def storable(value: Scalar) -> Scalar:
    """A scalar as Neo4j stores it and JSON carries it back: 64-bit integers, finite floats."""
    if isinstance(value, int) and not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise ValueError("integers must fit in 64 bits")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite")
    return value


def _nullable_optionals(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Documents what Strict reads: null in every optional field."""
    for name, prop in schema.get("properties", {}).items():
        field = model.model_fields.get(name)
        if field is None or not _defaults_to_a_value(field):
            continue
        kept = {key: prop.pop(key) for key in ("default", "description", "title") if key in prop}
        schema["properties"][name] = {"anyOf": [prop, {"type": "null"}], **kept}


class Strict(BaseModel):
    """A request body: unknown fields are rejected so that typos do not pass silently, and a
    number too large for a float (1e400 reads as infinity) is no number.

    An optional field given as JSON null was not given (Memoria's clients send null for every
    argument they lack): it takes its default. A required field's null stays an error, and a
    field whose default is null reads null as that value anyway."""

    model_config = ConfigDict(
        extra="forbid", allow_inf_nan=False, json_schema_extra=_nullable_optionals
    )

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_given(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        return {
            key: value
            for key, value in data.items()
            if value is not None or key not in fields or not _defaults_to_a_value(fields[key])
        }


def _defaults_to_a_value(field: FieldInfo) -> bool:
    """Whether a field is optional with a default other than null."""
    if field.default_factory is not None:
        return True
    return not field.is_required() and field.default is not None


# How a request that can use an LLM runs: `llm` (Memoria calls it `internal`) needs one (503
# without); `candidates` never uses one and answers what the calling agent needs to finish the
# job; `auto` (Memoria's clients' default) uses the LLM when one is configured, else answers
# the candidates.
LlmMode = Literal["llm", "internal", "candidates", "auto"]


def answers_candidates(mode: LlmMode, llm_configured: bool) -> bool:
    """Whether a request in this mode answers the candidates rather than calling the LLM."""
    return mode == "candidates" or (mode == "auto" and not llm_configured)


def exactly_one(names: str, *given: bool) -> None:
    """The check of a request that takes exactly one of several alternatives (`names` says
    which, `given` whether each is there): a validation error otherwise."""
    if sum(given) != 1:
        raise ValueError(f"give exactly one of {names}")
