"""The service registry: what create_app() builds once and every use case receives first."""

from __future__ import annotations

import socket
import uuid
from dataclasses import dataclass

from app.config import Settings
from app.embedding import Embedder, embedder_for
from app.graph import Graph
from app.llm import LlmClient
from app.ratelimit import RateLimiter


@dataclass(frozen=True)
class Registry:
    """Settings and the long-lived clients; REST handlers, the scheduler, benchmarks and tests
    reach every use case through one of these (`await memories.store(registry, ...)`)."""

    settings: Settings
    graph: Graph
    embedder: Embedder
    limiter: RateLimiter
    instance_id: str
    llm: LlmClient | None = None
    owns_embedder: bool = True  # built from the settings (closed with the registry)

    @classmethod
    def build(cls, settings: Settings, embedder: Embedder | None = None) -> Registry:
        """Every part from the settings; nothing touches the network yet.

        Tests and benchmarks pass one `embedder` to many registries so the model loads once.
        """
        llm = (
            LlmClient(
                settings.llm_base_url,
                settings.llm_api_key.get_secret_value(),
                settings.llm_model,
                settings.llm_timeout_s,
                settings.llm_max_retries,
            )
            if settings.llm_enabled
            else None
        )
        return cls(
            settings=settings,
            graph=Graph.connect(
                settings.neo4j_uri,
                settings.neo4j_user,
                settings.neo4j_password.get_secret_value(),
                settings.neo4j_database,
                settings.neo4j_retry_s,
            ),
            embedder=embedder or embedder_for(settings),
            limiter=RateLimiter(settings.rate_limit_storage_uri, settings.rate_limits_enabled),
            instance_id=settings.instance_id or f"{socket.gethostname()}-{uuid.uuid4().hex[:8]}",
            llm=llm,
            owns_embedder=embedder is None,
        )

    async def close(self) -> None:
        if self.llm is not None:
            await self.llm.close()
        if self.owns_embedder:
            await self.embedder.close()
        await self.graph.close()
