"""The local Neo4j that the scripts assemble from Maven Central: the pinned release, serving
Neo4j Browser, sized as its configuration says."""

import os
import urllib.request
from pathlib import Path

import pytest
from neo4j import AsyncDriver

from tests.support.neo4j_direct import query

HTTP_PORT = os.environ.get("TEST_NEO4J_HTTP_PORT")
SERVER_DIR = Path(os.environ.get("TEST_NEO4J_DIR", "."))
STARTED_BY_SCRIPT = "TEST_NEO4J_DIR" in os.environ
UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def setting(file: Path, name: str) -> str:
    """The value of `name=` in a key=value file (.env, neo4j.conf)."""
    return next(
        line.split("=", 1)[1].strip()
        for line in file.read_text().splitlines()
        if line.startswith(f"{name}=")
    )


@pytest.mark.skipif(HTTP_PORT is None, reason="needs the Neo4j started by scripts/test.sh")
def test_browser_answers_on_the_http_port() -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{HTTP_PORT}/browser/", timeout=10) as reply:
        page = reply.read().decode()
    assert reply.status == 200
    assert "Neo4j Browser" in page


@pytest.mark.skipif(HTTP_PORT is None, reason="needs the Neo4j started by scripts/test.sh")
def test_server_is_the_pinned_community_release() -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{HTTP_PORT}/", timeout=10) as reply:
        discovery = reply.read().decode()
    pinned = setting(Path(__file__).parents[2] / ".env", "NEO4J_VERSION")
    assert f'"neo4j_version":"{pinned}"' in discovery
    assert '"neo4j_edition":"community"' in discovery


@pytest.mark.skipif(not STARTED_BY_SCRIPT, reason="needs the Neo4j started by scripts/test.sh")
async def test_server_runs_with_the_configured_heap_and_no_fallbacks(
    neo4j_driver: AsyncDriver,
) -> None:
    size = setting(SERVER_DIR / "conf" / "neo4j.conf", "server.memory.heap.max_size")
    [memory] = await query(
        neo4j_driver,
        "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
        "RETURN attributes.HeapMemoryUsage.value.properties.max AS max",
    )
    assert memory["max"] == int(size[:-1]) * UNITS[size[-1].lower()]
    log = (SERVER_DIR / "logs" / "debug.log").read_text()
    assert "using fallback mode" not in log  # the page cache's direct buffer access
    assert "Error on attempt to preallocate" not in log  # the transaction log
