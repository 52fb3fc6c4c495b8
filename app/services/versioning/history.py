"""A memory's history: its versions and its correction chain's, what each changed and why."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, get_args

from app.errors import NotFound
from app.graph import Row
from app.models.feedback import SIGNALS
from app.models.history import Aspect, Cause, ChangeKind, History, Version, VersionLink
from app.models.memories import FeedbackCounts
from app.registry import Registry
from app.services.memory_view import metadata
from app.services.scope import Caller
from app.services.versioning.as_of import read_scope

CHANGE_KINDS: tuple[str, ...] = get_args(ChangeKind)
# Each aspect of a version, as compared between two versions of one memory.
ASPECTS: dict[Aspect, Callable[[Row], Any]] = {
    "content": lambda node: node["content"],
    "memory_type": lambda node: node["memory_type"],
    "trust_tier": lambda node: node["trust_tier"],
    "confidence": lambda node: node["initial_confidence"],
    "active": lambda node: (node["is_active"], bool(node.get("quarantined"))),
    "metadata": metadata,
    "feedback": lambda node: tuple(node.get(signal) or 0 for signal in SIGNALS),
}


def _links(row: Row) -> list[VersionLink]:
    found = [VersionLink(type=link["type"], target=link["target"]) for link in row["links"]]
    return sorted(found, key=lambda link: (link.type, link.target or ""))


def _changed(
    node: Row, links: list[VersionLink], before: tuple[Row, list[VersionLink]] | None
) -> list[Aspect]:
    if before is None:
        return ["created"]
    was, links_before = before
    changed: list[Aspect] = [name for name, read in ASPECTS.items() if read(node) != read(was)]
    if links != links_before:
        changed.append("links")
    return changed


def _cause(node: Row, change: Row | None, changed: list[Aspect]) -> tuple[Cause | None, str | None]:
    """The change's kind and reason, made precise from the version itself where one kind of
    change does several things."""
    if change is None:
        return None, None
    kind, reason = change["kind"], change["reason"] or None
    if kind not in CHANGE_KINDS:  # an imported record of a kind this version does not know
        return None, reason
    if kind == "correct" and "created" not in changed:
        return "supersede", node.get("superseded_by")  # the corrected one, replaced
    if kind == "governance" and node.get("quarantined"):
        return "quarantine", node.get("quarantine_reason")
    if kind == "governance" and "active" in changed:
        return "expire", node.get("delete_reason")
    if kind == "consolidate" and node.get("contradicted_by"):
        return kind, f"contradicted by {node['contradicted_by']}"
    return kind, reason


async def history(
    registry: Registry,
    caller: Caller,
    memory_id: str,
    branch: str | None,
    as_of: datetime | str | None = None,
) -> History:
    """GET /v1/memories/{id}/history: oldest first, as far back as garbage collection kept; or
    the history as it stood `as_of` a past moment (the versions written by then, the one that
    stood then the latest)."""
    scope, moment = await read_scope(registry, caller, branch, as_of)
    [found] = await registry.graph.read(
        "memories/history",
        **scope.params(),
        **moment.params(),
        at=moment.at,
        memory_id=memory_id,
    )
    if not found["versions"]:
        raise NotFound("memory not found")
    snapshots = found["snapshots"]
    latest: dict[str, tuple[Row, list[VersionLink]]] = {}
    versions: list[Version] = []
    for row in found["versions"]:
        node, change = row["node"], row["change"]
        links = _links(row)
        changed = _changed(node, links, latest.get(node["memory_id"]))
        cause, reason = _cause(node, change, changed)
        ended = node.get("ended_seq")
        if moment.seq is not None and ended is not None and ended > moment.seq:
            ended = None  # it had not ended yet
        version = Version(
            memory_id=node["memory_id"],
            seq=node["created_seq"],
            ended_seq=ended,
            at=change["at"] if change else node["updated_at"],
            cause=cause,
            reason=reason,
            changed=changed,
            content=node["content"],
            memory_type=node["memory_type"],
            trust_tier=node["trust_tier"],
            initial_confidence=node["initial_confidence"],
            is_active=node["is_active"],
            quarantined=bool(node.get("quarantined")),
            superseded_by=node.get("superseded_by"),
            extra_metadata=metadata(node),
            feedback=FeedbackCounts(**{signal: node.get(signal) or 0 for signal in SIGNALS}),
            links=links,
            snapshots=[
                snapshot["name"]
                for snapshot in snapshots
                if snapshot["branch"] == node["branch"]
                and node["created_seq"] <= snapshot["seq"]
                and (ended is None or snapshot["seq"] < ended)
            ],
        )
        latest[node["memory_id"]] = (node, links)
        versions.append(version)
    return History(memory_id=memory_id, branch=scope.branch, versions=versions)
