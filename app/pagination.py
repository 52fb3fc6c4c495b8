"""Keyset pagination, written once for every paged list: opaque cursors and the page they
ask for."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from app.errors import Unparseable

T = TypeVar("T")


def encode_cursor(last_key: str) -> str:
    return base64.urlsafe_b64encode(last_key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    """The key a cursor of encode_cursor() holds; Unparseable for anything else.

    Lenient base64 decoding would skip stray characters and turn garbage into a valid (often
    empty) key, silently restarting the listing; only the exact encoding of a key is accepted.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor.encode("ascii") + b"=" * (-len(cursor) % 4))
        last_key = raw.decode()
    except (binascii.Error, UnicodeError, ValueError) as error:
        raise Unparseable("cursor is not one this service issued") from error
    if not last_key or encode_cursor(last_key) != cursor:
        raise Unparseable("cursor is not one this service issued")
    return last_key


@dataclass(frozen=True)
class Paging:
    """One page of a list in key order: the items after `after` (all from the start when None),
    at most `limit` of them.

    A list reads `fetch` items (one more than the page) so that the extra one tells whether
    another page follows without a count.
    """

    after: str | None
    limit: int

    @classmethod
    def of(cls, cursor: str | None, limit: int) -> Paging:
        """The page a request's cursor (None or empty: the first) and limit ask for."""
        return cls(decode_cursor(cursor) if cursor else None, limit)

    @property
    def fetch(self) -> int:
        return self.limit + 1

    def page(self, fetched: list[T], key: Callable[[T], str]) -> tuple[list[T], str | None]:
        """The page of a fetch of up to `fetch` items in key order: its first `limit` items,
        and the cursor after them when more follow (else None)."""
        items = fetched[: self.limit]
        more = len(fetched) > self.limit
        return items, encode_cursor(key(items[-1])) if more else None
