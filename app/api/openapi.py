"""The OpenAPI document: quart-schema's, with required request bodies and non-JSON responses."""

from __future__ import annotations

from typing import Any

from quart_schema import OpenAPIProvider
from quart_schema.typing import Model
from quart_schema.validation import DataSource

JSON = "application/json"


class OpenApi(OpenAPIProvider):
    """quart-schema leaves every body optional and documents every response as JSON; a model
    with `body_optional` or `media_type` says otherwise."""

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
