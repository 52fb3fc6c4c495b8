"""The API's documentation pages, Swagger UI at /docs and ReDoc at /redoc, with the files they
load served by the service itself (from the PyPI package openapi-ui-bundles), never from a CDN,
so that they work on a machine without internet."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

from openapi_ui_bundles import redoc, swagger_ui
from quart import Blueprint, Response, abort
from quart.helpers import send_from_directory
from quart_schema import hide

OPENAPI_PATH = "/openapi.json"
ASSETS_PATH = "/docs/assets"
ASSET_MAX_AGE_S = 24 * 3600
# The files the pages load, and the package folder each comes from.
ASSETS: dict[str, Path] = {
    "swagger-ui-bundle.js": swagger_ui.static_path,
    "swagger-ui.css": swagger_ui.static_path,
    "favicon-32x32.png": swagger_ui.static_path,
    "logo-mini.svg": redoc.static_path,
}
REDOC_BUNDLE = "redoc.standalone.js"
# ReDoc's sidebar always shows this logo from Redocly's CDN; the package ships the same file.
REDOC_CDN_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"

SWAGGER_PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Memory service API</title>
  <link rel="stylesheet" href="{ASSETS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="{ASSETS_PATH}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{ASSETS_PATH}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: "{OPENAPI_PATH}",
      dom_id: "#swagger-ui",
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      validatorUrl: null
    }});
  </script>
</body>
</html>
"""

REDOC_PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Memory service API</title>
  <link rel="icon" type="image/png" href="{ASSETS_PATH}/favicon-32x32.png">
  <style>body {{ margin: 0; padding: 0; }}</style>
</head>
<body>
  <redoc spec-url="{OPENAPI_PATH}"></redoc>
  <script src="{ASSETS_PATH}/{REDOC_BUNDLE}"></script>
</body>
</html>
"""

blueprint = Blueprint("docs", __name__)


@blueprint.get("/docs")
@hide
async def swagger_ui_page() -> Response:
    return Response(SWAGGER_PAGE, content_type="text/html; charset=utf-8")


@blueprint.get("/redoc")
@hide
async def redoc_page() -> Response:
    return Response(REDOC_PAGE, content_type="text/html; charset=utf-8")


@blueprint.get(f"{ASSETS_PATH}/<name>")
@hide
async def asset(name: str) -> Response:
    if name == REDOC_BUNDLE:
        bundle = await asyncio.to_thread(_redoc_bundle)
        response = Response(bundle, content_type="text/javascript; charset=utf-8")
        response.cache_control.public = True
        response.cache_control.max_age = ASSET_MAX_AGE_S
        return response
    folder = ASSETS.get(name)
    if folder is None:
        abort(404)
    return await send_from_directory(folder, name, cache_timeout=ASSET_MAX_AGE_S)


@functools.cache
def _redoc_bundle() -> bytes:
    """ReDoc's bundle with its logo taken from the service instead of the CDN."""
    bundle = (redoc.static_path / REDOC_BUNDLE).read_bytes()
    return bundle.replace(REDOC_CDN_LOGO, f"{ASSETS_PATH}/logo-mini.svg".encode())
