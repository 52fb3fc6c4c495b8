"""Bodies that once answered 500 or were coerced: 400 or 422 with a detail, and nothing changes."""

from __future__ import annotations

from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.http import error_detail, request_ok
from tests.support.memories import page_contents, store
from tests.support.snapshots import list_snapshots, take_snapshot

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
        # Python's json reads these, but they are not JSON and no client could read them back.
        ("/v1/memories", '{"content": "x", "extra_metadata": {"n": NaN}}'),
        ("/v1/memories", '{"content": "x", "extra_metadata": {"n": -Infinity}}'),
        ("/v1/memories/fulltext-search", '{"query": "x", "extra_metadata_filter": {"n": NaN}}'),
        ("/v1/retrieval-params/tune", '{"feedback_weight": Infinity}'),
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
        "nan-metadata",
        "infinity-metadata",
        "nan-metadata-filter",
        "infinity-tune",
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


TOO_LARGE_FOR_INT64 = 2**63
TOO_LARGE_FOR_FLOAT = "1e400"  # Python reads it as infinity


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories", f'{{"content": "x", "extra_metadata": {{"n": {TOO_LARGE_FOR_INT64}}}}}'),
        (
            "/v1/memories",
            f'{{"content": "x", "extra_metadata": {{"n": -{TOO_LARGE_FOR_INT64 + 1}}}}}',
        ),
        ("/v1/memories", f'{{"content": "x", "extra_metadata": {{"n": {TOO_LARGE_FOR_FLOAT}}}}}'),
        (
            "/v1/memories/batch",
            f'{{"memories": [{{"content": "x", "extra_metadata": {{"n": {2**64}}}}}]}}',
        ),
        (
            "/v1/memories/fulltext-search",
            f'{{"query": "x", "extra_metadata_filter": {{"n": {TOO_LARGE_FOR_INT64}}}}}',
        ),
        ("/v1/memories/retrieve", f'{{"query": "x", "min_score": {TOO_LARGE_FOR_FLOAT}}}'),
    ],
    ids=["int-metadata", "negative-int-metadata", "float-metadata", "batch", "filter", "score"],
)
async def test_a_number_neo4j_cannot_hold_is_an_invalid_value(
    client: TestClientProtocol, user: User, path: str, body: str
) -> None:
    detail = await error_detail(await _post_raw(client, user, path, body), 422)
    assert "64 bits" in detail or "finite" in detail
    await _unchanged(client, user, set())


async def test_the_largest_64_bit_integers_are_stored_as_they_are(
    client: TestClientProtocol, user: User
) -> None:
    bounds = {"high": TOO_LARGE_FOR_INT64 - 1, "low": -TOO_LARGE_FOR_INT64}
    stored = await store(client, user.headers, "Kai counts grains", extra_metadata=bounds)
    assert stored["extra_metadata"] == bounds
    found = await request_ok(
        client,
        "POST",
        "/v1/memories/fulltext-search",
        user.headers,
        json={"query": "grains", "extra_metadata_filter": {"high": TOO_LARGE_FOR_INT64 - 1}},
    )
    assert [memory["memory_id"] for memory in found] == [stored["memory_id"]]


async def test_a_snapshot_page_offset_past_what_json_holds_exactly_is_an_invalid_value(
    client: TestClientProtocol, user: User
) -> None:
    await take_snapshot(client, user.headers, "s1")
    response = await client.get(
        f"/v1/snapshots/s1?offset={TOO_LARGE_FOR_INT64}", headers=user.headers
    )
    assert "offset" in await error_detail(response, 422)
    far = await request_ok(client, "GET", f"/v1/snapshots/s1?offset={2**53 - 1}", user.headers)
    assert far["memories"] == []


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
