"""Shared helpers for the benchmarks: a throwaway Neo4j, the service as a process or in-process,
raw index queries, statistics and tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import logging
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import neo4j
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# Where the service's code is imported from: this checkout, or an exported tree named first on
# PYTHONPATH (to measure a fixed commit while the checkout changes; see README.md).
_APP_SPEC = importlib.util.find_spec("app")
CODE_ROOT = (
    Path(_APP_SPEC.origin).resolve().parent.parent if _APP_SPEC and _APP_SPEC.origin else ROOT
)
MASTER_KEY = "bench-master-key-0123456789abcdef"
DEFAULT_BOLT = 30687
DEFAULT_HTTP = 30474

# The raw first-stage queries, exactly as the service's candidates.cypher runs each half.
VECTOR_QUERY = """CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (
    VECTOR INDEX memory_embedding
    FOR $vector
    WHERE m.user_id = $user_id AND m.branch = 'main' AND m.is_active = true
    LIMIT $k
  ) SCORE AS score
RETURN m.memory_id AS memory_id, score"""

FULLTEXT_QUERY = """CALL db.index.fulltext.queryNodes('memory_content', $lucene, {limit: $k})
  YIELD node, score
WITH node AS m, score
WHERE m.user_id = $user_id AND m.branch = 'main' AND m.is_active
RETURN m.memory_id AS memory_id, score"""


logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
logging.getLogger("app.access").setLevel(logging.WARNING)  # nor the service's access log


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Neo4j


@dataclass
class Database:
    uri: str
    owned: bool  # started by this benchmark (so it may be reshaped and is removed at the end)


@contextlib.contextmanager
def neo4j_database(heap: str = "4g", pagecache: str = "2g") -> Iterator[Database]:
    """NEO4J_URI if given; else a throwaway server in var/bench-neo4j-<bolt>, removed after."""
    given = os.environ.get("NEO4J_URI")
    if given:
        log(f"using the Neo4j at {given} (NEO4J_URI); it is left as it is afterwards")
        yield Database(given, owned=False)
        return
    bolt = int(os.environ.get("BENCH_NEO4J_BOLT_PORT", DEFAULT_BOLT))
    http = int(os.environ.get("BENCH_NEO4J_HTTP_PORT", DEFAULT_HTTP))
    directory = ROOT / "var" / f"bench-neo4j-{bolt}"
    server = str(ROOT / "neo4j" / "server.sh")
    env = {
        **os.environ,
        "NEO4J_HEAP": os.environ.get("NEO4J_HEAP", heap),
        "NEO4J_PAGECACHE": os.environ.get("NEO4J_PAGECACHE", pagecache),
    }

    def remove() -> None:
        subprocess.run([server, "stop", str(directory)], check=False, cwd=ROOT)
        shutil.rmtree(directory, ignore_errors=True)

    remove()  # a leftover from an interrupted run
    log(f"starting Neo4j in {directory.relative_to(ROOT)} (bolt {bolt}, http {http})")
    try:
        subprocess.run([server, "start", str(directory), str(bolt), str(http)], check=True, env=env)
        uri = f"bolt://127.0.0.1:{bolt}"
        wait_for_bolt(uri)
        yield Database(uri, owned=True)
    finally:
        log("stopping and removing the benchmark Neo4j")
        remove()


def wait_for_bolt(uri: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    with neo4j.GraphDatabase.driver(uri, auth=None) as driver:
        while True:
            try:
                driver.execute_query("RETURN 1")
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)


def driver(uri: str) -> neo4j.Driver:
    return neo4j.GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF")


def vector_index_options(db: neo4j.Driver) -> dict[str, Any]:
    records, _, _ = db.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'memory_embedding' RETURN options"
    )
    return dict(records[0]["options"]["indexConfig"]) if records else {}


def raw_vector(
    db: neo4j.Driver, user_id: str, vector: Sequence[float], k: int
) -> list[tuple[str, float]]:
    """(memory_id, score in 0..1) of the vector half of the first stage, best first."""
    records, _, _ = db.execute_query(
        VECTOR_QUERY, user_id=user_id, vector=list(vector), k=k, routing_="r"
    )
    return [(record["memory_id"], record["score"]) for record in records]


def raw_fulltext(
    db: neo4j.Driver, user_id: str, lucene: str | None, k: int
) -> list[tuple[str, float]]:
    """(memory_id, score) of the full-text half of the first stage, best first."""
    if lucene is None:
        return []
    records, _, _ = db.execute_query(
        FULLTEXT_QUERY, user_id=user_id, lucene=lucene, k=k, routing_="r"
    )
    return [(record["memory_id"], record["score"]) for record in records]


def similarities(
    db: neo4j.Driver, user_id: str, vector: Sequence[float], memory_ids: Sequence[str]
) -> dict[str, float]:
    """The cosine score (0..1) of each named memory of the user's main branch to a vector, as
    the first stage gives every candidate."""
    records, _, _ = db.execute_query(
        "MATCH (m:Memory) WHERE m.memory_id IN $ids AND m.user_id = $user_id "
        "AND m.branch = 'main' AND m.is_active "
        "RETURN m.memory_id AS memory_id, vector.similarity.cosine(m.embedding, $vector) AS score",
        ids=list(memory_ids),
        user_id=user_id,
        vector=list(vector),
        routing_="r",
    )
    return {record["memory_id"]: record["score"] for record in records}


# ---------------------------------------------------------------------------------------------
# The service


def master_headers(user_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {MASTER_KEY}", "X-User-Id": user_id}


def settings(uri: str, **overrides: Any) -> Any:
    """The service's settings for an in-process app: no scheduler, no rate limits."""
    from app.config import Settings

    values: dict[str, Any] = {
        "master_key": MASTER_KEY,
        "neo4j_uri": uri,
        "scheduler_enabled": False,
        "rate_limits_enabled": False,
        "instance_id": "bench",
    }
    return Settings(**(values | overrides))


