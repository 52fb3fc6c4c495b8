"""Identity: time-ordered ids (memories, audit events) and the fingerprint that spots exact
duplicate memories."""

from __future__ import annotations

import hashlib
import os
import time

COUNTER_BITS = 12  # rand_a of RFC 9562 used as a counter within one millisecond
_last_stamp = (0, 0)  # (millis, counter) of the last id this process issued


def time_ordered_id() -> str:
    """A UUIDv7 as 32 lowercase hex: time-ordered, so id order is creation order.

    Within one millisecond the 12-bit rand_a field counts up (RFC 9562, method 1), so ids
    issued by this process in one batch also sort in the order they were issued.
    """
    global _last_stamp
    millis = time.time_ns() // 1_000_000
    last_millis, last_counter = _last_stamp
    if millis > last_millis:
        counter = int.from_bytes(os.urandom(2), "big") >> (16 - COUNTER_BITS + 1)  # lower half
    elif last_counter + 1 < 1 << COUNTER_BITS:
        millis, counter = last_millis, last_counter + 1
    else:  # counter exhausted: borrow the next millisecond
        millis, counter = last_millis + 1, 0
    _last_stamp = (millis, counter)
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= counter << 64
    value |= 0x2 << 62  # RFC 9562 variant bits
    value |= int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    return f"{value:032x}"


def fingerprint(
    memory_type: str, subject_id: str | None, content: str, session_id: str | None = None
) -> str:
    """What makes two memories exact duplicates (same user and branch assumed); with a
    `session_id`, only a memory of that session is one (a session's summary)."""
    session = "" if session_id is None else f"\x00{session_id}"
    text = f"{memory_type}\x00{subject_id or ''}\x00{content}{session}"
    return hashlib.sha256(text.encode()).hexdigest()
