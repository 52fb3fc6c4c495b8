"""Opaque cursors for keyset pagination."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
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


def page_of(fetched: list[T], limit: int, key: Callable[[T], str]) -> tuple[list[T], str | None]:
    """A page from a fetch of up to `limit` + 1 items in key order: its first `limit` items, and
    the cursor after them when more follow (else None)."""
    page = fetched[:limit]
    return page, encode_cursor(key(page[-1])) if len(fetched) > limit else None
