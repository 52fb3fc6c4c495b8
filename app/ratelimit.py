"""Rate-limit classes per API key over a moving 60-second window (the `limits` library)."""

from __future__ import annotations

import math
import time
from typing import Literal

from limits import RateLimitItemPerMinute
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from limits.storage import storage_from_string

from app import metrics
from app.errors import RateLimited, Unavailable

OperationClass = Literal["store", "retrieve", "batch", "purge", "consolidate_reflect"]

STORAGE_RETRY_AFTER_S = 5

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
        # Wrapped: a storage failure (Redis down) is one error type, answered as a 503.
        self._strategy = MovingWindowRateLimiter(storage_from_string(uri, wrap_exceptions=True))
        self._items = {op: RateLimitItemPerMinute(n) for op, n in PER_MINUTE.items()}
        self.enabled = enabled

    async def hit(self, operation: OperationClass, key_id: str | None) -> None:
        """Counts one request; RateLimited with the seconds until a slot frees."""
        if not self.enabled or key_id is None:
            return
        item = self._items[operation]
        try:
            # The operation is part of the key: classes with equal limits keep separate windows.
            if await self._strategy.hit(item, operation, key_id):
                return
            stats = await self._strategy.get_window_stats(item, operation, key_id)
        except StorageError as error:
            raise Unavailable(
                "the rate-limit storage is unavailable", retry_after_s=STORAGE_RETRY_AFTER_S
            ) from error
        metrics.RATE_LIMITED.labels(operation).inc()
        retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        raise RateLimited(
            f"rate limit of {item.amount} {operation} requests per minute exceeded",
            retry_after_s=retry_after,
        )
