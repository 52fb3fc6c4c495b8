"""HTTP helpers for the memory endpoints: store, correct, list, retrieve and full-text search."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.support.http import post_created, request_ok

Headers = dict[str, str]


async def store(
    client: TestClientProtocol, headers: Headers, content: str, **fields: Any
) -> dict[str, Any]:
    """Stores one new memory (asserts 201) and returns it."""
    return await post_created(client, "/v1/memories", headers, {"content": content, **fields})


async def store_batch(
    client: TestClientProtocol, headers: Headers, items: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Stores memories in one batch call (asserts 201) and returns them in order."""
    response = await client.post("/v1/memories/batch", json={"memories": items}, headers=headers)
    assert response.status_code == 201, await response.get_data(as_text=True)
    memories: list[dict[str, Any]] = await response.get_json()
    assert len(memories) == len(items)
    return memories


async def stored_ids(client: TestClientProtocol, headers: Headers, texts: list[str]) -> list[str]:
    """Stores the texts in one batch; their memory ids in order."""
    return ids(await store_batch(client, headers, [{"content": text} for text in texts]))


async def delete(
    client: TestClientProtocol, headers: Headers, memory_id: str, branch: str | None = None
) -> None:
    """Deletes one memory (on `branch`, or the active one) and asserts it was deleted."""
    query = {} if branch is None else {"branch": branch}
    response = await client.delete(f"/v1/memories/{memory_id}", headers=headers, query_string=query)
    assert response.status_code == 200, await response.get_data(as_text=True)
    assert (await response.get_json())["deleted"] is True


async def correct(
    client: TestClientProtocol, headers: Headers, memory_id: str, new_content: str, **fields: Any
) -> dict[str, Any]:
    """Corrects one memory (asserts 200) and returns the new memory."""
    response = await client.put(
        f"/v1/memories/{memory_id}/correct",
        json={"new_content": new_content, **fields},
        headers=headers,
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body


async def page_items(
    client: TestClientProtocol, headers: Headers, branch: str | None = None
) -> list[dict[str, Any]]:
    """The items of one list page of up to 500 (asserts 200 and that no next page follows)."""
    query: dict[str, Any] = {"limit": 500}
    if branch is not None:
        query["branch"] = branch
    response = await client.get("/v1/memories", query_string=query, headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    page = await response.get_json()
    assert page["next_cursor"] is None
    items: list[dict[str, Any]] = page["items"]
    return items


async def page_contents(
    client: TestClientProtocol, headers: Headers, branch: str | None = None
) -> set[str]:
    return {item["content"] for item in await page_items(client, headers, branch)}


async def list_all(
    client: TestClientProtocol, headers: Headers, **params: Any
) -> list[dict[str, Any]]:
    """Every item of the list endpoint, following cursors."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(1000):
        query = {**params, **({"cursor": cursor} if cursor else {})}
        response = await client.get("/v1/memories", query_string=query, headers=headers)
        assert response.status_code == 200, await response.get_data(as_text=True)
        page = await response.get_json()
        items.extend(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return items
    raise AssertionError("the listing never ended")


async def listed_ids(client: TestClientProtocol, headers: Headers) -> list[str]:
    return [item["memory_id"] for item in await list_all(client, headers)]


async def ranked(
    client: TestClientProtocol, headers: Headers, mode: str, query: str, **fields: Any
) -> list[dict[str, Any]]:
    """POST /v1/memories/{retrieve|search} without explain; asserts 200 and a plain list."""
    response = await client.post(
        f"/v1/memories/{mode}", json={"query": query, **fields}, headers=headers
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    results: list[dict[str, Any]] = await response.get_json()
    assert isinstance(results, list)
    return results


async def explained(
    client: TestClientProtocol, headers: Headers, mode: str, query: str, **fields: Any
) -> dict[str, Any]:
    """POST /v1/memories/{retrieve|search} with explain "verbose": {"results", "explain"}."""
    body: dict[str, Any] = await request_ok(
        client,
        "POST",
        f"/v1/memories/{mode}",
        headers,
        json={"query": query, "explain": "verbose", **fields},
    )
    return body


async def fulltext(
    client: TestClientProtocol, headers: Headers, query: str, **fields: Any
) -> list[dict[str, Any]]:
    """POST /v1/memories/fulltext-search; asserts 200 and a plain list."""
    response = await client.post(
        "/v1/memories/fulltext-search", json={"query": query, **fields}, headers=headers
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    results: list[dict[str, Any]] = await response.get_json()
    assert isinstance(results, list)
    return results


def contents(memories: list[dict[str, Any]]) -> list[str]:
    return [memory["content"] for memory in memories]


def ids(memories: list[dict[str, Any]]) -> list[str]:
    return [memory["memory_id"] for memory in memories]


def without_confidence(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items without their confidence, which decays with time between two reads."""
    return [{k: v for k, v in item.items() if k != "confidence"} for item in items]
