"""The startup check that every Cypher statement the code names has its cypher/ file.

Statements are named by a string literal as the first argument of a gateway call:
`graph.read("keys/verify", ...)`, `registry.graph.write(...)`, `self._graph.profile(...)`,
`tx.run(...)`. The check parses the package's modules (nothing is imported or run) and finds
those calls; a gateway call that names its statement any other way is an error too, so that
every name is seen and a missing file stops create_app() rather than the first request.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

APP_DIR = Path(__file__).resolve().parent
# The gateway hands statement text, not names, to the driver.
GATEWAY_MODULE = "graph.py"
GATEWAY_METHODS = frozenset({"read", "read_within", "probe", "write", "run", "profile"})
# What the code base calls the gateway and its transactions.
GATEWAY_RECEIVERS = frozenset({"graph", "_graph", "tx"})


class QueryNameError(RuntimeError):
    """The code names a statement that no cypher/ file provides, or names one unreadably."""


@dataclass(frozen=True)
class NamedQuery:
    name: str
    place: str  # "app/services/keys.py:55"


def _receiver(call: ast.Call) -> str | None:
    """The last name of what a method is called on: `tx` in tx.run, `graph` in a.graph.read."""
    assert isinstance(call.func, ast.Attribute)
    target = call.func.value
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def _calls(path: Path, root: Path) -> Iterator[tuple[ast.Call, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in GATEWAY_METHODS
            and node.args
        ):
            yield node, f"{path.relative_to(root).as_posix()}:{node.lineno}"


def named_queries(package: Path = APP_DIR) -> list[NamedQuery]:
    """Every statement name the package's modules pass to the gateway, with where."""
    return list(_scan(package))


# Once per package and process: every app a process creates checks the same unchanged sources
# (parsing them all takes about 0.1 s of CPU).
@functools.cache
def _scan(package: Path) -> tuple[NamedQuery, ...]:
    found: list[NamedQuery] = []
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() == GATEWAY_MODULE:
            continue
        for call, place in _calls(path, package.parent):
            first = call.args[0]
            literal = first.value if isinstance(first, ast.Constant) else None
            gateway = _receiver(call) in GATEWAY_RECEIVERS
            if isinstance(literal, str) and (gateway or "/" in literal):
                found.append(NamedQuery(literal, place))
            elif gateway:
                raise QueryNameError(
                    f"{place}: name the Cypher statement with a string literal "
                    '("<resource>/<verb>") so that startup can check its file exists'
                )
    return tuple(found)


def check(available: Collection[str], package: Path = APP_DIR) -> None:
    """Raises QueryNameError naming every cypher/<name>.cypher the code uses but nobody wrote."""
    missing = [use for use in named_queries(package) if use.name not in available]
    if missing:
        raise QueryNameError(
            "Cypher statements named in the code have no file: "
            + "; ".join(f"cypher/{use.name}.cypher (named at {use.place})" for use in missing)
        )
