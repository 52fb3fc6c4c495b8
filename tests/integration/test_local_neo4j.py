"""The local Neo4j that the scripts assemble from Maven Central serves Neo4j Browser."""

import os
import urllib.request
from pathlib import Path

import pytest

HTTP_PORT = os.environ.get("TEST_NEO4J_HTTP_PORT")


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
