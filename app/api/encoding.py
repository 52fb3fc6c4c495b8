"""Turns service results (pydantic models, lists of them) into JSON-ready values."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def to_json(value: Any) -> Any:
    """Models dumped in JSON mode (ISO timestamps); lists and dicts walked."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value
