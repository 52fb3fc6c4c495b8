"""The Embedder the service uses: a backend behind a cache per role, with concurrent query
encodes batched into one model call."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence

from app import metrics
from app.embedding.backend import Backend, Role
from app.gloss import Glossary

GLOSSED = "+cc-cedict"  # what a model id adds when the model reads Chinese through glosses


class Embedder:
    """Documents and queries are embedded in their own roles (a question and the passage that
    answers it are read differently by retrieval models), and cached per role: agents store
    the same fact again, a correction repeats most of a memory, a question is asked again.
    With a `glossary`, the model reads Chinese through English glosses (app.gloss): for a model
    that reads English only."""

    def __init__(
        self, backend: Backend, cache_size: int = 2048, glossary: Glossary | None = None
    ) -> None:
        self.backend = backend
        self._glossary = glossary
        self._cache: OrderedDict[tuple[Role, str], list[float]] = OrderedDict()
        self._cache_size = cache_size
        self._pending: list[tuple[str, asyncio.Future[list[float]]]] = []
        self._draining = False

    @property
    def model_id(self) -> str:
        """What memory nodes record as `embedding_model` (the model and its dimension)."""
        if self._glossary is None:
            return self.backend.model_id
        name, _, dimensions = self.backend.model_id.rpartition(":")
        return f"{name}{GLOSSED}:{dimensions}"

    @property
    def dimensions(self) -> int:
        return self.backend.dimensions

    async def start(self) -> None:
        await self.backend.start()

    async def close(self) -> None:
        await self.backend.close()

    async def encode_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of memories' texts, in one model call for those not encoded lately."""
        return await self._encode(texts, Role.DOCUMENT)

    async def encode_query(self, text: str) -> list[float]:
        """A query's vector: cached, and shared with concurrent callers in one model call."""
        cached = self._cached(Role.QUERY, text)
        if cached is not None:
            return cached
        future: asyncio.Future[list[float]] = asyncio.get_running_loop().create_future()
        self._pending.append((text, future))
        if not self._draining:
            self._draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _encode(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        found = {text: vector for text in texts if (vector := self._cached(role, text)) is not None}
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        if missing:
            metrics.ENCODE_BATCH_SIZE.observe(len(missing))
            read = missing
            if self._glossary is not None:
                read = [self._glossary.english(text) for text in missing]
            vectors = await self.backend.embed(read, role)
            for text, vector in zip(missing, vectors, strict=True):
                self._remember(role, text, vector)
                found[text] = vector
        return [found[text] for text in texts]

    async def _drain(self) -> None:
        # Whatever queued while the previous call ran goes into the next call, together.
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                texts = list(dict.fromkeys(text for text, _ in batch))
                try:
                    vectors = dict(zip(texts, await self._encode(texts, Role.QUERY), strict=True))
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

    def _cached(self, role: Role, text: str) -> list[float] | None:
        vector = self._cache.get((role, text))
        if vector is not None:
            self._cache.move_to_end((role, text))
        return vector

    def _remember(self, role: Role, text: str, vector: list[float]) -> None:
        self._cache[(role, text)] = vector
        self._cache.move_to_end((role, text))
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
