"""What this server supports: its version, models, and how each LLM feature runs right now."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

# How an LLM feature runs on this server: with the LLM; LLM-free candidates for the calling
# agent; messages stored verbatim (observe); or not at all until an LLM is configured.
FeatureMode = Literal["llm", "candidates", "verbatim", "unavailable"]


class Capabilities(BaseModel):
    service_version: str
    llm_configured: bool
    embedding_model: str
    languages: list[str]
    features: dict[str, FeatureMode]
