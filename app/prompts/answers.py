"""What every prompt's answer model shares: a lenient reading in which one bad item does not lose
the rest, and a count of the items left out (each answer says how many it dropped)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar

from pydantic import BaseModel, BeforeValidator, TypeAdapter, ValidationError, ValidationInfo

DROPPED = "dropped"  # the key of the validation context that counts the items left out


class Answer(BaseModel):
    """An LLM's answer to one prompt. `expected` says in words what an answer must hold (the
    error says so when it does not). Validated with a context {DROPPED: 0}, it counts there
    the items it left out."""

    expected: ClassVar[str]


def dropped(info: ValidationInfo, count: int) -> None:
    """Adds `count` items left out to the count of the answer being read."""
    if count and isinstance(info.context, dict) and DROPPED in info.context:
        info.context[DROPPED] += count


def valid_items(item: Any, required: bool = False, one_needed: bool = False) -> Any:
    """A validator that keeps the items of a list that are valid `item`s (a model or any type)
    and counts the others as dropped; anything but a list is no items, or an error when the
    list is `required` (the answer is then unusable). With `one_needed`, a list that had items
    and kept none is an error too: the item holding it is then left out itself (an answer about
    a memory whose every entity is unusable says nothing usable about that memory)."""
    adapter: TypeAdapter[Any] = TypeAdapter(item)

    def keep(items: object, info: ValidationInfo) -> list[Any]:
        if not isinstance(items, list):
            if required:
                raise ValueError("not a list")
            return []
        kept = []
        for entry in items:
            # Items left out inside an item count when the item is kept (else it counts once).
            inner = {DROPPED: 0}
            try:
                kept.append(adapter.validate_python(entry, context=inner))
            except ValidationError:
                dropped(info, 1)
                continue
            dropped(info, inner[DROPPED])
        if one_needed and items and not kept:
            raise ValueError("no item is valid")
        return kept

    return BeforeValidator(keep)


def one_of(choices: Collection[object], fallback: object) -> Any:
    """A validator that turns a value the prompt did not offer into `fallback`: not worth
    losing the item over."""
    return BeforeValidator(lambda value: value if value in choices else fallback)