def embedder() -> Any:
    """The configured embedder (EMBEDDING_MODEL and the other EMBEDDING_* variables, as the
    service reads them; the default model when unset), not yet started."""
    from app.embedding import embedder_for

    return embedder_for(settings("bolt://unused"))


class PresetBackend:
    """An embedding backend handing back vectors computed beforehand, by text, under the real
    model's id (they are that model's vectors). With a `seed`, a text it has no vector for
    (another text, or any query) gets a random unit vector instead of a KeyError."""

    def __init__(
        self,
        model_id: str,
        dimensions: int,
        vectors: dict[str, list[float]] | None = None,
        seed: int | None = None,
    ) -> None:
        self.model_id = model_id
        self.dimensions = dimensions
        self.preset: dict[str, list[float]] = dict(vectors or {})
        self._rng = None if seed is None else np.random.default_rng(seed)

    def random(self, count: int) -> list[list[float]]:
        assert self._rng is not None, "random vectors need a seed"
        vectors = self._rng.standard_normal((count, self.dimensions)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rows: list[list[float]] = vectors.tolist()
        return rows

    async def start(self) -> None:
        return None

    async def embed(self, texts: Sequence[str], role: str) -> list[list[float]]:
        if self._rng is None:
            return [self.preset[text] for text in texts]
        # With a seed, a query is never one of the preset documents: it gets a random vector.
        known = self.preset if role == "document" else {}
        unknown = [text for text in texts if text not in known]
        extra = dict(zip(unknown, self.random(len(unknown)), strict=True))
        return [known.get(text) or extra[text] for text in texts]

    async def close(self) -> None:
        return None


@functools.cache
def _endpoint() -> tuple[Any, asyncio.AbstractEventLoop]:
    """An endpoint backend of its own for blocking encodes, and the one event loop its HTTP
    client lives on, on a thread of its own: a blocking encode may be asked from inside another
    loop, and a client stays bound to the loop of its first request (the service's embedder's
    to the app's)."""
    from app.embedding import backend_for

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="endpoint-loop", daemon=True).start()
    return backend_for(settings("bolt://unused")), loop


def encode_now(embedder: Any, texts: list[str], role: str = "document") -> list[list[float]]:
    """Blocking encode of texts with the embedder's model, as its backend does (no cache): the
    raw encode figures' reference. An endpoint is asked directly over HTTP."""
    from app.embedding import LocalBackend, Role

    backend = embedder.backend
    if isinstance(backend, LocalBackend):
        return backend.embed_now(texts, Role(role))
    own, loop = _endpoint()
    vectors: list[list[float]] = asyncio.run_coroutine_threadsafe(
        own.embed(texts, Role(role)), loop
    ).result()
    return vectors


