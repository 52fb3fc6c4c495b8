"""What this server supports, for agents deciding which tools and modes to use."""

from __future__ import annotations

from app.models.capabilities import Capabilities, FeatureMode
from app.registry import Registry
from app.services.plugins.packages import SERVICE_VERSION

# English, Chinese, and Chinese with English identifiers inside, everywhere.
LANGUAGES = ["en", "zh", "zh+en"]


async def capabilities(registry: Registry) -> Capabilities:
    with_llm = registry.llm is not None

    def mode(without_llm: FeatureMode) -> FeatureMode:
        return "llm" if with_llm else without_llm

    return Capabilities(
        service_version=SERVICE_VERSION,
        llm_configured=with_llm,
        embedding_model=registry.embedder.model_id,
        languages=LANGUAGES,
        features={
            "observe": mode("verbatim"),
            "reflect": mode("candidates"),
            "extract_entities": mode("candidates"),
            "session_summaries": mode("unavailable"),
        },
    )
