"""What an import writes: the file's records as statement parameters, with the memory and
feedback ids another user of this instance holds replaced."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from app.graph import Row
from app.models import transfer as records
from app.registry import Registry
from app.services.scope import MAIN
from app.services.transfer.file import (
    HISTORY_BOUNDS,
    USER_SETTINGS,
    File,
    NodeKey,
    needs_embedding,
)

HEX_ID = re.compile(r"^[0-9a-f]{32}$")
NOT_REWRITTEN = frozenset({"content"})  # what a user wrote is never taken for an id


def derived_id(user_id: str, original: str) -> str:
    """The id an import gives a memory or feedback id that another user of this instance holds:
    the same for the same user and id (so importing a file again finds what it wrote), and for
    time-ordered ids (32 hex, UUIDv7) the same time and counter, so listings keep their order."""
    digest = hashlib.sha256(f"{user_id}\x00{original}".encode()).digest()
    if HEX_ID.match(original):
        tail = (int.from_bytes(digest[:8], "big") & ((1 << 62) - 1)) | (0x2 << 62)
        return f"{original[:16]}{tail:016x}"
    return f"{original}-{digest.hex()[:16]}"


@dataclass
class Plan:
    """What an import writes, as statement parameters, with ids already replaced."""

    nodes: list[Row]
    links: list[Row]
    entities: list[Row]
    relations: list[Row]
    sessions: list[Row]
    feedback: list[Row]
    snapshots: list[Row]
    branches: list[Row]
    changes: list[Row]
    settings: Row
    seq: int
    remapped: int
    history: Row  # HISTORY_BOUNDS: see records.UserState
    encode: list[int] = field(default_factory=list)  # indexes into nodes to embed


def rewrite(mapping: dict[str, str], props: records.Properties) -> dict[str, Any]:
    """A property map as statement parameters, with replaced ids replaced wherever a string
    value is one (superseded_by, a contradiction's `kept`, a relation's memory_id, ...)."""

    def swap(key: str, value: Any) -> Any:
        if key in NOT_REWRITTEN:
            return value
        if isinstance(value, str):
            return mapping.get(value, value)
        if isinstance(value, list):
            return [mapping.get(item, item) if isinstance(item, str) else item for item in value]
        return value

    return {key: swap(key, value) for key, value in props.items()}


def _named_memory_ids(file: File) -> set[str]:
    """The memory ids the file holds or names: its nodes', and those in properties that name a
    memory (a correction, a contradiction, what a feedback record or a relation came from),
    which may be of a memory the file lacks (given feedback on a branch deleted since)."""
    named = {node.key[0] for _, node in file.nodes}
    references = [
        *((node.props, ("superseded_by", "contradicted_by")) for _, node in file.nodes),
        *((item.props, ("memory_id",)) for _, item in file.feedback),
        *((item.props, ("memory_id",)) for _, item in file.relations),
    ]
    for props, names in references:
        named.update(value for name in names if isinstance(value := props.get(name), str))
    return named


async def claimed_ids(registry: Registry, user_id: str, file: File) -> dict[str, str]:
    """The replacement of each memory and feedback id this user cannot have as it is."""
    memory_ids = sorted(_named_memory_ids(file))
    feedback_ids = sorted({item.feedback_id for _, item in file.feedback})
    [row] = await registry.graph.read(
        "transfer/claimed_ids",
        user_id=user_id,
        memory_ids=[{"id": i, "derived": derived_id(user_id, i)} for i in memory_ids],
        feedback_ids=[{"id": i, "derived": derived_id(user_id, i)} for i in feedback_ids],
    )
    return {i: derived_id(user_id, i) for i in [*row["memory_ids"], *row["feedback_ids"]]}


def plan_import(file: File, mapping: dict[str, str], model_id: str) -> Plan:
    def key(memory_id: str, branch: str, created_seq: int) -> NodeKey:
        return (mapping.get(memory_id, memory_id), branch, created_seq)

    header_model = file.header.embedding_model
    nodes: list[Row] = []
    links: list[Row] = []
    encode: list[int] = []
    for number, node in file.nodes:
        props = rewrite(mapping, node.props)
        owner = key(*node.key)
        props["memory_id"] = owner[0]
        embedding = file.embeddings.get(number)
        if needs_embedding(node, header_model, model_id):
            encode.append(len(nodes))
        nodes.append({"label": node.label, "props": props, "embedding": embedding})
        links.extend(
            {
                "owner": owner,
                "type": link.type,
                "inbound": link.direction == "in",
                "memory": None
                if link.memory is None
                else key(link.memory.memory_id, link.memory.branch, link.memory.created_seq),
                "entity": link.entity,
                "session": link.session,
                "feedback": None
                if link.feedback is None
                else mapping.get(link.feedback, link.feedback),
                "props": rewrite(mapping, link.props),
            }
            for link in node.links
        )
    user = file.user
    settings: Row = {name: getattr(user, name) if user else None for name in USER_SETTINGS}
    settings["active_branch"] = settings["active_branch"] or MAIN
    return Plan(
        nodes=nodes,
        links=links,
        entities=[
            {"key": item.key, "props": rewrite(mapping, item.props)} for _, item in file.entities
        ],
        relations=[
            {
                "type": item.type,
                "source": item.source,
                "target": item.target,
                "props": rewrite(mapping, item.props),
            }
            for _, item in file.relations
        ],
        sessions=[
            {"id": item.id, "props": rewrite(mapping, item.props)} for _, item in file.sessions
        ],
        feedback=[
            {
                "feedback_id": mapping.get(item.feedback_id, item.feedback_id),
                "props": rewrite(mapping, item.props),
            }
            for _, item in file.feedback
        ],
        snapshots=[
            {
                "name": item.name,
                "branch": item.branch,
                "seq": item.seq,
                "props": rewrite(mapping, item.props),
            }
            for _, item in file.snapshots
        ],
        branches=[
            {
                "name": item.name,
                "base_seq": item.base_seq,
                "view_seq": item.view_seq,
                "props": rewrite(mapping, item.props),
            }
            for _, item in file.branches
        ],
        changes=[
            {"seq": item.seq, "props": rewrite(mapping, item.props)} for _, item in file.changes
        ],
        settings=settings,
        seq=file.header.seq,
        remapped=len(mapping),
        history={name: getattr(user, name) if user else None for name in HISTORY_BOUNDS},
        encode=encode,
    )
