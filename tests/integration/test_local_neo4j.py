"""The local Neo4j that the scripts assemble from Maven Central: the pinned release, serving
Neo4j Browser, sized as its configuration says."""

import os
import urllib.request
from pathlib import Path

import pytest
from neo4j import GraphDatabase

HTTP_PORT = os.environ.get("TEST_NEO4J_HTTP_PORT")
SERVER_DIR = os.environ.get("TEST_NEO4J_DIR")
UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


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
    pinned = next(
        line.split("=", 1)[1].strip()
        for line in (Path(__file__).parents[2] / ".env").read_text().splitlines()
        if line.startswith("NEO4J_VERSION=")
    )
    assert f'"neo4j_version":"{pinned}"' in discovery
    assert '"neo4j_edition":"community"' in discovery


def configured(setting: str) -> str:
    conf = Path(str(SERVER_DIR)) / "conf" / "neo4j.conf"
    return next(
        line.split("=", 1)[1].strip()
        for line in conf.read_text().splitlines()
        if line.startswith(f"{setting}=")
    )


@pytest.mark.skipif(SERVER_DIR is None, reason="needs the Neo4j started by scripts/test.sh")
def test_server_runs_with_the_configured_heap_and_no_fallbacks() -> None:
    size = configured("server.memory.heap.max_size")
    with GraphDatabase.driver(os.environ["NEO4J_URI"]) as driver:
        records, _, _ = driver.execute_query(
            "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
            "RETURN attributes.HeapMemoryUsage.value.properties.max AS max"
        )
    assert records[0]["max"] == int(size[:-1]) * UNITS[size[-1].lower()]
    log = (Path(str(SERVER_DIR)) / "logs" / "debug.log").read_text()
    assert "using fallback mode" not in log  # the page cache's direct buffer access
    assert "Error on attempt to preallocate" not in log  # the transaction log
