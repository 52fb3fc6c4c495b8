"""Bodies that once answered 500 or were coerced: 400 or 422 with a detail, and nothing changes."""

from __future__ import annotations

from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.http import error_detail, request_ok
from tests.support.memories import page_contents, store
from tests.support.snapshots import list_snapshots

# Far deeper than Python's recursion limit: json.loads raises RecursionError on it.
DEEP = 5_000
# Parses, but is no valid value.
NESTED = 200


def _nested_lists(depth: int) -> str:
    return "[" * depth + "]" * depth


def _nested_objects(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


async def _post_raw(client: TestClientProtocol, user: User, path: str, body: bytes | str) -> Any:
    headers = {**user.headers, "Content-Type": "application/json"}
    return await client.post(path, data=body, headers=headers)


async def _unchanged(client: TestClientProtocol, user: User, contents: set[str]) -> None:
    """The user still has exactly these memories, and no (safety) snapshot was taken."""
    assert await page_contents(client, user.headers) == contents
    assert await list_snapshots(client, user.headers) == []


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories", b'{"content": "caf\xe9 au lait"}'),
        ("/v1/memories", b'{"content": "\xff\xfe"}'),
        ("/v1/memories", f'{{"content": {_nested_lists(DEEP)}}}'),
        ("/v1/memories", f'{{"content": "x", "extra_metadata": {_nested_objects(DEEP)}}}'),
        ("/v1/memories/batch", f'{{"memories": {_nested_lists(DEEP)}}}'),
        ("/v1/memories/purge", f'{{"memory_ids": {_nested_lists(DEEP)}}}'),
        (
            "/v1/memories/fulltext-search",
            f'{{"query": "x", "extra_metadata_filter": {_nested_objects(DEEP)}}}',
        ),
        ("/v1/retrieval-params/tune", f'{{"feedback_weight": {_nested_lists(DEEP)}}}'),
        ("/v1/retrieval-params/tune", b'{"feedback_weight": "\xc3"}'),
    ],
    ids=[
        "latin-1",
        "not-utf-8",
        "deep-content",
        "deep-metadata",
        "deep-batch",
        "deep-purge",
        "deep-metadata-filter",
        "deep-tune",
        "not-utf-8-tune",
    ],
)
async def test_a_body_that_does_not_decode_is_400(
    client: TestClientProtocol, user: User, path: str, body: bytes | str
) -> None:
    await store(client, user.headers, "Ivy keeps bees")
    await error_detail(await _post_raw(client, user, path, body), 400)
    await _unchanged(client, user, {"Ivy keeps bees"})
    params = await request_ok(client, "GET", "/v1/retrieval-params", user.headers)
    assert params["source"] == "default"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories", f'{{"content": {_nested_lists(NESTED)}}}'),
        ("/v1/memories", f'{{"content": "x", "extra_metadata": {_nested_objects(NESTED)}}}'),
        (
            "/v1/memories/fulltext-search",
            f'{{"query": "x", "extra_metadata_filter": {_nested_objects(NESTED)}}}',
        ),
    ],
    ids=["content", "metadata", "metadata-filter"],
)
async def test_nesting_that_parses_is_an_invalid_value(
    client: TestClientProtocol, user: User, path: str, body: str
) -> None:
    await error_detail(await _post_raw(client, user, path, body), 422)
    await _unchanged(client, user, set())


@pytest.mark.parametrize("before", [123, 1.5, "123", "1714000000", True])
async def test_purge_before_takes_an_iso_timestamp_only(
    client: TestClientProtocol, user: User, before: object
) -> None:
    await store(client, user.headers, "Jude rows on Sundays")
    response = await client.post(
        "/v1/memories/purge", json={"before": before}, headers=user.headers
    )
    detail = await error_detail(response, 422)
    assert "before" in detail
    await _unchanged(client, user, {"Jude rows on Sundays"})


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/memories", {"content": "x", "observed_at": 1714000000}, "observed_at"),
        ("/v1/memories", {"content": "x", "initial_confidence": True}, "initial_confidence"),
        ("/v1/memories", {"content": "x", "initial_confidence": "0.5"}, "initial_confidence"),
        ("/v1/memories/retrieve", {"query": "x", "top_k": "5"}, "top_k"),
        ("/v1/memories/retrieve", {"query": "x", "min_score": False}, "min_score"),
        ("/v1/memories/fulltext-search", {"query": "x", "limit": True}, "limit"),
        ("/v1/retrieval-params/tune", {"feedback_weight": "0.2"}, "feedback_weight"),
    ],
    ids=str,
)
async def test_a_value_of_the_wrong_json_type_is_not_coerced(
    client: TestClientProtocol, user: User, path: str, body: dict[str, Any], field: str
) -> None:
    response = await client.post(path, json=body, headers=user.headers)
    detail = await error_detail(response, 422)
    assert field in detail
    await _unchanged(client, user, set())
    params = await request_ok(client, "GET", "/v1/retrieval-params", user.headers)
    assert params["source"] == "default"
