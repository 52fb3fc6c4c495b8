"""`memory-service serve` runs the service until SIGTERM, and `memory-service keys create`
issues a working key through it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.conftest import MASTER_KEY, NEO4J_URI
from tests.support.service_process import REPO, ServiceProcess, free_port

STARTUP_TIMEOUT_S = 120
COMMAND = [sys.executable, "-m", "app.cli"]


def _serve(port: int, environment: dict[str, str], log_path: Path) -> ServiceProcess:
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*COMMAND, "serve", "--port", str(port)],
            cwd=REPO,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return ServiceProcess("cli-serve", port, process, log_path)


async def test_serve_then_create_a_key_and_use_it(tmp_path: Path) -> None:
    port = free_port()
    environment = {
        **os.environ,
        "MASTER_KEY": MASTER_KEY,
        "NEO4J_URI": NEO4J_URI,
        "INSTANCE_ID": "cli-serve",
        "SCHEDULER_ENABLED": "false",
        "MEMORY_SERVICE_URL": f"http://127.0.0.1:{port}",
    }
    service = _serve(port, environment, tmp_path / "serve.log")
    try:
        await service.wait_ready(STARTUP_TIMEOUT_S)
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
        output, _ = await asyncio.wait_for(issued.communicate(), timeout=60)
        assert issued.returncode == 0
        raw_key = output.decode().strip()
        assert raw_key.startswith("sk-")
        async with httpx.AsyncClient(base_url=service.base_url, timeout=30) as http:
            stored = await http.post(
                "/v1/memories",
                json={"content": "Issued from the command line."},
                headers={"Authorization": f"Bearer {raw_key}"},
            )
            assert stored.status_code in (200, 201), stored.text
            assert stored.json()["user_id"] == "cli-user"
        assert service.terminate(timeout_s=30) == 0, service.log_tail()  # SIGTERM: a clean stop
    finally:
        service.kill()
