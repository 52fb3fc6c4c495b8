"""Memoria's clients against the service: its Python SDK (`memoria-client`, sync and async) for
a fresh user, its calls made the same way whichever client it is, and plain HTTP for the
requests of Memoria's other clients that the tests replay."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

import httpx
from memoria import AsyncMemoriaClient, MemoriaClient

from tests.support.service_process import new_user

Kind = Literal["sync", "async"]
Client = MemoriaClient | AsyncMemoriaClient
KINDS: tuple[Kind, ...] = ("sync", "async")


async def call(method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Calls a method of either client: an async one is awaited, a sync one runs in a thread
    (the service under test serves from this event loop, which a blocking call would stall)."""
    if inspect.iscoroutinefunction(method):
        return await method(*args, **kwargs)
    return await asyncio.to_thread(method, *args, **kwargs)


@contextlib.asynccontextmanager
async def sdk_client(base_url: str, kind: Kind, prefix: str) -> AsyncIterator[Client]:
    """A client of the kind for a fresh user (no retries: a failure shows at once), used as the
    context manager it is, which closes it after the block (close() or aclose())."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        _, raw_key = await new_user(http, prefix)
    if kind == "sync":
        with MemoriaClient(base_url, raw_key, max_retries=0) as sync:
            yield sync
    else:
        async with AsyncMemoriaClient(base_url, raw_key, max_retries=0) as asynchronous:
            yield asynchronous


@contextlib.asynccontextmanager
async def replaying(base_url: str, prefix: str, headers: dict[str, str]) -> AsyncIterator[Rest]:
    """Plain HTTP as a fresh user, with a client's own headers (its bearer key added)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        user_id, raw_key = await new_user(http, prefix)
        http.headers.update({**headers, "Authorization": f"Bearer {raw_key}"})
        yield Rest(http, user_id)


class Rest:
    """Requests as a client sends them: each must succeed, and its JSON body is returned."""

    def __init__(self, http: httpx.AsyncClient, user_id: str) -> None:
        self.http = http
        self.user_id = user_id

    async def __call__(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        sent = {} if body is None else {"json": body}
        response = await self.http.request(method, path, **sent, **kwargs)
        assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
        return response.json() if response.content else None
