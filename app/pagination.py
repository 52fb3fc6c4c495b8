"""Opaque cursors for keyset pagination."""

from __future__ import annotations

import base64
import binascii

from app.errors import Unparseable


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
