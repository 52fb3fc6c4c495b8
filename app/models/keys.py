"""API key requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field, RootModel, StringConstraints

from app.models.common import Name, Strict, UtcTimestamp


class CreateKey(Strict):
    user_id: Name
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    expires_at: UtcTimestamp | None = None


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
