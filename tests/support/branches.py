"""HTTP helpers for the branch endpoints: create, check out, merge, and a conflict between a
branch and main."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.support.http import post_created, request_ok
from tests.support.memories import correct

Headers = dict[str, str]


async def create_branch(
    client: TestClientProtocol, headers: Headers, name: str, **fields: Any
) -> dict[str, Any]:
    """Creates a branch (asserts 201) and returns it."""
    return await post_created(client, "/v1/branches", headers, {"name": name, **fields})


async def merge(
    client: TestClientProtocol, headers: Headers, name: str, strategy: str
) -> dict[str, Any]:
    """Merges the branch into main with the strategy (asserts 200) and returns the report."""
    body: dict[str, Any] = await request_ok(
        client, "POST", f"/v1/branches/{name}/merge", headers, json={"strategy": strategy}
    )
    return body


async def check_out(client: TestClientProtocol, headers: Headers, name: str) -> None:
    """Checks a branch out and asserts it became the active one."""
    body = await request_ok(client, "POST", f"/v1/branches/{name}/checkout", headers)
    assert body["active_branch"] == name


async def correct_on_both_sides(
    client: TestClientProtocol, headers: Headers, branch: str, memory_id: str, texts: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Corrects a memory main had at the branch's fork on the branch, then on main (texts in
    that order): a conflict. Returns the two corrections, the branch's first."""
    ours = await correct(client, headers, memory_id, texts[0], branch=branch)
    theirs = await correct(client, headers, memory_id, texts[1])
    return ours, theirs
