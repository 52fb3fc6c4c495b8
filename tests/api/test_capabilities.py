"""GET /v1/capabilities: what the server supports, and how LLM features run without an LLM."""

from __future__ import annotations

from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.http import error_detail, request_ok


async def test_without_an_llm_the_llm_features_say_how_they_run_instead(
    client: TestClientProtocol, user: User
) -> None:
    shown = await request_ok(client, "GET", "/v1/capabilities", user.headers)

    assert shown["llm_configured"] is False
    assert shown["features"] == {
        "observe": "verbatim",
        "reflect": "candidates",
        "extract_entities": "candidates",
        "session_summaries": "unavailable",
    }
    assert shown["embedding_model"].startswith("all-MiniLM-L6-v2")
    assert shown["languages"] == ["en", "zh", "zh+en"]
    assert shown["service_version"]


async def test_capabilities_need_a_key(client: TestClientProtocol) -> None:
    await error_detail(await client.get("/v1/capabilities"), 401)
