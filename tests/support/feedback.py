"""HTTP helpers for feedback signals on memories."""

from __future__ import annotations

from quart.typing import TestClientProtocol

Headers = dict[str, str]


async def give_feedback(
    client: TestClientProtocol, headers: Headers, memory_id: str, signal: str, times: int = 1
) -> None:
    """Gives the same signal `times` times, each answered 201."""
    for _ in range(times):
        response = await client.post(
            f"/v1/memories/{memory_id}/feedback", json={"signal": signal}, headers=headers
        )
        assert response.status_code == 201, await response.get_data(as_text=True)
