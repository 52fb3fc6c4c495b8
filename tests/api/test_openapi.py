"""/openapi.json documents every route: its success bodies, and its errors as {"detail": ...}."""

from __future__ import annotations

import re
from typing import Any

import pytest
from quart import Quart
from quart.typing import TestClientProtocol

from app.api.openapi import GROUPS

# quart-schema's document itself, the pages that show it (and their files), Quart's static files.
UNDOCUMENTED_ENDPOINTS = {
    "static",
    "openapi",
    "docs.swagger_ui_page",
    "docs.redoc_page",
    "docs.asset",
}
# The memory console's HTML pages (app/console) are not part of the API.
CONSOLE = "console."
IMPLICIT_METHODS = {"HEAD", "OPTIONS"}
PATH_PARAMETER = re.compile(r"<(?:[^:<>]*:)?([^<>]+)>")


@pytest.fixture
async def document(client: TestClientProtocol) -> dict[str, Any]:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    served: dict[str, Any] = await response.get_json()
    return served


def _operations(app: Quart, document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(label, documented operation) for every route and method the app serves."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in UNDOCUMENTED_ENDPOINTS or rule.endpoint.startswith(CONSOLE):
            continue
        path = PATH_PARAMETER.sub(r"{\1}", rule.rule)
        for method in sorted((rule.methods or set()) - IMPLICIT_METHODS):
            label = f"{method} {path}"
            operation = document["paths"].get(path, {}).get(method.lower())
            assert operation is not None, f"{label} is not in /openapi.json"
            found.append((label, operation))
    return found


async def test_every_route_documents_a_success_response(
    app: Quart, document: dict[str, Any]
) -> None:
    operations = _operations(app, document)
    assert len(operations) > 40
    undocumented = [
        label
        for label, operation in operations
        if not any(status.startswith("2") for status in operation["responses"])
    ]
    assert undocumented == []


async def test_every_documented_error_is_the_error_body(
    app: Quart, document: dict[str, Any]
) -> None:
    for label, operation in _operations(app, document):
        errors = {
            status: response
            for status, response in operation["responses"].items()
            if status[0] in "45"
        }
        for status, response in errors.items():
            schema = response["content"]["application/json"]["schema"]
            assert schema["title"] == "ErrorBody", f"{label} {status}"
            assert schema["required"] == ["detail"], f"{label} {status}"
            assert schema["properties"]["detail"]["type"] == "string", f"{label} {status}"


async def test_every_operation_is_in_a_group_and_has_an_id_of_its_own(
    app: Quart, document: dict[str, Any]
) -> None:
    operations = _operations(app, document)
    ungrouped = [label for label, operation in operations if operation.get("tags") is None]
    assert ungrouped == []
    assert {operation["tags"][0] for _, operation in operations} == set(GROUPS)
    assert [tag["name"] for tag in document["tags"]] == list(GROUPS)  # the viewers' order
    ids = [operation["operationId"] for _, operation in operations]
    assert len(set(ids)) == len(ids)


async def test_the_probes_alone_take_no_credential(app: Quart, document: dict[str, Any]) -> None:
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert document["security"] == [{"bearer": []}]
    open_routes = [
        label for label, operation in _operations(app, document) if operation.get("security") == []
    ]
    assert sorted(open_routes) == ["GET /health", "GET /health/instance"]


async def test_store_documents_created_and_duplicate(document: dict[str, Any]) -> None:
    responses = document["paths"]["/v1/memories"]["post"]["responses"]
    assert {"200", "201"} <= set(responses)


@pytest.mark.parametrize("path", ["/v1/memories/retrieve", "/v1/memories/search"])
async def test_retrieval_documents_a_list_or_an_explained_list(
    document: dict[str, Any], path: str
) -> None:
    schema = document["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]
    shapes = schema["schema"]["anyOf"]
    assert {"type": "array", "items": {"$ref": "#/components/schemas/Memory"}} in shapes
    assert {"$ref": "#/components/schemas/Explained"} in shapes


async def test_liveness_documents_plain_text(document: dict[str, Any]) -> None:
    content = document["paths"]["/health"]["get"]["responses"]["200"]["content"]
    assert content["text/plain"]["schema"]["const"] == "ok"


async def test_request_bodies_are_required_except_where_defaults_do(
    document: dict[str, Any],
) -> None:
    bodies = {
        f"{method.upper()} {path}": operation["requestBody"]["required"]
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
        if "requestBody" in operation
    }
    # No body means: tune automatically; extract, reflect (or list candidates) with the
    # defaults; run governance, consolidate or reflect unforced; summarise in full, as a task.
    for optional in (
        "POST /v1/retrieval-params/tune",
        "POST /v1/extract-entities",
        "POST /v1/extract-entities/candidates",
        "POST /v1/governance",
        "POST /v1/consolidate",
        "POST /v1/reflect",
        "POST /v1/reflect/candidates",
        "POST /v1/sessions/{session_id}/summary",
    ):
        assert bodies.pop(optional) is False
    assert bodies and all(bodies.values())


async def test_the_served_document_stays_as_built_whatever_a_caller_does_with_its_copy(
    app: Quart, client: TestClientProtocol, document: dict[str, Any]
) -> None:
    # The document is built once and kept: the fuzz tests and the docs pages read it too.
    provider = app.extensions["QUART_SCHEMA"].openapi_provider
    copy = provider.schema()
    copy["paths"].clear()
    copy["tags"].append({"name": "changed by a caller"})
    again = await (await client.get("/openapi.json")).get_json()
    assert again == document
    assert again["paths"] and {"name": "changed by a caller"} not in again["tags"]
