"""A Neo4j server of its own (neo4j/server.sh in a directory of its own, on free ports): the one
of a pytest-xdist worker (tests/conftest.py), or one a test may kill, stop and start again."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from neo4j import GraphDatabase

from tests.support.machine import REPO, free_port

SERVER_SCRIPT = REPO / "neo4j" / "server.sh"


@dataclass
class Neo4jServer:
    """One local server: its data, logs and pid file live in `directory`."""

    directory: Path
    bolt_port: int
    http_port: int
    heap: str = "512m"
    pagecache: str = "256m"
    # neo4j.conf settings for server.sh (NEO4J_CONF_EXTRA); None: the run's (scripts/test.sh
    # keeps plans as the data grows), "" Neo4j's defaults.
    settings: str | None = None

    @classmethod
    def on_free_ports(cls, directory: Path, settings: str | None = None) -> Neo4jServer:
        bolt = free_port()
        http = free_port()
        while http == bolt:
            http = free_port()
        return cls(directory, bolt, http, settings=settings)

    @classmethod
    def prepared(cls, variable: str, settings: str | None = None) -> Neo4jServer | None:
        """The server scripts/test.sh started and named in `variable` ("BOLT HTTP DIR"), or None
        when it names none (run without the script)."""
        named = os.environ.get(variable)
        if not named:
            return None
        bolt, http, directory = named.split(" ", 2)
        return cls(Path(directory), int(bolt), int(http), settings=settings)

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def pid_file(self) -> Path:
        return self.directory / "run" / "neo4j.pid"

    def pid(self) -> int | None:
        """The server's process id, as server.sh wrote it (None when it is not running)."""
        with contextlib.suppress(OSError, ValueError):
            return int(self.pid_file.read_text().strip())
        return None

    def start(self, timeout_s: float = 180.0) -> None:
        """Starts the server (on the same directory and ports every time) and waits until its
        database answers a query (at most `timeout_s`)."""
        started = time.monotonic()
        env = {**os.environ, "NEO4J_HEAP": self.heap, "NEO4J_PAGECACHE": self.pagecache}
        if self.settings is not None:
            env["NEO4J_CONF_EXTRA"] = self.settings
        subprocess.run(
            [
                str(SERVER_SCRIPT),
                "start",
                str(self.directory),
                str(self.bolt_port),
                str(self.http_port),
            ],
            check=True,
            cwd=REPO,
            env=env,
            timeout=timeout_s,
            stdout=subprocess.DEVNULL,
        )
        self._wait_for_database(started + timeout_s)

    def kill(self) -> None:
        """SIGKILL: the server dies at once, without any shutdown (as on a power cut or the OOM
        killer); the pid file goes so that start() launches a new one."""
        pid = self.pid()
        assert pid is not None, f"no Neo4j pid file in {self.directory}"
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"Neo4j {pid} survived SIGKILL"
        self.pid_file.unlink(missing_ok=True)

    def stop(self) -> None:
        """A clean shutdown (server.sh stop: SIGTERM, and wait until it has exited)."""
        subprocess.run(
            [str(SERVER_SCRIPT), "stop", str(self.directory)],
            check=True,
            cwd=REPO,
            timeout=120,
            stdout=subprocess.DEVNULL,
        )

    def remove(self) -> None:
        """Kills the server whatever its state and deletes its directory (its data goes with it:
        a clean shutdown would only spend the seconds it takes to flush it)."""
        if self.pid() is not None:
            self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _wait_for_database(self, deadline: float) -> None:
        # The Bolt port opens before the database is online: wait for a query to succeed.
        with GraphDatabase.driver(self.uri, auth=None, connection_timeout=2.0) as driver:
            while True:
                try:
                    driver.execute_query("RETURN 1", database_="neo4j")
                    return
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.25)


def _alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent to reap it does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
