"""Health probes answer without credentials."""

from quart.typing import TestClientProtocol


async def test_liveness_is_plain_ok(client: TestClientProtocol) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    assert await response.get_data(as_text=True) == "ok"


async def test_readiness_reports_instance(client: TestClientProtocol) -> None:
    response = await client.get("/health/instance")
    assert response.status_code == 200
    assert await response.get_json() == {"status": "ok", "instance_id": "test-instance"}
