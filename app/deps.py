"""The long-lived parts create_app() builds once and handlers hand to services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from quart import current_app

from app.config import Settings
from app.embedder import Embedder
from app.errors import Unavailable
from app.graph import Graph
from app.llm import LlmClient
from app.ratelimit import RateLimiter


@dataclass
class Deps:
    settings: Settings
    graph: Graph
    limiter: RateLimiter
    instance_id: str
    embedder: Embedder
    llm: LlmClient | None = None

    def require_llm(self) -> LlmClient:
        if self.llm is None:
            raise Unavailable("this feature needs an LLM: set LLM_API_KEY (and LLM_BASE_URL)")
        return self.llm


def deps() -> Deps:
    return cast(Deps, current_app.extensions["deps"])
