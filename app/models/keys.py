"""API key requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, RootModel, StringConstraints

from app.models.common import IsoTimestamp, Name, Strict


def _zoned(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("must have a time zone")
    return value


class CreateKey(Strict):
    user_id: Name
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    expires_at: Annotated[IsoTimestamp, AfterValidator(_zoned)] | None = None


class ApiKey(BaseModel):
    key_id: str = Field(validation_alias="id")
    user_id: str
    name: str
    prefix: str
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None


class ApiKeyList(RootModel[list[ApiKey]]):
    """API keys, newest first."""


class IssuedKey(ApiKey):
    """A key as issued: the only time its raw value is shown."""

    raw_key: str


class RevokedKeys(BaseModel):
    user_id: str
    revoked: int
