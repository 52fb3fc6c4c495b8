"""The layering DESIGN.md §6 promises: the front ends (REST in app/api, MCP in app/mcp) sit on
top; the use cases, models, prompts and gateways below them never reach up into the REST layer
or into Quart, so the same use case runs from HTTP, MCP, the scheduler, a benchmark or a test."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
# The composition root and the front ends (REST, MCP, the console) may import the REST layer;
# nothing else.
ABOVE_THE_API = {"composition.py", "api", "console", "mcp", "cli.py", "server.py"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _below_the_api() -> list[Path]:
    return [
        path
        for path in sorted(APP.rglob("*.py"))
        if path.relative_to(APP).parts[0] not in ABOVE_THE_API
    ]


def test_nothing_below_the_api_imports_from_it() -> None:
    offenders = {
        str(path.relative_to(APP)): sorted(
            name for name in _imports(path) if name == "app.api" or name.startswith("app.api.")
        )
        for path in _below_the_api()
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_use_cases_never_import_quart() -> None:
    offenders = [
        str(path.relative_to(APP))
        for path in sorted((APP / "services").rglob("*.py"))
        if any(name.split(".")[0].startswith("quart") for name in _imports(path))
    ]
    assert offenders == []


def test_every_package_says_what_it_owns() -> None:
    undocumented = [
        str(init.relative_to(APP))
        for init in sorted(APP.rglob("__init__.py"))
        if ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) is None
    ]
    assert undocumented == []
