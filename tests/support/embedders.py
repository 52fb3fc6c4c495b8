"""Embedding stand-ins: for apps that are built but never encode (no model is loaded), and a
real model made slow or failing on purpose."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from app.embedding import Embedder, Role


class NoBackend:
    model_id = "none:3"
    dimensions = 3

    async def start(self) -> None:
        return None

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        raise NotImplementedError

    async def close(self) -> None:
        return None


def no_embedder() -> Embedder:
    return Embedder(NoBackend())


class SlowThenFailingBackend:
    """Encodes like the real model, after `delay_s`; fails for texts containing "fail". Its
    id is the real embedder's whole id (glosses included), so that what it stores is taken
    for that model's."""

    def __init__(self, real: Embedder, delay_s: float) -> None:
        self.model_id = real.model_id
        self.dimensions = real.dimensions
        self._real = real.backend
        self._delay_s = delay_s

    async def start(self) -> None:
        return None

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        await asyncio.sleep(self._delay_s)
        if any("fail" in text for text in texts):
            raise RuntimeError("the model broke")
        return await self._real.embed(texts, role)

    async def close(self) -> None:
        return None
