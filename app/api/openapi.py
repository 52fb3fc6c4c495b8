"""The OpenAPI document: quart-schema's, with required request bodies, non-JSON responses, the
routes grouped as the spec groups them, operation ids unique across the API, and the bearer
credential every route but the probes takes."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from functools import cached_property
from typing import Any

from quart_schema import OpenAPIProvider
from quart_schema.openapi import HttpSecurityScheme
from quart_schema.typing import Model
from quart_schema.validation import DataSource
from werkzeug.routing import Rule

JSON = "application/json"
BEARER = HttpSecurityScheme(scheme="bearer", bearer_format="an API key (sk-...) or the master key")
# The probes take no credential.
OPEN_PATHS = ("/health", "/health/instance")

# The groups, in the order the spec and docs/api.md (a section each) present them.
GROUPS = (
    "Memories",
    "Full-text search",
    "Snapshots",
    "Branches",
    "Governance and entities",
    "Feedback and retrieval parameters",
    "Episodic memory and tasks",
    "Export and import",
    "API keys",
    "Administration",
    "Plugin administration",
    "Health, capabilities and metrics",
)
# Which group a path belongs to: the first pattern it matches.
GROUP_OF_PATH = (
    (re.compile(r"^/v1/memories/fulltext-search$"), "Full-text search"),
    (
        re.compile(r"^/v1/(memories/\{[^/]+\}/feedback|feedback/|retrieval-params)"),
        "Feedback and retrieval parameters",
    ),
    (re.compile(r"^/v1/(memories|observe|profiles)\b"), "Memories"),
    (re.compile(r"^/v1/snapshots\b"), "Snapshots"),
    (re.compile(r"^/v1/branches\b"), "Branches"),
    (
        re.compile(r"^/v1/(governance|consolidate|reflect|extract-entities|entities)\b"),
        "Governance and entities",
    ),
    (re.compile(r"^/v1/(sessions|tasks)/"), "Episodic memory and tasks"),
    (re.compile(r"^/v1/(export|import)$"), "Export and import"),
    (re.compile(r"^/auth/keys\b"), "API keys"),
    (re.compile(r"^/admin/plugins\b"), "Plugin administration"),
    (re.compile(r"^/admin/"), "Administration"),
    (re.compile(r"^(/health|/metrics|/v1/capabilities)\b"), "Health, capabilities and metrics"),
)


def group_of(path: str) -> str | None:
    """The group of a documented path (`/v1/memories/{memory_id}`), None for an unknown one."""
    return next((group for pattern, group in GROUP_OF_PATH if pattern.search(path)), None)


class OpenApi(OpenAPIProvider):
    """quart-schema leaves every body optional and documents every response as JSON; a model
    with `body_optional` or `media_type` says otherwise. Operations carry their group as their
    tag (Swagger UI and ReDoc list them by it), and ids named after their module as well."""

    def schema(self) -> dict[str, Any]:
        # A copy: callers may change what they get, never the document the app serves.
        return copy.deepcopy(self._document)

    @cached_property
    def _document(self) -> dict[str, Any]:
        # Built once, at the first request for it: the routes are fixed by then, and building
        # walks every route and model (about 0.4 s of CPU, on every GET /openapi.json before).
        document = super().schema()
        document["tags"] = [{"name": group} for group in GROUPS]
        return document

    def build_paths(self, rule: Rule) -> tuple[dict[str, Any], dict[str, Any]]:
        paths, components = super().build_paths(rule)
        for path, operations in paths.items():
            group = group_of(path)
            for operation in operations.values():
                if group is not None:
                    operation["tags"] = [group]
                if path in OPEN_PATHS:
                    operation["security"] = []
        return paths, components

    def operation_id(self, method: str, func: Callable[..., Any]) -> str | None:
        # Handlers of several modules share names (create, show, diff): the module tells them apart.
        module = func.__module__.rsplit(".", 1)[-1]
        return f"{method.lower()}_{module}_{func.__name__}"

    def build_request_body(
        self, model: type[Model], source: DataSource
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        body, components = super().build_request_body(model, source)
        body["required"] = not getattr(model, "body_optional", False)
        return body, components

    def build_response_object(
        self, model: type[Model], headers_model: type[Model] | None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        response, components = super().build_response_object(model, headers_model)
        media_type = getattr(model, "media_type", JSON)
        if media_type != JSON:
            response["content"] = {media_type: response["content"].pop(JSON)}
        return response, components
