"""Opaque cursors for keyset pagination."""

from __future__ import annotations

import base64
import binascii

from app.errors import Unparseable


def encode_cursor(last_key: str) -> str:
    return base64.urlsafe_b64encode(last_key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        raise Unparseable("cursor is not one this service issued") from error
