"""`memory-service serve` runs the service until SIGTERM, and `memory-service keys create`
issues a working key through it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.conftest import PATIENT_S
from tests.support.machine import REPO
from tests.support.service_process import COMMAND, running_service, service_environment

pytestmark = pytest.mark.slow(1)


async def test_serve_then_create_a_key_and_use_it(tmp_path: Path) -> None:
    async with running_service("cli-serve", tmp_path, SCHEDULER_ENABLED="false") as service:
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
        assert service.terminate(timeout_s=PATIENT_S) == 0, (
            service.log_tail()
        )  # SIGTERM: a clean stop
