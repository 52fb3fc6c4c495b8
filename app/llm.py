"""The optional LLM: any OpenAI-compatible chat-completions endpoint, through the official openai
SDK. One deadline (LLM_TIMEOUT_S) bounds a whole request, retries included; the answer is asked
for in the strongest form the endpoint accepts (the JSON schema of the prompt's answer model,
else a JSON object, else plain text) and read leniently (json-repair: fences, prose around the
object, trailing commas). Features that need an LLM answer 503 without one."""

from __future__ import annotations

import asyncio
import functools
import logging
import math
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import json_repair
import openai
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletion, completion_create_params
from pydantic import ValidationError

from app import metrics
from app.errors import Unavailable, llm_unavailable
from app.prompts.answers import DROPPED, Answer

log = logging.getLogger(__name__)

AnswerT = TypeVar("AnswerT", bound=Answer)
Form = Literal["json_schema", "json_object", "plain"]
FORMS: tuple[Form, ...] = ("json_schema", "json_object", "plain")  # strongest first
RETRY_BASE_S = 0.5  # the first retry waits this long, each next one twice as long
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# How servers refuse a request field they do not support (OpenAI and vLLM answer 400).
REFUSAL_STATUSES = frozenset({400, 422})
WAITING = "no answer yet"


@dataclass(frozen=True)
class Read(Generic[AnswerT]):
    """An LLM's answer read as its prompt's model; `dropped` items of it were left out."""

    answer: AnswerT
    dropped: int
    feature: str
    attempts: int

    def unusable(self, reason: str) -> Unavailable:
        """The failure of a request whose answer the feature cannot use (logged like any)."""
        return failure(self.feature, self.attempts, reason)

    def all_dropped(self, kept: int, also_dropped: int = 0) -> int:
        """The items left out in all: the unreadable ones and `also_dropped` the feature left
        out itself (an item about something it did not give). Unavailable when the answer had
        items and none was kept: nothing is done for nothing. (An answer without items is
        no failure: the LLM found nothing.)"""
        dropped = self.dropped + also_dropped
        if dropped and not kept:
            raise self.unusable(f"none of the {dropped} items of the LLM's answer was usable")
        return dropped


def failure(
    feature: str, attempts: int, reason: str, retry_after_s: int | None = None
) -> Unavailable:
    """An LLM request that failed: logged with the feature, the attempts and the reason (never
    a prompt, an answer or a key), counted, and answered 503 with Retry-After."""
    log.warning(
        "LLM request for %s failed after %d attempt(s): %s",
        feature,
        attempts,
        reason,
        extra={"feature": feature, "attempts": attempts, "reason": reason},
    )
    metrics.LLM_REQUESTS.labels(feature, "failed").inc()
    return llm_unavailable(reason, retry_after_s)


class _Failed(Exception):
    """An attempt's outcome that ends the request."""

    def __init__(self, reason: str, retry_after_s: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


def _story(outcomes: list[str]) -> str:
    """What each attempt got: "2 attempts: HTTP 500, no answer yet"."""
    count = len(outcomes)
    return f"{count} attempt{'' if count == 1 else 's'}: {', '.join(outcomes)}"


@functools.cache
def _schema(shape: type[Answer]) -> dict[str, Any]:
    """The answer model's JSON schema in the strict dialect OpenAI's structured outputs take
    (every property required, no others allowed), as the SDK itself makes it for a model."""
    parameters: dict[str, Any] = openai.pydantic_function_tool(shape)["function"]["parameters"]
    return parameters


def _response_format(
    form: Form, shape: type[Answer]
) -> completion_create_params.ResponseFormat | openai.Omit:
    if form == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": shape.__name__, "schema": _schema(shape), "strict": True},
        }
    if form == "json_object":
        return {"type": "json_object"}
    return openai.omit


