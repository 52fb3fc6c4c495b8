"""`memory-service serve` runs the service until SIGTERM, `memory-service keys create` issues a
working key through it, every subcommand has help, and `mcp` (stdio) wants the user's key."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import httpx

from tests.conftest import MASTER_KEY, NEO4J_URI
from tests.support.service_process import COMMAND, REPO, free_port, serve_command

STARTUP_TIMEOUT_S = 120


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
    service = serve_command(port, environment, tmp_path / "serve.log")
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


def test_every_subcommand_has_help() -> None:
    shown = subprocess.run(
        [*COMMAND, "--help"], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    for subcommand in ("serve", "mcp", "keys", "reembed", "version"):
        assert subcommand in shown.stdout
    mcp_help = subprocess.run(
        [*COMMAND, "mcp", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert "MEMORY_SERVICE_URL" in mcp_help.stdout


def test_mcp_over_stdio_needs_the_users_api_key() -> None:
    environment = {k: v for k, v in os.environ.items() if k != "MEMORY_API_KEY"}
    started = subprocess.run(
        [*COMMAND, "mcp"], cwd=REPO, env=environment, capture_output=True, text=True, timeout=60
    )
    assert started.returncode == 2
    assert "MEMORY_API_KEY" in started.stderr
