"""`memory-service serve` runs the service until SIGTERM, on hypercorn or (SERVER=uvicorn) on
uvicorn, and `memory-service keys create` issues a working key through it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.conftest import PATIENT_S
from tests.support.machine import REPO
from tests.support.service_process import COMMAND, running_service, service_environment

pytestmark = pytest.mark.slow(1)


@pytest.mark.parametrize("server", ["hypercorn", "uvicorn"])
async def test_serve_then_create_a_key_and_use_it(tmp_path: Path, server: str) -> None:
    async with running_service(
        "cli-serve", tmp_path, forked=False, SCHEDULER_ENABLED="false", SERVER=server
    ) as service:
        environment = service_environment("cli-serve", MEMORY_SERVICE_URL=service.base_url)
        issued = await asyncio.create_subprocess_exec(
            *COMMAND,
            "keys",
            "create",
            "cli-user",
            "--name",
            "laptop",
            cwd=REPO,
            env=environment,
            stdout=asyncio.subprocess.PIPE,
        )
        output, _ = await asyncio.wait_for(issued.communicate(), timeout=PATIENT_S)
        assert issued.returncode == 0
        raw_key = output.decode().strip()
        assert raw_key.startswith("sk-")
        async with httpx.AsyncClient(base_url=service.base_url, timeout=PATIENT_S) as http:
            stored = await http.post(
                "/v1/memories",
                json={"content": "Issued from the command line."},
                headers={"Authorization": f"Bearer {raw_key}"},
            )
            assert stored.status_code in (200, 201), stored.text
            assert stored.json()["user_id"] == "cli-user"
        # SIGTERM: a clean stop
        assert service.terminate(timeout_s=PATIENT_S) == 0, service.log_tail()
    # The server asked for is the one that ran (its own messages carry its name).
    assert f'"logger": "{server}.error"' in service.log_path.read_text(encoding="utf-8")
