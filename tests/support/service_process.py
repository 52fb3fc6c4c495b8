"""The service as a real separate OS process (`memory-service serve`), for tests that need several
instances against one Neo4j, a real server, or a clean stop."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import MASTER, MASTER_KEY, NEO4J_URI, PATIENT_S, STARTUP_TIMEOUT_S
from tests.support.forked_service import ForkedProcess, die_with_parent, fork_service
from tests.support.machine import REPO
from tests.support.waiting import wait_for


@dataclass
class ServiceProcess:
    instance_id: str
    process: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path
    # The port the OS gave it (`serve --port 0`), known once its log names it (`wait_ready`): a
    # port picked free here could be taken by another worker's server before this one binds it.
    port: int = 0

    @property
    def base_url(self) -> str:
        assert self.port, f"{self.instance_id} has not said yet which port it listens on"
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    async def wait_ready(self, timeout_s: float) -> None:
        """Waits for the log to name the port the process listens on, then for
        GET /health/instance to answer 200 there (the app has started serving)."""

        def exited() -> str | None:
            if self.process.poll() is None:
                return None
            return f"{self.instance_id} exited with {self.process.returncode}:\n{self.log_tail()}"

        async def listening() -> int | None:
            problem = exited()
            if problem is not None:
                raise AssertionError(problem)
            found = LISTENING.search(self.log_path.read_text(encoding="utf-8", errors="replace"))
            return int(found[1]) if found else None

        try:
            self.port = await wait_for(f"{self.instance_id} to listen", listening, timeout_s)
            await wait_until_ready(self.base_url, timeout_s, exited)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.log_tail()}") from error

    def kill(self) -> None:
        """SIGKILL: the process (and anything it started) dies at once, without any shutdown."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)  # its own session: only its group
        self.process.wait(timeout=10)

    def terminate(self, timeout_s: float = PATIENT_S) -> int:
        """SIGTERM and wait (the service stops gracefully); SIGKILL if it takes too long."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode


async def wait_until_ready(
    base_url: str, timeout_s: float, stopped: Callable[[], str | None]
) -> None:
    """Waits for GET /health/instance to answer 200; AssertionError with `stopped()`'s account
    when the server stops first or is not ready after `timeout_s`."""
    async with httpx.AsyncClient(timeout=2.0) as http:

        async def ready() -> bool:
            problem = stopped()
            if problem is not None:
                raise AssertionError(problem)
            with contextlib.suppress(httpx.HTTPError):
                return (await http.get(f"{base_url}/health/instance")).status_code == 200
            return False

        await wait_for(f"{base_url} to be ready", ready, timeout_s)


COMMAND = [sys.executable, "-m", "app.cli"]  # the console entry point, as installed
# How hypercorn and uvicorn name the address they listen on, in the service's log.
LISTENING = re.compile(r"[Rr]unning on http://127\.0\.0\.1:(\d+)")


def service_environment(instance_id: str, **env: str) -> dict[str, str]:
    """A service process's environment: this one's, with the tests' master key and Neo4j, and
    time limits that a busy machine does not reach (as make_settings)."""
    return {
        **os.environ,
        "MASTER_KEY": MASTER_KEY,
        "NEO4J_URI": NEO4J_URI,
        "INSTANCE_ID": instance_id,
        "GRAPH_TIME_LIMIT_S": str(PATIENT_S),
        "NEO4J_RETRY_S": str(PATIENT_S),
        **env,
    }


async def new_user(http: httpx.AsyncClient, prefix: str) -> tuple[str, str]:
    """A fresh user of a service process (created by issuing a key with the master key):
    (user_id, raw API key)."""
    user_id = f"{prefix}-{uuid.uuid4().hex[:10]}"
    response = await http.post(
        "/auth/keys", json={"user_id": user_id, "name": prefix}, headers=MASTER
    )
    assert response.status_code == 201, response.text
    raw_key: str = response.json()["raw_key"]
    return user_id, raw_key


def start_service(
    instance_id: str, log_dir: Path, *, forked: bool = True, **env: str
) -> ServiceProcess:
    """Starts `memory-service serve` on a port the OS picks with the given extra environment
    (the app runs in that very process, so killing the process kills the instance): forked from
    a process that has imported the service (tests/support/forked_service.py), or, `forked`
    False, as the shell runs the command."""
    log_path = log_dir / f"{instance_id}.log"
    argv = ["serve", "--port", "0"]
    environment = service_environment(instance_id, **env)
    if forked:
        return ServiceProcess(
            instance_id, fork_service(argv, environment, log_path, REPO), log_path
        )
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*COMMAND, *argv],
            cwd=REPO,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
    return ServiceProcess(instance_id, process, log_path)


@contextlib.asynccontextmanager
async def running_service(
    instance_id: str, log_dir: Path, *, forked: bool = True, **env: str
) -> AsyncIterator[ServiceProcess]:
    """A service process started and ready for the block, killed when the block is done (a
    clean stop the block makes itself, with `terminate`, comes first)."""
    service = start_service(instance_id, log_dir, forked=forked, **env)
    try:
        await service.wait_ready(STARTUP_TIMEOUT_S)
        yield service
    finally:
        service.kill()


def logs_of(services: list[ServiceProcess]) -> str:
    """The last lines of each service's log, for a failure's message."""
    return "\n\n".join(f"--- {s.instance_id}\n{s.log_tail()}" for s in services)
