"""Error responses: 400 unparseable, 422 invalid, 413 too large, 404/405 routes; {"detail": str}."""

from __future__ import annotations

import json
import uuid

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import MASTER
from tests.support.http import error_detail

JSON_HEADERS = {**MASTER, "Content-Type": "application/json"}


def _key_request(**overrides: object) -> dict[str, object]:
    return {"user_id": f"errors-{uuid.uuid4().hex[:12]}", "name": "n", **overrides}


# --- 400: the request cannot be parsed --------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    ['{"user_id": "u", "name": ', "{'user_id': 'u'}", "not json at all", '{"a": 1}}'],
    ids=["truncated", "single-quotes", "text", "trailing"],
)
async def test_malformed_json_is_400(client: TestClientProtocol, body: str) -> None:
    response = await client.post("/auth/keys", data=body, headers=JSON_HEADERS)
    await error_detail(response, 400)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
async def test_non_json_content_type_is_400(client: TestClientProtocol, content_type: str) -> None:
    response = await client.post(
        "/auth/keys",
        data=json.dumps(_key_request()),
        headers={**MASTER, "Content-Type": content_type},
    )
    detail = await error_detail(response, 400)
    assert "JSON" in detail


async def test_missing_body_is_400(client: TestClientProtocol) -> None:
    await error_detail(await client.post("/auth/keys", headers=MASTER), 400)


@pytest.mark.parametrize("query", ["limit=abc", "limit=1.5", "limit=", "limit=ten"])
async def test_unparseable_query_parameter_is_400(client: TestClientProtocol, query: str) -> None:
    response = await client.get(f"/admin/users?{query}", headers=MASTER)
    detail = await error_detail(response, 400)
    assert "limit" in detail


# --- 422: it parses, but a value is invalid ---------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (_key_request(user_id=""), "user_id"),
        (_key_request(user_id="   "), "user_id"),
        (_key_request(name=""), "name"),
        (_key_request(name="  \t "), "name"),
        (_key_request(name="x" * 101), "name"),
        (_key_request(user_id="u" * 129), "user_id"),
        (_key_request(role="admin"), "role"),
        ({"name": "no user"}, "user_id"),
        ({"user_id": "no-name"}, "name"),
        (_key_request(user_id=42), "user_id"),
        (_key_request(expires_at="next tuesday"), "expires_at"),
    ],
    ids=[
        "empty-user",
        "blank-user",
        "empty-name",
        "blank-name",
        "long-name",
        "long-user",
        "unknown-field",
        "missing-user",
        "missing-name",
        "number-user",
        "bad-date",
    ],
)
async def test_invalid_key_request_is_422(
    client: TestClientProtocol, body: dict[str, object], field: str
) -> None:
    response = await client.post("/auth/keys", json=body, headers=MASTER)
    detail = await error_detail(response, 422)
    assert field in detail
    problems = (await response.get_json())["errors"]
    assert any(problem["field"] == field for problem in problems), problems


async def test_invalid_request_creates_nothing(client: TestClientProtocol) -> None:
    body = _key_request(name="x" * 101)
    await error_detail(await client.post("/auth/keys", json=body, headers=MASTER), 422)
    stats = await client.get(f"/admin/users/{body['user_id']}/stats", headers=MASTER)
    await error_detail(stats, 404)


async def test_name_of_100_characters_is_accepted(client: TestClientProtocol) -> None:
    response = await client.post("/auth/keys", json=_key_request(name="x" * 100), headers=MASTER)
    assert response.status_code == 201
    assert (await response.get_json())["name"] == "x" * 100


async def test_names_are_trimmed(client: TestClientProtocol) -> None:
    response = await client.post("/auth/keys", json=_key_request(name="  laptop  "), headers=MASTER)
    assert response.status_code == 201
    assert (await response.get_json())["name"] == "laptop"


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "limit=-1"])
async def test_out_of_range_query_parameter_is_422(client: TestClientProtocol, query: str) -> None:
    response = await client.get(f"/admin/users?{query}", headers=MASTER)
    detail = await error_detail(response, 422)
    assert "limit" in detail


@pytest.mark.parametrize("limit", [1, 500])
async def test_limit_bounds_are_inclusive(client: TestClientProtocol, limit: int) -> None:
    response = await client.get(f"/admin/users?limit={limit}", headers=MASTER)
    assert response.status_code == 200


# --- 413: body over 2 MiB ---------------------------------------------------------------------


async def test_body_over_two_mebibytes_is_413(client: TestClientProtocol) -> None:
    body = json.dumps(_key_request(name="x" * (2 * 1024 * 1024)))
    response = await client.post("/auth/keys", data=body, headers=JSON_HEADERS)
    await error_detail(response, 413)


async def test_body_just_under_the_limit_is_read(client: TestClientProtocol) -> None:
    # Under 2 MiB the body is parsed, so the oversized name is a validation error, not a 413.
    body = json.dumps(_key_request(name="x" * (2 * 1024 * 1024 - 200)))
    assert len(body) < 2 * 1024 * 1024
    response = await client.post("/auth/keys", data=body, headers=JSON_HEADERS)
    await error_detail(response, 422)


# --- Routes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/nope", "/v0/memories", "/admin/nothing-here", "/auth/keys/a/b/c"]
)
async def test_unknown_route_is_404_json(client: TestClientProtocol, path: str) -> None:
    await error_detail(await client.get(path, headers=MASTER), 404)
    await error_detail(await client.get(path), 404)


async def test_wrong_method_is_405_json(client: TestClientProtocol) -> None:
    await error_detail(await client.patch("/auth/keys", headers=MASTER), 405)
    await error_detail(await client.post("/health"), 405)
