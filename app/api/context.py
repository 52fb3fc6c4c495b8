"""The registry of the app serving the current request (the api layer's only way to it)."""

from __future__ import annotations

from typing import cast

from quart import current_app

from app.registry import Registry

EXTENSION = "registry"


def registry() -> Registry:
    return cast(Registry, current_app.extensions[EXTENSION])
