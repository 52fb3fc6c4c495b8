"""A TCP forwarder on 127.0.0.1 that can be cut and restored, to simulate a database outage."""

from __future__ import annotations

import asyncio
import contextlib


class TcpForwarder:
    """Forwards connections from 127.0.0.1:<port> to a target; stop() drops every connection.

    The listening port is chosen on the first start() and kept across restarts, so clients
    configured with it reconnect once the forwarder is started again.
    """

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    @property
    def serving(self) -> bool:
        return self._server is not None

    async def start(self) -> None:
        assert self._server is None, "already started"
        self._server = await asyncio.start_server(
            self._accept, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stops listening and cuts every open connection, in both directions."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._writers.clear()
        if server is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 2)

    async def _accept(
        self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
    ) -> None:
        self._writers.add(client_writer)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                self.target_host, self.target_port
            )
        except OSError:
            client_writer.transport.abort()
            self._writers.discard(client_writer)
            return
        self._writers.add(upstream_writer)
        for source, sink in ((client_reader, upstream_writer), (upstream_reader, client_writer)):
            task = asyncio.ensure_future(self._pipe(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            sink.transport.abort()
            self._writers.discard(sink)
