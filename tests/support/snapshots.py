"""HTTP helpers for the snapshot endpoints: take, list and roll back."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.support.http import post_created

Headers = dict[str, str]


async def take_snapshot(
    client: TestClientProtocol, headers: Headers, name: str, **fields: Any
) -> dict[str, Any]:
    """Takes a snapshot (asserts 201) and returns it."""
    return await post_created(client, "/v1/snapshots", headers, {"name": name, **fields})


async def list_snapshots(client: TestClientProtocol, headers: Headers) -> list[dict[str, Any]]:
    """The user's snapshots, newest first (asserts 200)."""
    response = await client.get("/v1/snapshots", headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    listed: list[dict[str, Any]] = await response.get_json()
    return listed


async def roll_back(client: TestClientProtocol, headers: Headers, name: str) -> dict[str, Any]:
    """Rolls back to a snapshot (asserts 200) and returns the outcome."""
    response = await client.post(f"/v1/snapshots/{name}/rollback", headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body
