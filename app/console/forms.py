"""Forms and query strings as the use cases' request models: a value that does not fit is a 422
page that says which field and why, as the API would."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, Field, ValidationError
from werkzeug.datastructures import MultiDict

from app.errors import Invalid, invalid_fields
from app.models.common import ISO_DATE, PageSize
from app.models.memories import (
    BranchName,
    MemoryQuery,
    MemoryType,
    MetadataValue,
    RetrieveRequest,
    TrustTier,
)

Model = TypeVar("Model", bound=BaseModel)
MEMORY_TYPES: tuple[str, ...] = get_args(MemoryType)
TRUST_TIERS: tuple[str, ...] = get_args(TrustTier)
PAGE_SIZE = 50
RESULTS_SHOWN = 10


def decoded(model: type[Model], values: Mapping[str, Any]) -> Model:
    """`values` as `model`, or Invalid naming the first field that does not fit."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as error:
        detail, _ = invalid_fields(error)
        raise Invalid(detail) from None


def filled(values: MultiDict[str, str], *names: str) -> dict[str, str]:
    """The named fields that were filled in (an empty field means "not given")."""
    return {name: values[name].strip() for name in names if values.get(name, "").strip()}


def metadata_value(text: str) -> MetadataValue:
    """A metadata value typed in a form: a JSON number, true, false or "quoted text" is that
    value (the filter tells 2 from "2"); anything else is the text as typed."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str | int | float | bool) else text


class MemoryFilters(BaseModel):
    """The memories page's filters and search box, and the moment it shows the memory as of
    (`as_of`: a snapshot's name or an ISO 8601 time, as the API takes it; none: now)."""

    q: str | None = None
    memory_type: MemoryType | None = None
    session_id: str | None = None
    subject_id: str | None = None
    trust_tier: TrustTier | None = None
    branch: BranchName | None = None
    as_of: str | None = None
    inactive: bool = False  # inactive memories too (deleted, corrected, quarantined)
    meta: list[str] = Field(default_factory=list)  # key=value, each one a filter
    cursor: str | None = None
    limit: PageSize = PAGE_SIZE

    @classmethod
    def of(cls, args: MultiDict[str, str]) -> MemoryFilters:
        """The filters of the page's query string. The "as of" picker sends a snapshot (or a
        time it showed before) as `as_of`, and a time picked in the browser's date and time
        field as `as_of_time` (no zone: UTC), which wins."""
        values: dict[str, Any] = filled(
            args,
            "q",
            "memory_type",
            "session_id",
            "subject_id",
            "trust_tier",
            "branch",
            "as_of",
            "cursor",
        )
        if args.get("as_of_time", "").strip():
            values["as_of"] = args["as_of_time"].strip()
        values["inactive"] = args.get("inactive") == "on"
        values["meta"] = [pair.strip() for pair in args.getlist("meta") if pair.strip()]
        return decoded(cls, values)

    @property
    def as_of_time(self) -> bool:
        """Whether `as_of` is a time (rather than a snapshot's name)."""
        return self.as_of is not None and ISO_DATE.match(self.as_of) is not None

    def metadata(self) -> dict[str, MetadataValue] | None:
        found: dict[str, MetadataValue] = {}
        for pair in self.meta:
            key, equals, value = pair.partition("=")
            if not equals or not key.strip():
                raise Invalid(f"metadata filter {pair!r}: write it as key=value")
            found[key.strip()] = metadata_value(value.strip())
        return found or None

    def listing(self) -> MemoryQuery:
        """The memories the filters keep, newest first (every type when none is chosen)."""
        return decoded(
            MemoryQuery,
            {
                "memory_types": [self.memory_type] if self.memory_type else list(MEMORY_TYPES),
                "session_id": self.session_id,
                "subject_id": self.subject_id,
                "trust_tier": self.trust_tier,
                "extra_metadata_filter": self.metadata(),
                "branch": self.branch,
                "as_of": self.as_of,
                "include_inactive": self.inactive,
                "cursor": self.cursor,
                "limit": self.limit,
            },
        )

    def search(self) -> RetrieveRequest:
        """A retrieve of the search box's text with the filters it takes, explained in full."""
        return decoded(
            RetrieveRequest,
            {
                "query": self.q,
                "top_k": RESULTS_SHOWN,
                "memory_types": [self.memory_type] if self.memory_type else None,
                "session_id": self.session_id,
                "subject_id": self.subject_id,
                "branch": self.branch,
                "as_of": self.as_of,
                "explain": "verbose",
            },
        )

    def query_args(self, **changes: Any) -> dict[str, Any]:
        """The filters as query-string arguments (for the next page's link)."""
        args = {
            "q": self.q,
            "memory_type": self.memory_type,
            "session_id": self.session_id,
            "subject_id": self.subject_id,
            "trust_tier": self.trust_tier,
            "branch": self.branch,
            "as_of": self.as_of,
            "inactive": "on" if self.inactive else None,
            "meta": self.meta or None,
            **changes,
        }
        return {name: value for name, value in args.items() if value is not None}
