"""An embedder stand-in for apps that are built but never encode (no model is loaded)."""

from __future__ import annotations


class NoEmbedder:
    dimensions = 3
    model_id = "none:3"

    async def encode(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    async def encode_query(self, text: str) -> list[float]:
        raise NotImplementedError
