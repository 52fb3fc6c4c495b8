"""The HTTP server the service runs on: uvicorn with the httptools parser, until a stop trigger."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator

import uvicorn
from quart import Quart


class _Server(uvicorn.Server):
    """uvicorn's server without its own signal handling: whoever starts it decides when it
    stops (its handlers would re-raise SIGTERM after the graceful stop, so a clean stop would
    exit with the signal instead of 0)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(
    app: Quart,
    host: str,
    port: int,
    stop: Callable[[], Awaitable[object]],
    graceful_timeout_s: int,
) -> None:
    """Serves `app` until `stop()` returns, then finishes the requests in flight (at most
    `graceful_timeout_s`) and runs the app's shutdown."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http="httptools",
        lifespan="on",
        log_config=None,  # its messages go through the service's JSON lines
        access_log=False,  # the app logs every request itself
        server_header=False,
        timeout_graceful_shutdown=graceful_timeout_s,
    )
    server = _Server(config)

    async def stop_when_asked() -> None:
        await stop()
        server.should_exit = True

    watcher = asyncio.create_task(stop_when_asked())
    try:
        await server.serve()
    finally:
        watcher.cancel()
