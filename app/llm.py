"""The optional OpenAI-compatible chat client; features that need it answer 503 without it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from app.errors import Unavailable

RETRY_BASE_S = 0.5  # the first retry waits this long, each next one twice as long
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


def _unanswered(error: httpx.HTTPError, timeout_s: float) -> str:
    """What failed, in words a caller can act on (not the client library's)."""
    if isinstance(error, httpx.TimeoutException):
        return f"the LLM did not answer within {timeout_s:g} s"
    return "the LLM did not answer: it could not be reached"


class LlmClient:
    """Asks a chat-completions endpoint for a JSON object, retrying transient failures (a
    timeout, a connection error, 429 or a 5xx) up to `max_retries` times."""

    def __init__(
        self, base_url: str, api_key: str, model: str, timeout_s: float = 60.0, max_retries: int = 2
    ) -> None:
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout_s,
        )
        self._model = model
        self._max_retries = max_retries
        self._timeout_s = timeout_s

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        for attempt in range(self._max_retries + 1):
            last = attempt == self._max_retries
            try:
                response = await self._client.post("/chat/completions", json=body)
            except (httpx.TimeoutException, httpx.TransportError) as error:
                if last:
                    raise Unavailable(_unanswered(error, self._timeout_s)) from error
            else:
                if response.status_code not in TRANSIENT_STATUSES or last:
                    return response
            await asyncio.sleep(RETRY_BASE_S * 2**attempt)
        raise AssertionError("unreachable")  # the last attempt returns or raises

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
        response = await self._post(body)
        # The details say what failed, never the LLM's address (callers and task records see them).
        if response.is_error:
            raise Unavailable(f"the LLM answered with HTTP status {response.status_code}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
            parsed = json.loads(content)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise Unavailable("the LLM's answer held no chat message with JSON in it") from error
        if not isinstance(parsed, dict):
            raise Unavailable("the LLM did not answer with a JSON object")
        return parsed

    async def close(self) -> None:
        await self._client.aclose()
