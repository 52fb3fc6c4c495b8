"""HTTP helpers for governance, consolidate, reflect and the admin trigger."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import MASTER
from tests.support.http import request_ok

Headers = dict[str, str]


def days_ago(days: float) -> str:
    """An ISO timestamp `days` before now (a backdated observed_at)."""
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


async def run(
    client: TestClientProtocol, headers: Headers, op: str, force: bool = True, **body: Any
) -> dict[str, Any]:
    """POST /v1/<op> (governance, consolidate or reflect), forced by default; asserts 200."""
    response = await client.post(
        f"/v1/{op}", query_string={"force": str(force).lower()}, json=body, headers=headers
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    report: dict[str, Any] = await response.get_json()
    return report


async def trigger(client: TestClientProtocol, user_id: str, op: str) -> Any:
    """POST /admin/governance/{user_id}/trigger?op=... with the master key (the response)."""
    return await client.post(
        f"/admin/governance/{user_id}/trigger", query_string={"op": op}, headers=MASTER
    )


async def reflect_candidates(client: TestClientProtocol, headers: Headers) -> list[Any]:
    """The clusters POST /v1/reflect/candidates offers (asserts 200)."""
    body = await request_ok(client, "POST", "/v1/reflect/candidates", headers, json={})
    items: list[Any] = body["items"]
    return items
