"""The links memories own, read straight from Neo4j, and the nodes tests link memories to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from neo4j import AsyncDriver

from app.models.feedback import SIGNALS
from tests.support.neo4j_direct import query

# The property that identifies a node of each label a memory links to (all per user).
IDENTITY = {"Memory": "memory_id", "Entity": "key", "Session": "id", "Feedback": "feedback_id"}


class LinkId(NamedTuple):
    """A link as its memory owns it: type, direction and the other end's label and identity."""

    type: str
    inbound: bool
    label: str
    key: str


Props = tuple[tuple[str, Any], ...]  # a relationship's properties, sorted
Links = dict[LinkId, Props]  # the links one memory owns


def props_of(values: Mapping[str, Any]) -> Props:
    return tuple(sorted(values.items()))


@dataclass(frozen=True)
class CurrentNode:
    """A memory's current node on a branch: active or not, its counters and its links."""

    active: bool
    feedback: dict[str, int]
    links: Links


# The current nodes a branch reads (its own, and for a copy-on-write branch main's nodes created
# up to its view_seq that it has none of its own for), with their owned links: every outgoing
# relationship, and inbound ones from nodes that are not memories.
CURRENT_NODES = """
OPTIONAL MATCH (b:Branch {user_id: $user_id, name: $branch})
WITH b.view_seq AS view_seq
CALL (view_seq) {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  RETURN m
  UNION ALL
  MATCH (m:Memory {user_id: $user_id, branch: 'main'})
  WHERE m.created_seq <= view_seq
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $branch}) }
  RETURN m
}
RETURN m.memory_id AS memory_id, m.is_active AS active,
       m {.useful, .irrelevant, .outdated, .wrong} AS feedback,
       COLLECT {
         MATCH (m)-[r]->(other)
         RETURN {type: type(r), inbound: false, props: properties(r), labels: labels(other),
                 other: other {.user_id, .branch, .memory_id, .key, .id, .feedback_id}}
       } + COLLECT {
         MATCH (other)-[r]->(m)
         WHERE NOT other:Memory AND NOT other:MemoryVersion
         RETURN {type: type(r), inbound: true, props: properties(r), labels: labels(other),
                 other: other {.user_id, .branch, .memory_id, .key, .id, .feedback_id}}
       } AS links
"""


def _other_end(
    user_id: str, branch: str, labels: list[str], other: Mapping[str, Any]
) -> tuple[str, str]:
    """The other end's label and identity; a label that says what is wrong with the other end
    when it is not a current node of this user (and, for a memory, of this branch or of main,
    which a copy-on-write branch reads: a link names its memory, read on the branch)."""
    known = [label for label in IDENTITY if label in labels]
    if "MemoryVersion" in labels:
        label, key = "MemoryVersion (a past version)", other["memory_id"]
    elif len(known) == 1:
        label, key = known[0], other[IDENTITY[known[0]]]
        if label == "Memory" and other["branch"] not in (branch, "main"):
            label = f"Memory of branch {other['branch']}"
    else:
        label, key = ":".join(sorted(labels)), None
    if other["user_id"] != user_id:
        label += f" of user {other['user_id']}"
    return label, str(key)


async def current_nodes(driver: AsyncDriver, user_id: str, branch: str) -> dict[str, CurrentNode]:
    """Every current memory node of a branch (active or not), by memory_id, with its links."""
    found: dict[str, CurrentNode] = {}
    for row in await query(driver, CURRENT_NODES, user_id=user_id, branch=branch):
        links: Links = {}
        for item in row["links"]:
            label, key = _other_end(user_id, branch, item["labels"], item["other"])
            link = LinkId(item["type"], item["inbound"], label, key)
            assert link not in links, f"{row['memory_id']} holds {link} twice"
            links[link] = props_of(item["props"])
        feedback = {signal: row["feedback"][signal] or 0 for signal in SIGNALS}
        found[row["memory_id"]] = CurrentNode(row["active"], feedback, links)
    return found


async def stray_memory_links(driver: AsyncDriver, user_id: str) -> list[dict[str, Any]]:
    """Links from a current memory node to a past version or to a memory node its branch does
    not read: links between memories join current nodes a branch reads (its own, or main's
    that a copy-on-write branch reads)."""
    return await query(
        driver,
        "MATCH (m:Memory {user_id: $user_id})-[r]->(other:Memory|MemoryVersion) "
        "OPTIONAL MATCH (b:Branch {user_id: $user_id, name: m.branch}) "
        "WITH m, r, other, b "
        "WHERE other:MemoryVersion OR other.branch <> m.branch AND NOT ("
        "  other.branch = 'main' AND other.created_seq <= b.view_seq"
        "  AND NOT EXISTS { (:Memory {memory_id: other.memory_id, branch: m.branch}) }) "
        "RETURN m.memory_id AS memory_id, m.branch AS branch, type(r) AS type, "
        "other.memory_id AS other_id, other.branch AS other_branch, labels(other) AS labels",
        user_id=user_id,
    )


async def node_id(driver: AsyncDriver, user_id: str, label: str, key: str) -> str:
    """The element id of the user's node of `label` (not Memory) with identity `key`, created
    if missing; e.g. an Entity, a Session or a Feedback record."""
    prop = IDENTITY[label]
    rows = await query(
        driver,
        f"MERGE (n:{label} {{user_id: $user_id, {prop}: $key}}) RETURN elementId(n) AS id",
        user_id=user_id,
        key=key,
    )
    return str(rows[0]["id"])


async def derived_from(driver: AsyncDriver, memory_id: str) -> set[str]:
    """The ids of the memories a summary or an insight says it was derived from."""
    rows = await query(
        driver,
        "MATCH (:Memory {memory_id: $memory_id})-[:DERIVED_FROM]->(s:Memory) "
        "RETURN s.memory_id AS source",
        memory_id=memory_id,
    )
    return {row["source"] for row in rows}
