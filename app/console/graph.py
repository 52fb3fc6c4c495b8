"""The graph page: the user's entities, and one entity's neighbourhood drawn as a graph to click
through (memories and related entities, two hops, capped)."""

from __future__ import annotations

from typing import Any

from quart import Response, request, url_for

from app.api.context import registry
from app.console import pages
from app.console.forms import decoded, filled
from app.console.web import blueprint, caller, page
from app.models.entities import EntityQuery
from app.models.neighbourhood import Neighbourhood

LABEL_CHARS = 40


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def elements(shown: Neighbourhood, branch: str | None) -> list[dict[str, Any]]:
    """The neighbourhood as cytoscape elements, each node with the page a click opens."""
    nodes = [
        {
            "data": {
                "id": f"e:{entity.key}",
                "label": _label(entity.name),
                "kind": "center" if entity.key == shown.center.key else "entity",
                "href": url_for("console.graph", entity=entity.key, branch=branch),
            }
        }
        for entity in [shown.center, *shown.entities]
    ] + [
        {
            "data": {
                "id": f"m:{memory.memory_id}",
                "label": _label(memory.content),
                "kind": "memory",
                "href": url_for("console.memory", memory_id=memory.memory_id, branch=branch),
            }
        }
        for memory in shown.memories
    ]
    edges = [
        {
            "data": {
                "id": f"x{index}",
                "source": f"m:{edge.source}" if edge.kind == "mentions" else f"e:{edge.source}",
                "target": f"e:{edge.target}",
                "label": edge.label or "",
            }
        }
        for index, edge in enumerate(shown.edges)
    ]
    return nodes + edges


@blueprint.get("/graph")
async def graph() -> Response:
    entities = decoded(EntityQuery, filled(request.args, "prefix", "cursor", "branch"))
    key = request.args.get("entity") or None
    shown = await pages.graph_page(registry(), caller(), key, entities)
    drawn = elements(shown.shown, entities.branch) if shown.shown else []
    return await page("graph.html", shown=shown, entities=entities, elements=drawn)
