"""The long-lived parts create_app() builds once and handlers hand to services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from quart import current_app

from app.config import Settings
from app.graph import Graph
from app.ratelimit import RateLimiter

if TYPE_CHECKING:
    from app.embedder import Embedder
    from app.llm import LlmClient


@dataclass
class Deps:
    settings: Settings
    graph: Graph
    limiter: RateLimiter
    instance_id: str
    embedder: Embedder | None = None
    llm: LlmClient | None = None
    extras: dict[str, object] = field(default_factory=dict)


def deps() -> Deps:
    return cast(Deps, current_app.extensions["deps"])