@contextlib.asynccontextmanager
async def in_process_client(uri: str, embedder: Any) -> AsyncIterator[Any]:
    """The real app (create_app with the given embedder) and its test client."""
    from quart.testing.app import TestApp

    from app import create_app

    app = create_app(settings(uri), embedder=embedder)
    # Startup applies migrations and creates indexes: slow on a fresh server's first queries.
    async with TestApp(app, startup_timeout=300, shutdown_timeout=60):
        yield app.test_client()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Service:
    process: subprocess.Popen[bytes]
    base_url: str

    def processes(self) -> list[int]:
        """The service's process and any descendants."""
        found = [self.process.pid]
        for pid in found:
            with contextlib.suppress(OSError):
                for task in os.listdir(f"/proc/{pid}/task"):
                    children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                    found.extend(int(child) for child in children if int(child) not in found)
        return found

    def memory(self) -> list[dict[str, Any]]:
        """VmRSS and VmHWM (MiB) of every process of the service."""
        rows = []
        for pid in self.processes():
            fields: dict[str, Any] = {"pid": pid}
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key == "Name":
                        fields["name"] = value.strip()
                    if key in ("VmRSS", "VmHWM"):
                        fields[key] = int(value.split()[0]) / 1024
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                fields["cmd"] = " ".join(part.decode() for part in cmdline[:3])[:60]
            rows.append(fields)
        return rows


@contextlib.contextmanager
def service_process(
    uri: str, port: int | None = None, env: dict[str, str] | None = None
) -> Iterator[Service]:
    """`memory-service serve` (as scripts/serve.sh runs it) as its own process, with this
    interpreter: the venv's console script names the interpreter the venv was built with."""
    port = port or free_port()
    env = {
        **os.environ,
        **(env or {}),
        "MASTER_KEY": MASTER_KEY,
        "NEO4J_URI": uri,
        "RATE_LIMITS_ENABLED": "false",
        "SCHEDULER_ENABLED": "false",
        "INSTANCE_ID": "bench-service",
        "PYTHONPATH": os.pathsep.join(
            part for part in (str(CODE_ROOT), os.environ.get("PYTHONPATH", "")) if part
        ),
    }
    log_path = ROOT / "var" / f"bench-service-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
            cwd=CODE_ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    service = Service(process, f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the service exited; see {log_path}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{service.base_url}/health/instance", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start; see {log_path}")
            time.sleep(0.5)
        log(f"service up at {service.base_url} (pid {process.pid}, log {log_path.name})")
        yield service
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log_path.unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------
# Figures


def load_average() -> tuple[float, float, float]:
    one, five, fifteen = os.getloadavg()
    return one, five, fifteen


def busy_processes(limit: int = 6) -> list[str]:
    """The processes that used the most CPU lately (ps), to say what else ran meanwhile."""
    result = subprocess.run(
        ["ps", "-eo", "pcpu,comm", "--sort=-pcpu", "--no-headers"],
        capture_output=True,
        text=True,
        check=False,
    )
    return [" ".join(line.split()) for line in result.stdout.splitlines()[:limit]]


def wait_for_quiet(threshold: float = 2.5, max_wait_s: float = 180.0) -> None:
    """Waits (bounded) until the 1-minute load average is below `threshold`.

    Timing figures are only as good as the machine is idle: on a shared 2-core machine other
    work (test suites, other databases) can double every latency. The load is printed with
    the figures either way.
    """
    deadline = time.monotonic() + max_wait_s
    while load_average()[0] >= threshold and time.monotonic() < deadline:
        time.sleep(5)
    one, five, _ = load_average()
    state = "quiet enough" if one < threshold else "still busy, measuring anyway"
    log(f"load average {one:.2f} (5 min {five:.2f}): {state}")


def code_state() -> str:
    """The commit measured, and whether the service's code has uncommitted changes."""

    def git(*args: str) -> str:
        result = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False
        )
        return result.stdout.strip()

    if CODE_ROOT != ROOT:
        marker = CODE_ROOT / ".bench-commit"
        commit = marker.read_text().strip() if marker.exists() else "commit unknown"
        return f"code: exported tree {CODE_ROOT} ({commit})"
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--", "app", "cypher", "migrations").splitlines()
    state = f"{len(changed)} uncommitted change(s) under app/ cypher/ migrations/"
    return f"code: HEAD {head}, {state if changed else 'clean'}"


def load_line(label: str) -> str:
    one, five, fifteen = load_average()
    return f"load average {label}: {one:.2f} / {five:.2f} / {fifteen:.2f} (1/5/15 min, 2 cores)"


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt(value: Any, digits: int = 3) -> str:
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[fmt(value) for value in row] for row in rows]
    widths = [
        max(len(str(header)), *(len(row[i]) for row in cells)) if cells else len(str(header))
        for i, header in enumerate(headers)
    ]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            value.ljust(width) if i == 0 else value.rjust(width)
            for i, (value, width) in enumerate(zip(values, widths, strict=True))
        )

    out = [f"\n{title}", line([str(h) for h in headers]), line(["-" * w for w in widths])]
    out += [line(row) for row in cells]
    return "\n".join(out)


def verdict(value: float, target: float, higher_is_better: bool = True) -> str:
    met = value >= target if higher_is_better else value <= target
    return "met" if met else "MISSED"
