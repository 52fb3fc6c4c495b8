"""Probe responses."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, RootModel


class Alive(RootModel[Literal["ok"]]):
    """The text ok."""

    media_type: ClassVar[str] = "text/plain"


class Ready(BaseModel):
    status: Literal["ok"]
    instance_id: str
