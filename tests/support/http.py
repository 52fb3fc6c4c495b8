"""Assertions on HTTP responses of the service."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import MASTER


async def error_detail(response: Any, status: int) -> str:
    """Asserts an error response: the status and a JSON body whose "detail" is a string."""
    text = await response.get_data(as_text=True)
    assert response.status_code == status, text
    assert response.mimetype == "application/json", text
    body = await response.get_json()
    assert isinstance(body, dict), text
    assert isinstance(body.get("detail"), str), text
    assert body["detail"], text
    return str(body["detail"])


async def issue_key(
    client: TestClientProtocol, user_id: str, name: str = "test", **extra: Any
) -> dict[str, Any]:
    """Issues a key with the master key and returns the 201 body (with raw_key)."""
    response = await client.post(
        "/auth/keys", json={"user_id": user_id, "name": name, **extra}, headers=MASTER
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body


def bearer(raw_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {raw_key}"}
