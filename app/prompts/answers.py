"""Lenient reading of LLM answers, shared by the prompts: one bad item does not lose the rest."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, BeforeValidator, ValidationError


def valid_items(model: type[BaseModel], required: bool = False) -> Any:
    """A validator that keeps the items of a list that are valid `model`s; anything but a list
    is no items, or an error when the list is `required` (the answer is then unusable)."""

    def keep(items: object) -> list[BaseModel]:
        if not isinstance(items, list):
            if required:
                raise ValueError("not a list")
            return []
        kept = []
        for item in items:
            try:
                kept.append(model.model_validate(item))
            except ValidationError:
                continue
        return kept

    return BeforeValidator(keep)


def one_of(choices: Collection[object], fallback: object) -> Any:
    """A validator that turns a value the prompt did not offer into `fallback`: not worth
    losing the item over."""
    return BeforeValidator(lambda value: value if value in choices else fallback)
