"""create_app(): the one composition root (registry, startup checks, scheduler, task worker,
blueprints, the MCP endpoint)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable

from quart import Quart
from quart_schema import QuartSchema

from app import console, logs, query_names
from app.api import (
    admin,
    branches,
    capabilities,
    context,
    docs,
    entities,
    feedback,
    governance,
    health,
    keys,
    memories,
    plugins,
    snapshots,
    summaries,
    transfer,
)
from app.api import errors as http_errors
from app.api import metrics as metrics_routes  # the package's `metrics` is app.metrics
from app.api import tasks as task_routes  # app.tasks, the worker, binds `tasks` in this package
from app.api.access import AccessLayer, name_routes
from app.api.bodies import JsonRequest
from app.api.openapi import BEARER, OpenApi
from app.config import Settings
from app.embedding import Embedder
from app.errors import Unavailable
from app.graph import Graph
from app.mcp.http import McpEndpoint
from app.metrics import serve_separately as serve_metrics
from app.migrations import apply as apply_migrations
from app.migrations import ensure_vector_index
from app.registry import Registry
from app.scheduler import Scheduler
from app.services import reembed, warm_up
from app.tasks import TaskWorker

log = logging.getLogger(__name__)
STARTUP_WAIT_S = 60


async def _wait_for_database(graph: Graph) -> None:
    for _ in range(STARTUP_WAIT_S):
        try:
            await graph.probe("health/ping")
            return
        except Unavailable:
            await asyncio.sleep(1)
    await graph.probe("health/ping")


def create_app(settings: Settings | None = None, embedder: Embedder | None = None) -> Quart:
    """Builds the service; nothing touches the network until it starts serving.

    Tests and benchmarks pass one `embedder` to many apps so the model loads once.
    """
    registry = Registry.build(settings or Settings(), embedder)  # Settings() reads the env
    query_names.check(registry.graph.query_names)
    logs.configure()

    app = Quart(__name__)
    # An import carries a whole user's export: it has its own body limit.
    app.request_class = JsonRequest.allowing(
        {("POST", transfer.IMPORT_PATH): registry.settings.import_max_bytes}
    )
    app.config["MAX_CONTENT_LENGTH"] = registry.settings.max_body_bytes
    # Response models are dumped as JSON values (ISO timestamps, not HTTP dates).
    app.config["QUART_SCHEMA_PYDANTIC_DUMP_OPTIONS"] = {"mode": "json"}
    QuartSchema(
        app,
        openapi_path=docs.OPENAPI_PATH,
        info={"title": "Memory service", "version": "1"},
        openapi_provider_class=OpenApi,
        # One header for both credentials: /docs then has an "Authorize" button for it.
        security_schemes={"bearer": BEARER},
        security=[{"bearer": []}],
        # Its viewers load their files from CDNs: app/api/docs.py serves them from the service.
        swagger_ui_path=None,
        redoc_ui_path=None,
        scalar_ui_path=None,
    )
    app.extensions[context.EXTENSION] = registry

    scheduler = Scheduler(registry) if registry.settings.scheduler_enabled else None
    worker = TaskWorker(registry) if registry.settings.task_worker_enabled else None

    for module in (
        docs,
        health,
        keys,
        admin,
        metrics_routes,
        capabilities,
        memories,
        snapshots,
        branches,
        feedback,
        entities,
        governance,
        summaries,
        task_routes,
        plugins,
        transfer,
    ):
        app.register_blueprint(module.blueprint)
    if registry.settings.console_enabled:
        console.register(app, registry.settings)
    http_errors.register(app)
    mcp = McpEndpoint(app, registry)
    # Quart's documented hook for ASGI middleware (Quart types it with hypercorn's scope types).
    app.asgi_app = AccessLayer(mcp)  # type: ignore[assignment]
    name_routes(app)

    @app.while_serving
    async def mcp_sessions() -> AsyncGenerator[None, None]:
        async with mcp.serving():
            yield

    stops: list[Callable[[], None]] = []
    background: list[asyncio.Task[None]] = []

    @app.before_serving
    async def start() -> None:
        await _wait_for_database(registry.graph)
        await apply_migrations(registry.graph)
        # An embeddings endpoint tells its dimension here; a model that is not the data's stops
        # startup with what to do.
        await registry.embedder.start()
        await ensure_vector_index(registry.graph, registry.embedder.dimensions)
        await reembed.check_model(registry)
        watching = await warm_up.warm_and_watch(registry)
        if watching is not None:
            background.append(watching)
        if registry.settings.metrics_port:
            stops.append(
                serve_metrics(registry.settings.metrics_host, registry.settings.metrics_port)
            )
        if scheduler is not None:
            await scheduler.start()
        if worker is not None:
            await worker.start()
        log.info("memory service %s ready", registry.instance_id)

    @app.after_serving
    async def stop() -> None:
        for stop_serving in stops:
            stop_serving()
        for task in background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if worker is not None:
            await worker.stop()
        if scheduler is not None:
            await scheduler.stop()
        await registry.close()

    return app
