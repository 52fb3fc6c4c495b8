"""Service processes forked from one that has already imported the service and its model's
libraries (the standard library's forkserver), for the tests that start `memory-service serve`
without testing the command line itself.

Importing torch, sentence-transformers and the HTTP layer is 9 s of the 11 to 13 s of CPU a
service process spends until it is ready, and the suite starts about ten of them: a worker
imports them once, in its forkserver. The forkserver imports and starts nothing else, and
each child makes its own session, log and environment before it runs the command's `main`, as
the shell gives `memory-service serve` (its app, model and warm-up are its own). This module
imports nothing of the tests: a child imports it to find its entry point."""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import subprocess
from multiprocessing.process import BaseProcess
from pathlib import Path

PR_SET_PDEATHSIG = 1
# What the forkserver imports before it forks: the composition root (which imports the HTTP
# layer, and sets the model's environment before torch loads), the servers, the command line,
# and the model's libraries, which the service imports when it builds its embedder.
PRELOAD = ["app.composition", "app.server", "app.cli", "sentence_transformers"]
_FORKSERVER = multiprocessing.get_context("forkserver")
_FORKSERVER.set_forkserver_preload(PRELOAD)


def die_with_parent() -> None:
    """Linux: this process is killed when its parent dies (the test process, or the forkserver,
    which ends with it) without cleaning up."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _serve(argv: list[str], environment: dict[str, str], log_path: str, cwd: str) -> None:
    """The child: a session of its own, its output into the log, the test's environment and
    working directory, then the command's main."""
    os.setsid()
    die_with_parent()
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND)
    for stream in (1, 2):
        os.dup2(log, stream)
    os.close(log)
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    from app.cli import main

    main(argv)


class ForkedProcess:
    """A forked service as the part of subprocess.Popen's interface that tests use."""

    def __init__(self, process: BaseProcess) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        assert self._process.pid is not None
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(f"service {self.pid}", timeout)
        return self._process.exitcode

    def terminate(self) -> None:
        self._process.terminate()


def fork_service(
    argv: list[str], environment: dict[str, str], log_path: Path, cwd: Path
) -> ForkedProcess:
    """Starts `memory-service <argv>` in a child of this process's forkserver (started, with
    its imports, on the first call). The log exists, empty, when it returns."""
    log_path.write_bytes(b"")
    process = _FORKSERVER.Process(
        target=_serve, args=(argv, environment, str(log_path), str(cwd)), daemon=True
    )
    process.start()
    return ForkedProcess(process)
