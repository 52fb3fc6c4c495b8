"""Generic HTTP helpers: error responses, requests that must succeed, keys and bearer headers."""

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


async def post_created(
    client: TestClientProtocol, path: str, headers: dict[str, str], body: dict[str, Any]
) -> dict[str, Any]:
    """POSTs a JSON body, asserts 201, and returns the created resource."""
    response = await client.post(path, json=body, headers=headers)
    assert response.status_code == 201, await response.get_data(as_text=True)
    created: dict[str, Any] = await response.get_json()
    return created


async def body_of(response: Any, status: int = 200) -> Any:
    """Asserts the response's status and returns its JSON body."""
    assert response.status_code == status, await response.get_data(as_text=True)
    return await response.get_json()


async def request_ok(
    client: TestClientProtocol, method: str, path: str, headers: dict[str, str], **kwargs: Any
) -> Any:
    """Sends one request, asserts 200 or 201, and returns the JSON body."""
    response = await client.open(path, method=method, headers=headers, **kwargs)
    assert response.status_code in (200, 201), await response.get_data(as_text=True)
    return await response.get_json()


async def issue_key(
    client: TestClientProtocol, user_id: str, name: str = "test", **extra: Any
) -> dict[str, Any]:
    """Issues a key with the master key and returns the 201 body (with raw_key)."""
    return await post_created(
        client, "/auth/keys", MASTER, {"user_id": user_id, "name": name, **extra}
    )


def bearer(raw_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {raw_key}"}
