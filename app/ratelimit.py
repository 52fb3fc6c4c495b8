"""Rate-limit classes per API key over a moving 60-second window (the `limits` library)."""

from __future__ import annotations

import math
import time
from typing import Literal

from limits import RateLimitItemPerMinute
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from app.errors import RateLimited

OperationClass = Literal["store", "retrieve", "batch", "purge", "consolidate_reflect"]

PER_MINUTE: dict[OperationClass, int] = {
    "store": 300,
    "retrieve": 300,
    "batch": 60,
    "purge": 30,
    "consolidate_reflect": 10,
}


class RateLimiter:
    """Counts hits per (operation class, API key); the master key is never limited."""

    def __init__(self, storage_uri: str = "memory://", enabled: bool = True) -> None:
        uri = storage_uri if storage_uri.startswith("async+") else f"async+{storage_uri}"
        self._strategy = MovingWindowRateLimiter(storage_from_string(uri))
        self._items = {op: RateLimitItemPerMinute(n) for op, n in PER_MINUTE.items()}
        self.enabled = enabled

    async def hit(self, operation: OperationClass, key_id: str | None) -> None:
        """Counts one request; RateLimited with the seconds until a slot frees."""
        if not self.enabled or key_id is None:
            return
        item = self._items[operation]
        # The operation is part of the key: classes with equal limits keep separate windows.
        if await self._strategy.hit(item, operation, key_id):
            return
        stats = await self._strategy.get_window_stats(item, operation, key_id)
        retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        raise RateLimited(
            f"rate limit of {item.amount} {operation} requests per minute exceeded",
            retry_after_s=retry_after,
        )
