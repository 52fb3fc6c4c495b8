"""The HTTP server the service runs on until a stop trigger: hypercorn (DESIGN.md's), or uvicorn
with the httptools parser (SERVER=uvicorn)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Literal

import uvicorn
from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config as HypercornConfig
from hypercorn.utils import LifespanFailureError, LifespanTimeoutError
from quart import Quart

ServerKind = Literal["hypercorn", "uvicorn"]
# How long the app's startup (migrations, the vector index, planning the hot paths) may take on
# a cold database before hypercorn gives up; uvicorn waits as long as it takes.
STARTUP_TIMEOUT_S = 300
# How long an idle keep-alive connection stays open. Longer than clients keep idle connections
# (httpx, Node and many pools: 5 s), so a client never sends on a connection the server is
# closing at that very moment (it then sees a disconnect instead of an answer); as nginx does.
KEEP_ALIVE_S = 75


class LifespanFailed(Exception):
    """The app's startup or shutdown failed: the process should exit non-zero."""


async def serve(
    app: Quart,
    host: str,
    port: int,
    stop: Callable[[], Awaitable[object]],
    graceful_timeout_s: int,
    server: ServerKind = "hypercorn",
) -> None:
    """Serves `app` until `stop()` returns, then finishes the requests in flight (at most
    `graceful_timeout_s`) and runs the app's shutdown."""
    if server == "uvicorn":
        await _serve_uvicorn(app, host, port, stop, graceful_timeout_s)
    else:
        await _serve_hypercorn(app, host, port, stop, graceful_timeout_s)


async def _serve_hypercorn(
    app: Quart,
    host: str,
    port: int,
    stop: Callable[[], Awaitable[object]],
    graceful_timeout_s: int,
) -> None:
    config = HypercornConfig()
    config.bind = [f"{host}:{port}"]
    config.accesslog = None  # the app logs every request itself
    config.errorlog = logging.getLogger("hypercorn.error")  # through the service's JSON lines
    config.include_server_header = False
    config.keep_alive_timeout = KEEP_ALIVE_S
    config.graceful_timeout = graceful_timeout_s
    config.startup_timeout = STARTUP_TIMEOUT_S
    # With a shutdown trigger hypercorn installs no signal handlers: the caller decides.
    try:
        await hypercorn_serve(app, config, shutdown_trigger=stop)
    except (LifespanFailureError, LifespanTimeoutError) as error:
        raise LifespanFailed(str(error)) from error


class _UvicornServer(uvicorn.Server):
    """uvicorn's server without its own signal handling: whoever starts it decides when it
    stops (its handlers would re-raise SIGTERM after the graceful stop, so a clean stop would
    exit with the signal instead of 0)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def _serve_uvicorn(
    app: Quart,
    host: str,
    port: int,
    stop: Callable[[], Awaitable[object]],
    graceful_timeout_s: int,
) -> None:
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http="httptools",
        lifespan="on",
        log_config=None,  # its messages go through the service's JSON lines
        access_log=False,  # the app logs every request itself
        server_header=False,
        timeout_keep_alive=KEEP_ALIVE_S,
        timeout_graceful_shutdown=graceful_timeout_s,
    )
    server = _UvicornServer(config)

    async def stop_when_asked() -> None:
        await stop()
        server.should_exit = True

    watcher = asyncio.create_task(stop_when_asked())
    try:
        await server.serve()
    finally:
        watcher.cancel()
    if not server.started:  # uvicorn logs the startup's error and returns
        raise LifespanFailed("the application's startup failed (see the log)")
