"""The startup check of Cypher statement names (app.query_names) against the cypher/ files."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import create_app, graph, query_names
from app.graph import load_queries
from tests.conftest import make_settings
from tests.support.embedders import no_embedder

AVAILABLE = frozenset({"keys/verify", "memories/list"})


def _package(tmp_path: Path, source: str) -> Path:
    package = tmp_path / "fakeapp"
    (package / "services").mkdir(parents=True)
    (package / "__init__.py").write_text('"""A fake app package."""\n')
    (package / "services" / "things.py").write_text(source)
    return package


def test_the_app_names_only_statements_that_have_files() -> None:
    query_names.check(load_queries())
    assert len(query_names.named_queries()) > 20  # the scan does find the gateway calls


def test_create_app_refuses_to_build_when_a_named_file_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queries = load_queries()
    del queries["keys/verify"]
    monkeypatch.setattr(graph, "load_queries", lambda: queries)
    with pytest.raises(query_names.QueryNameError, match=r"cypher/keys/verify\.cypher"):
        create_app(make_settings(), embedder=no_embedder())


def test_a_name_without_a_file_fails_naming_the_missing_file_and_where(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        "async def things(registry, tx):\n"
        '    await registry.graph.read("keys/verify", hash="h")\n'
        '    await tx.run("memories/list", user_id="u")\n'
        '    return await registry.graph.write("things/missing", user_id="u")\n',
    )
    with pytest.raises(query_names.QueryNameError) as raised:
        query_names.check(AVAILABLE, package)
    message = str(raised.value)
    assert "cypher/things/missing.cypher" in message
    assert "fakeapp/services/things.py:4" in message
    assert "keys/verify" not in message and "memories/list" not in message


def test_every_gateway_method_and_receiver_is_checked(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        "async def things(registry, graph, tx, self):\n"
        '    await graph.profile("a/profiled")\n'
        '    await self._graph.write("a/written")\n'
        '    await tx.run("a/run")\n'
        '    await registry().graph.read("a/read")\n',
    )
    names = {use.name for use in query_names.named_queries(package)}
    assert names == {"a/profiled", "a/written", "a/run", "a/read"}


def test_a_name_that_is_not_a_literal_is_refused(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        'QUERY = "keys/verify"\n\nasync def things(graph):\n    return await graph.read(QUERY)\n',
    )
    with pytest.raises(query_names.QueryNameError, match=r"things\.py:4: .*string literal"):
        query_names.check(AVAILABLE, package)


def test_calls_of_other_objects_are_left_alone(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        "async def things(job, registry, stream):\n"
        "    await job.run(registry)\n"
        "    return stream.read(10)\n",
    )
    assert query_names.named_queries(package) == []
