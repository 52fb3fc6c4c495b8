"""The optional OpenAI-compatible chat client; features that need it answer 503 without it."""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.errors import Unavailable


class LlmClient:
    """Asks a chat-completions endpoint for a JSON object."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout_s: float = 60.0) -> None:
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout_s,
        )
        self._model = model

    async def complete_json(self, system: str, user: str) -> dict[str, Any]:
        """The model's answer parsed as a JSON object; Unavailable when it cannot be had."""
        body = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }
        try:
            response = await self._client.post("/chat/completions", json=body)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
            parsed = json.loads(content)
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as error:
            raise Unavailable(f"the LLM did not give a usable answer: {error}") from error
        if not isinstance(parsed, dict):
            raise Unavailable("the LLM did not answer with a JSON object")
        return parsed

    async def close(self) -> None:
        await self._client.aclose()
