"""Rate limits per API key and operation class over a moving 60-second window."""

from __future__ import annotations

import pytest

from app.errors import RateLimited, status_of
from app.ratelimit import PER_MINUTE, OperationClass, RateLimiter

SPEC_LIMITS = {
    "store": 300,
    "retrieve": 300,
    "batch": 60,
    "purge": 30,
    "consolidate_reflect": 10,
}


def test_limits_are_those_of_the_spec() -> None:
    assert PER_MINUTE == SPEC_LIMITS


async def test_batch_allows_60_then_limits() -> None:
    limiter = RateLimiter("memory://")
    for _ in range(60):
        await limiter.hit("batch", "key-a")
    with pytest.raises(RateLimited) as caught:
        await limiter.hit("batch", "key-a")
    error = caught.value
    assert 1 <= error.retry_after_s <= 60
    assert status_of(error) == 429
    assert "batch" in error.detail
    # Still limited on the next attempt: refused hits do not open a slot.
    with pytest.raises(RateLimited):
        await limiter.hit("batch", "key-a")


async def test_another_key_is_unaffected() -> None:
    limiter = RateLimiter("memory://")
    for _ in range(60):
        await limiter.hit("batch", "key-a")
    with pytest.raises(RateLimited):
        await limiter.hit("batch", "key-a")
    for _ in range(60):
        await limiter.hit("batch", "key-b")
    with pytest.raises(RateLimited):
        await limiter.hit("batch", "key-b")


async def test_classes_are_counted_separately() -> None:
    limiter = RateLimiter("memory://")
    for _ in range(60):
        await limiter.hit("batch", "key-a")
    with pytest.raises(RateLimited):
        await limiter.hit("batch", "key-a")
    await limiter.hit("store", "key-a")
    await limiter.hit("retrieve", "key-a")
    await limiter.hit("purge", "key-a")


@pytest.mark.parametrize("operation", list(SPEC_LIMITS))
async def test_each_class_limit(operation: OperationClass) -> None:
    limiter = RateLimiter("memory://")
    for _ in range(SPEC_LIMITS[operation]):
        await limiter.hit(operation, "key")
    with pytest.raises(RateLimited):
        await limiter.hit(operation, "key")


async def test_master_key_is_never_limited() -> None:
    limiter = RateLimiter("memory://")
    for _ in range(200):
        await limiter.hit("batch", None)
        await limiter.hit("consolidate_reflect", None)


async def test_disabled_limiter_never_limits() -> None:
    limiter = RateLimiter("memory://", enabled=False)
    for _ in range(100):
        await limiter.hit("consolidate_reflect", "key")


async def test_limiters_do_not_share_memory_storage() -> None:
    first, second = RateLimiter("memory://"), RateLimiter("memory://")
    for _ in range(10):
        await first.hit("consolidate_reflect", "key")
    with pytest.raises(RateLimited):
        await first.hit("consolidate_reflect", "key")
    await second.hit("consolidate_reflect", "key")
