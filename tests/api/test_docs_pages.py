"""The API's documentation pages work on a machine without internet: /docs (Swagger UI) and
/redoc, opened in a real browser on a served instance, list every operation, "Try it out" runs
a request (with the key given to "Authorize" where the route needs one), and nothing is loaded
from another host (the service ships the viewers' files)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Page

from tests.support.browser import Browser
from tests.support.service_process import new_user


@pytest.fixture
async def operations(served: str) -> list[tuple[str, str]]:
    """(method, path) of every operation /openapi.json documents."""
    async with httpx.AsyncClient(base_url=served) as http:
        document: dict[str, Any] = (await http.get("/openapi.json")).json()
    return [(method.upper(), path) for path, item in document["paths"].items() for method in item]


async def test_swagger_ui_lists_the_operations_and_tries_one_out(
    served: str, browser: Browser, operations: list[tuple[str, str]]
) -> None:
    page = await browser.open(f"{served}/docs")
    listed = page.locator(".opblock")
    await listed.first.wait_for()  # a blank page (no viewer, no document) never gets here
    assert await listed.count() == len(operations)
    shown = await page.eval_on_selector_all(
        ".opblock",
        """blocks => blocks.map(block => [
             block.querySelector('.opblock-summary-method').textContent,
             block.querySelector('.opblock-summary-path').dataset.path])""",
    )
    assert sorted(map(tuple, shown)) == sorted(operations)

    status, body = await _try_it_out(page, "/health")
    assert (status, body.strip()) == ("200", "ok")

    assert f"{served}/health" in browser.requests.urls  # the browser itself asked the service
    assert browser.requests.elsewhere(served) == []
    assert browser.requests.page_errors == []


async def test_swagger_ui_calls_the_api_with_the_key_given_to_authorize(
    served: str, browser: Browser
) -> None:
    async with httpx.AsyncClient(base_url=served) as http:
        _, raw_key = await new_user(http, "docs-reader")
    page = await browser.open(f"{served}/docs")
    await page.locator(".opblock").first.wait_for()
    await page.locator(".auth-wrapper .authorize").click()
    await page.locator("#auth-bearer-value").fill(raw_key)
    await page.get_by_role("button", name="Apply credentials").click()
    await page.locator(".dialog-ux .btn-done").click()

    status, body = await _try_it_out(page, "/v1/capabilities")
    assert status == "200"  # 401 without the key
    assert '"service_version"' in body
    assert browser.requests.elsewhere(served) == []


async def _try_it_out(page: Page, path: str) -> tuple[str, str]:
    """Opens the GET operation of `path`, runs "Try it out" and "Execute", and reads the
    status and body Swagger UI shows."""
    operation = page.locator(".opblock-get").filter(
        has=page.locator(f'.opblock-summary-path[data-path="{path}"]')
    )
    await operation.locator(".opblock-summary").click()
    await operation.get_by_role("button", name="Try it out").click()
    await operation.get_by_role("button", name="Execute").click()
    answer = operation.locator(".live-responses-table tbody tr").first
    await answer.wait_for()
    status = (await answer.locator(".response-col_status").inner_text()).strip()
    body = await answer.locator(".response-col_description .microlight").first.inner_text()
    return status, body


async def test_redoc_renders_every_operation(
    served: str, browser: Browser, operations: list[tuple[str, str]]
) -> None:
    page = await browser.open(f"{served}/redoc")
    sections = page.locator('[id^="operation/"]')
    await sections.first.wait_for()
    assert await sections.count() == len(operations)  # one section per operation, ids unique
    assert await page.locator("h1").first.inner_text() == "Memory service (1)"
    assert await page.get_by_text("/v1/memories/retrieve").count() > 0

    assert f"{served}/openapi.json" in browser.requests.urls
    assert browser.requests.elsewhere(served) == []
    assert browser.requests.page_errors == []
