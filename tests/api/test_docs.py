"""docs/api.md documents every route the service serves, in the section of its group (as
/openapi.json tags it), and no route the service does not serve."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from quart.typing import TestClientProtocol

from tests.support.markdown import sections

API_PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ROUTE_HEADING = re.compile(r"^### `(GET|POST|PUT|PATCH|DELETE) (/\S*)`$", re.MULTILINE)


async def test_every_route_is_documented_in_its_group(client: TestClientProtocol) -> None:
    document: dict[str, Any] = await (await client.get("/openapi.json")).get_json()
    groups = sections(API_PAGE.read_text(encoding="utf-8"), level=2)
    served = set()
    missing = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            route = f"{method.upper()} {path}"
            served.add(route)
            if f"### `{route}`" not in groups.get(operation["tags"][0], ""):
                missing.append(f"{route} (under ## {operation['tags'][0]})")
    assert missing == []
    documented = {f"{m} {p}" for text in groups.values() for m, p in ROUTE_HEADING.findall(text)}
    assert documented - served == set()  # nothing documented that is gone
