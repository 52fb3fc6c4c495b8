"""Shapes shared by several resources."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

UserId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]


class Strict(BaseModel):
    """A request body: unknown fields are rejected so that typos do not pass silently."""

    model_config = ConfigDict(extra="forbid")
