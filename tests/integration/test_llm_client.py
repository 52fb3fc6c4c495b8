"""The LLM client (the openai SDK) against the stand-in OpenAI-compatible server: the forms it asks
for and falls back from (remembered per client), its lenient reading, one deadline for a whole
request with its retries, what its errors say, and what it logs."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from app.errors import LLM_RETRY_AFTER_S, Unavailable
from app.llm import LlmClient, Read
from app.prompts import observe, reflect
from tests.support.fake_llm import GARBAGE, PLAIN, FakeLlm
from tests.support.machine import free_port

FACT = {"content": "Lives in Porto", "memory_type": "profile"}
SECRET_KEY = "sk-test-never-logged-0123456789"
PRIVATE = "Ana's private conversation, never logged"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLlm]:
    fake = FakeLlm().start()
    yield fake
    fake.stop()


@pytest.fixture
def llm(server: FakeLlm) -> Iterator[FakeLlm]:
    server.clear()
    yield server
    server.clear()


def _client(llm: FakeLlm, timeout_s: float = 10.0, max_retries: int = 2) -> LlmClient:
    return LlmClient(llm.base_url, SECRET_KEY, "fake-model", timeout_s, max_retries)


async def _distil(client: LlmClient) -> Read[observe.Distilled]:
    return await client.answer("observe", observe.SYSTEM, PRIVATE, observe.Distilled)


async def _failure(client: LlmClient) -> Unavailable:
    with pytest.raises(Unavailable) as caught:
        await _distil(client)
    return caught.value


async def test_structured_outputs_are_asked_for_with_the_answer_models_schema(
    llm: FakeLlm,
) -> None:
    llm.reply = {"facts": [FACT]}
    read = await _distil(_client(llm))

    assert [fact.content for fact in read.answer.facts] == ["Lives in Porto"]
    assert (read.dropped, read.attempts) == (0, 1)
    [request] = llm.requests
    asked = request.body["response_format"]
    assert asked["type"] == "json_schema"
    assert asked["json_schema"]["name"] == "Distilled"
    assert asked["json_schema"]["strict"] is True
    schema = asked["json_schema"]["schema"]
    assert schema["required"] == ["facts"] and schema["additionalProperties"] is False
    assert request.body["messages"][-1] == {"role": "user", "content": PRIVATE}


async def test_a_fenced_answer_with_prose_and_trailing_commas_is_read(llm: FakeLlm) -> None:
    llm.reply = '{"facts": [{"content": "Lives in Porto", "memory_type": "profile",},],}'
    llm.fenced = True
    read = await _distil(_client(llm))
    [fact] = read.answer.facts
    assert (fact.content, fact.memory_type) == ("Lives in Porto", "profile")


async def test_a_refused_form_falls_back_at_once_and_is_not_asked_for_again(
    llm: FakeLlm,
) -> None:
    client = _client(llm)
    llm.reply = {"facts": [FACT]}
    llm.refused = {"json_schema"}

    first = await _distil(client)
    second = await _distil(client)

    assert first.answer == second.answer
    assert llm.formats() == ["json_schema", "json_object", "json_object"]
    assert client.form(observe.Distilled) == "json_object"
    # What an endpoint refused for one prompt's schema says nothing of another's.
    assert client.form(reflect.Insights) == "json_schema"

    # A server without JSON modes at all gets plain requests; a new client learns anew.
    llm.clear()
    llm.reply, llm.refused = {"facts": [FACT]}, {"json_schema", "json_object"}
    plain = _client(llm)
    await _distil(plain)
    await _distil(plain)
    assert llm.formats() == ["json_schema", "json_object", PLAIN, PLAIN]


async def test_a_400_to_every_form_is_a_failure_and_teaches_nothing(llm: FakeLlm) -> None:
    client = _client(llm)
    llm.status = 400
    failure = await _failure(client)
    assert failure.detail == "the LLM answered with HTTP status 400"
    assert llm.formats() == ["json_schema", "json_object", PLAIN]
    assert client.form(observe.Distilled) == "json_schema"


async def test_a_hanging_llm_fails_at_the_deadline_which_the_error_names(llm: FakeLlm) -> None:
    llm.hold()
    failure = await _failure(_client(llm, timeout_s=0.3))
    assert failure.detail == (
        "the LLM did not answer within the 0.3 s deadline (LLM_TIMEOUT_S; 1 attempt: no answer yet)"
    )
    assert failure.retry_after_s == LLM_RETRY_AFTER_S
    assert len(llm.requests) == 1


async def test_the_deadline_bounds_the_retries_too(llm: FakeLlm) -> None:
    """The first attempt fails at once, the retry would come after the deadline: the request
    ends at the deadline, saying what the attempt got."""
    llm.status = 500
    failure = await _failure(_client(llm, timeout_s=0.3, max_retries=5))
    assert failure.detail == (
        "the LLM did not answer within the 0.3 s deadline (LLM_TIMEOUT_S; 1 attempt: HTTP 500)"
    )
    assert len(llm.requests) == 1


async def test_transient_errors_are_retried_and_the_error_tells_each_attempt(
    llm: FakeLlm,
) -> None:
    llm.status = 500
    failure = await _failure(_client(llm, max_retries=2))
    assert failure.detail == "the LLM did not answer (3 attempts: HTTP 500, HTTP 500, HTTP 500)"
    assert len(llm.requests) == 3

    llm.clear()
    llm.status = 401
    failure = await _failure(_client(llm))
    assert failure.detail == "the LLM answered with HTTP status 401"
    assert len(llm.requests) == 1  # not worth another attempt


async def test_a_retry_after_past_the_deadline_ends_the_request_with_that_retry_after(
    llm: FakeLlm,
) -> None:
    llm.status, llm.headers = 429, {"Retry-After": "120"}
    failure = await _failure(_client(llm, timeout_s=10))
    assert failure.detail == (
        "the LLM asked to be asked again in 120 s, past the deadline "
        "(LLM_TIMEOUT_S; 1 attempt: HTTP 429)"
    )
    assert failure.retry_after_s == 120
    assert len(llm.requests) == 1


async def test_an_llm_nobody_listens_at_fails_saying_so() -> None:
    client = LlmClient(f"http://127.0.0.1:{free_port()}/v1", SECRET_KEY, "m", 10.0, 1)
    failure = await _failure(client)
    assert failure.detail == (
        "the LLM did not answer (2 attempts: could not be reached, could not be reached)"
    )


@pytest.mark.parametrize(
    ("reply", "detail"),
    [
        (GARBAGE, "the LLM did not answer with a JSON object"),
        ("[1, 2, 3]", "the LLM did not answer with a JSON object"),
        ({"error": "rate limited"}, 'the LLM did not answer with a list of "facts"'),
        ({"facts": "Lives in Porto"}, 'the LLM did not answer with a list of "facts"'),
        ("", "the LLM's answer held no message text"),
    ],
    ids=["garbage", "json-array", "other-object", "facts-string", "empty"],
)
async def test_an_unusable_answer_fails_saying_what_was_expected(
    llm: FakeLlm, reply: object, detail: str
) -> None:
    llm.reply = reply
    failure = await _failure(_client(llm))
    assert failure.detail == detail
    assert failure.retry_after_s == LLM_RETRY_AFTER_S
    assert len(llm.requests) == 1


async def test_items_missing_a_required_field_are_counted_and_none_usable_is_a_failure(
    llm: FakeLlm,
) -> None:
    llm.reply = {"facts": [FACT, {"memory_type": "profile"}, {"content": 7}]}
    read = await _distil(_client(llm))
    assert len(read.answer.facts) == 1
    assert read.all_dropped(kept=1) == 2

    llm.reply = {"facts": [{"memory_type": "profile"}, {"memory_type": "semantic"}]}
    read = await _distil(_client(llm))
    assert (read.answer.facts, read.dropped) == ([], 2)
    with pytest.raises(Unavailable) as caught:
        read.all_dropped(kept=0)
    assert caught.value.detail == "none of the 2 items of the LLM's answer was usable"
    # No items at all is no failure: the LLM found nothing to keep.
    llm.reply = {"facts": []}
    assert (await _distil(_client(llm))).all_dropped(kept=0) == 0


async def test_a_failure_is_logged_with_feature_attempts_and_reason_only(
    llm: FakeLlm, caplog: pytest.LogCaptureFixture
) -> None:
    llm.status = 503
    with caplog.at_level(logging.INFO):
        failure = await _failure(_client(llm, max_retries=1))
    [record] = [r for r in caplog.records if r.name == "app.llm"]
    assert record.levelno == logging.WARNING
    assert (record.feature, record.attempts, record.reason) == ("observe", 2, failure.detail)  # type: ignore[attr-defined]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert PRIVATE not in logged and SECRET_KEY not in logged and observe.SYSTEM not in logged