def _retry_after(error: openai.APIStatusError) -> float | None:
    """The seconds a 429 or 503 asks to wait (Retry-After in seconds), if it says."""
    try:
        seconds = float(error.response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _message_text(completion: ChatCompletion) -> str:
    try:
        content = completion.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        content = None
    if not isinstance(content, str) or not content.strip():
        raise _Failed("the LLM's answer held no message text")
    return content


class LlmClient:
    """Asks a chat-completions endpoint for a prompt's answer model, retrying transient failures
    (no connection, 429 or a 5xx) up to `max_retries` times, all within one deadline of
    `timeout_s`."""

    def __init__(
        self, base_url: str, api_key: str, model: str, timeout_s: float = 60.0, max_retries: int = 2
    ) -> None:
        # The SDK's own retries and timeouts are off: the request's deadline bounds each
        # attempt (a slow model may use all of it) and ours retry within it.
        self._client = AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=None, max_retries=0)
        self._model = model
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        # Per answer model, the strongest form the endpoint took: a form it refused is not
        # asked for again by this client.
        self._forms: dict[type[Answer], Form] = {}

    def form(self, shape: type[Answer]) -> Form:
        """The form this client asks for `shape`'s answers in now."""
        return self._forms.get(shape, FORMS[0])

    async def answer(
        self, feature: str, system: str, user: str, shape: type[AnswerT]
    ) -> Read[AnswerT]:
        """The model's answer read as `shape`, items it could not use left out; Unavailable,
        saying what happened, when none can be had within the deadline."""
        outcomes: list[str] = []
        deadline = asyncio.get_running_loop().time() + self._timeout_s
        try:
            async with asyncio.timeout_at(deadline):
                text = await self._text(system, user, shape, outcomes, deadline)
        except TimeoutError:
            reason = (
                f"the LLM did not answer within the {self._timeout_s:g} s deadline "
                f"(LLM_TIMEOUT_S; {_story(outcomes)})"
            )
            raise failure(feature, len(outcomes), reason) from None
        except _Failed as failed:
            raise failure(feature, len(outcomes), failed.reason, failed.retry_after_s) from None
        parsed = json_repair.loads(text)
        if not isinstance(parsed, dict):
            raise failure(feature, len(outcomes), "the LLM did not answer with a JSON object")
        context = {DROPPED: 0}
        try:
            answer = shape.model_validate(parsed, context=context)
        except ValidationError:
            raise failure(
                feature, len(outcomes), f"the LLM did not answer with {shape.expected}"
            ) from None
        metrics.LLM_REQUESTS.labels(feature, "answered").inc()
        return Read(answer, context[DROPPED], feature, len(outcomes))

    async def _text(
        self,
        system: str,
        user: str,
        shape: type[Answer],
        outcomes: list[str],
        deadline: float,
    ) -> str:
        """The answer's text; each attempt's outcome goes into `outcomes` as it ends."""
        form = self.form(shape)
        retries = 0
        while True:
            outcomes.append(WAITING)
            asked_wait: float | None = None
            try:
                completion = await self._client.chat.completions.create(
                    model=self._model,
                    messages=[
                        {"role": "system", "content": system},
                        {"role": "user", "content": user},
                    ],
                    temperature=0,
                    response_format=_response_format(form, shape),
                )
            except openai.APIStatusError as error:
                outcomes[-1] = f"HTTP {error.status_code}"
                if error.status_code in REFUSAL_STATUSES and form != FORMS[-1]:
                    form = FORMS[FORMS.index(form) + 1]  # the next weaker form, at once
                    continue
                if error.status_code not in TRANSIENT_STATUSES:
                    status = error.status_code
                    raise _Failed(f"the LLM answered with HTTP status {status}") from None
                asked_wait = _retry_after(error)
            except openai.APIConnectionError:
                outcomes[-1] = "could not be reached"
            except openai.APIError:
                outcomes[-1] = "an unreadable answer"
                raise _Failed(f"the LLM's answer could not be read ({_story(outcomes)})") from None
            else:
                outcomes[-1] = "answered"
                self._forms[shape] = form
                return _message_text(completion)
            if retries == self._max_retries:
                raise _Failed(f"the LLM did not answer ({_story(outcomes)})")
            retries += 1
            wait = RETRY_BASE_S * 2 ** (retries - 1) if asked_wait is None else asked_wait
            if asked_wait is not None and asyncio.get_running_loop().time() + wait > deadline:
                raise _Failed(
                    f"the LLM asked to be asked again in {math.ceil(wait)} s, past the deadline "
                    f"(LLM_TIMEOUT_S; {_story(outcomes)})",
                    retry_after_s=math.ceil(wait),
                )
            await asyncio.sleep(wait)

    async def close(self) -> None:
        await self._client.close()
