"""The memory console: HTML pages at /console where the people behind the agents see what an
agent remembers, why it was retrieved and how it changed, and govern it (docs/console.md).

A front end beside app/api and app/mcp: its pages call the same use cases as the API, as the
signed-in user, and hold no logic of their own.
"""

from __future__ import annotations

from quart import Quart
from quart_schema import hide

from app.config import Settings
from app.console import governance, graph, memories, operators, sign_in, versioning
from app.console.session import Cookies
from app.console.web import EXTENSION, blueprint

# The modules that add their routes to the blueprint.
PAGES = (sign_in, memories, graph, versioning, governance, operators)


def register(app: Quart, settings: Settings) -> None:
    """Serves the console at /console (pages for people, left out of /openapi.json)."""
    app.extensions[EXTENSION] = Cookies(settings)
    app.register_blueprint(blueprint)
    for endpoint, view in app.view_functions.items():
        if endpoint.startswith(f"{blueprint.name}."):
            hide(getattr(view, "__func__", view))
