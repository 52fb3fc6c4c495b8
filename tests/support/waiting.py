"""Waiting for something to happen, with a generous timeout as the only guard: a test waits for
an event, it never measures how long the event took."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

POLL_S = 0.2


async def wait_for(
    what: str,
    check: Callable[[], Awaitable[Any]],
    timeout_s: float,
    account: Callable[[], str] = lambda: "",
) -> Any:
    """Polls `check` until it returns something truthy, and returns that; AssertionError naming
    `what` (and `account()`, e.g. the logs of the processes involved) after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what} ({timeout_s:g} s)\n{account()}")
        await asyncio.sleep(POLL_S)
