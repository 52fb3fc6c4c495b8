"""create_app(): the one composition root (settings, driver, embedder, scheduler, blueprints)."""

from __future__ import annotations

import asyncio
import logging
import socket
import uuid

from quart import Quart
from quart_schema import QuartSchema

from app.api import admin, branches, feedback, health, keys, memories, snapshots
from app.api import errors as http_errors
from app.config import Settings
from app.deps import Deps
from app.embedder import Embedder, SentenceTransformerEmbedder
from app.errors import Unavailable
from app.graph import Graph
from app.llm import LlmClient
from app.migrations import apply as apply_migrations
from app.migrations import ensure_vector_index
from app.ratelimit import RateLimiter
from app.scheduler import Scheduler

log = logging.getLogger(__name__)
STARTUP_WAIT_S = 60


async def _wait_for_database(graph: Graph) -> None:
    for _ in range(STARTUP_WAIT_S):
        try:
            await graph.ping()
            return
        except Unavailable:
            await asyncio.sleep(1)
    await graph.ping()


def create_app(settings: Settings | None = None, embedder: Embedder | None = None) -> Quart:
    """Builds the service; nothing touches the network until it starts serving.

    Tests and benchmarks pass one `embedder` to many apps so the model loads once.
    """
    settings = settings or Settings()  # read from the environment
    embedder = embedder or SentenceTransformerEmbedder(
        settings.embedding_model, settings.embedding_cache_size
    )
    llm = (
        LlmClient(
            settings.llm_base_url,
            settings.llm_api_key.get_secret_value(),
            settings.llm_model,
            settings.llm_timeout_s,
        )
        if settings.llm_enabled
        else None
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")

    app = Quart(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    QuartSchema(app, openapi_path="/openapi.json", info={"title": "Memory service", "version": "1"})

    graph = Graph.connect(
        settings.neo4j_uri,
        settings.neo4j_user,
        settings.neo4j_password.get_secret_value(),
        settings.neo4j_database,
    )
    instance_id = settings.instance_id or f"{socket.gethostname()}-{uuid.uuid4().hex[:8]}"
    app.extensions["deps"] = Deps(
        settings=settings,
        graph=graph,
        limiter=RateLimiter(settings.rate_limit_storage_uri, settings.rate_limits_enabled),
        instance_id=instance_id,
        embedder=embedder,
        llm=llm,
    )

    scheduler = Scheduler(graph, settings, instance_id) if settings.scheduler_enabled else None

    for module in (health, keys, admin, memories, snapshots, branches, feedback):
        app.register_blueprint(module.blueprint)
    http_errors.register(app)

    @app.before_serving
    async def start() -> None:
        await _wait_for_database(graph)
        await apply_migrations(graph)
        await ensure_vector_index(graph, embedder.dimensions)
        if scheduler is not None:
            await scheduler.start()
        log.info("memory service %s ready", instance_id)

    @app.after_serving
    async def stop() -> None:
        if scheduler is not None:
            await scheduler.stop()
        if llm is not None:
            await llm.close()
        await graph.close()

    return app
