"""Export and import of one user's state as JSON Lines (GET /v1/export, POST /v1/import).

An export streams the user's memory nodes (current and past, on every branch, with every
property, their embeddings and the links each owns), entities and the relations between them,
sessions, feedback records, snapshots, branches, the record of their changes and the user's own
settings, page by page, as they stood at the user's `seq` when it began (see
app/models/transfer.py for the format).

An import loads such a file into the calling user in one transaction, keeping every seq, so
snapshots, diffs, rollbacks and branches work on the imported history exactly as they did
where it came from. Seqs are not offset: the user must hold nothing the file lacks (no memory
node, snapshot or branch of their own), which a new user and a user who imported this very file
before both satisfy (then nothing changes). Ids keep their values, except memory and feedback
ids another user of this instance holds (the file was exported here): those get a replacement
derived from the user and the id (`derived_id`), which keeps a memory id's time order and is
the same at every import of the file.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any

from app.errors import Conflict
from app.graph import Row, Tx
from app.models import transfer as records
from app.models.transfer import Counts, Imported
from app.registry import Registry
from app.services.scope import Caller
from app.services.transfer.file import (
    HISTORY_BOUNDS,
    USER_SETTINGS,
    encode_embedding,
    json_props,
    read_file,
)
from app.services.transfer.plan import Plan, claimed_ids, plan_import
from app.services.versioning import versions

PAGE = 500  # rows per export read
ENCODE_BATCH = 256  # texts per model call when an import re-embeds


# --- export -----------------------------------------------------------------------------------


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


async def _pages(
    fetch: Callable[[Any], Awaitable[list[Row]]], after_of: Callable[[Row], Any]
) -> AsyncIterator[list[Row]]:
    """Every row of a keyset-paged read, a page at a time."""
    after: Any = None
    while True:
        rows = await fetch(after)
        if rows:
            yield rows
        if len(rows) < PAGE:
            return
        after = after_of(rows[-1])


def _memory_record(row: Row) -> dict[str, Any]:
    links = []
    for item in row["links"]:
        link: dict[str, Any] = {"type": item["type"], "direction": item["direction"]}
        for end in ("memory", "entity", "session", "feedback"):
            if item[end] is not None:
                link[end] = item[end]
        link["props"] = json_props(item["props"])
        links.append(link)
    return {
        "kind": "memory",
        "label": row["label"],
        "props": json_props(row["props"]),
        "embedding": None if row["embedding"] is None else encode_embedding(row["embedding"]),
        "links": links,
    }


async def export(registry: Registry, caller: Caller) -> AsyncIterator[bytes]:
    """The caller's state as JSON Lines, read page by page while it is sent. The first read
    happens now (so an unavailable database is an error, not a cut stream); the state exported
    is the one at the user's seq then: what later changes create is left out."""
    [start] = await registry.graph.read("transfer/export_start", user_id=caller.user_id)
    return _export_lines(registry, caller.user_id, start)


async def _export_lines(registry: Registry, user_id: str, start: Row) -> AsyncIterator[bytes]:
    seq: int = start["seq"]
    graph = registry.graph
    yield _line(
        {
            "kind": "header",
            "format": records.FORMAT,
            "version": records.FORMAT_VERSION,
            "user_id": user_id,
            "embedding_model": registry.embedder.model_id,
            "seq": seq,
            "exported_at": start["now"].isoformat(),
        }
    )
    settings = {
        name: value.isoformat() if isinstance(value, datetime) else value
        for name in (*USER_SETTINGS, *HISTORY_BOUNDS)
        if (value := start[name]) is not None
    }
    yield _line({"kind": "user", **settings})
    count = 1
    memory_pages = _pages(
        lambda after: graph.read(
            "transfer/export_memories", user_id=user_id, seq=seq, after=after, limit=PAGE
        ),
        lambda row: {key: row["props"][key] for key in ("memory_id", "branch", "created_seq")},
    )
    async for rows in memory_pages:
        count += len(rows)
        yield b"".join(_line(_memory_record(row)) for row in rows)
    entity_pages = _pages(
        lambda after: graph.read(
            "transfer/export_entities", user_id=user_id, after=after, limit=PAGE
        ),
        lambda row: row["key"],
    )
    async for rows in entity_pages:
        lines = []
        for row in rows:
            lines.append({"kind": "entity", "key": row["key"], "props": json_props(row["props"])})
            lines.extend(
                {
                    "kind": "relation",
                    "type": relation["type"],
                    "source": row["key"],
                    "target": relation["target"],
                    "props": json_props(relation["props"]),
                }
                for relation in row["relations"]
            )
        count += len(lines)
        yield b"".join(_line(item) for item in lines)
    session_pages = _pages(
        lambda after: graph.read(
            "transfer/export_sessions", user_id=user_id, after=after, limit=PAGE
        ),
        lambda row: row["id"],
    )
    async for rows in session_pages:
        count += len(rows)
        yield b"".join(
            _line({"kind": "session", "id": row["id"], "props": json_props(row["props"])})
            for row in rows
        )
    feedback_pages = _pages(
        lambda after: graph.read(
            "transfer/export_feedback", user_id=user_id, after=after, limit=PAGE
        ),
        lambda row: row["feedback_id"],
    )
    async for rows in feedback_pages:
        count += len(rows)
        yield b"".join(
            _line(
                {
                    "kind": "feedback",
                    "feedback_id": row["feedback_id"],
                    "props": json_props(row["props"]),
                }
            )
            for row in rows
        )
    change_pages = _pages(
        lambda after: graph.read(
            "transfer/export_changes", user_id=user_id, seq=seq, after=after, limit=PAGE
        ),
        lambda row: row["seq"],
    )
    async for rows in change_pages:
        count += len(rows)
        yield b"".join(
            _line({"kind": "change", "seq": row["seq"], "props": json_props(row["props"])})
            for row in rows
        )
    snapshots = await graph.read("transfer/export_snapshots", user_id=user_id, seq=seq)
    branches = await graph.read("transfer/export_branches", user_id=user_id, seq=seq)
    count += len(snapshots) + len(branches)
    yield b"".join(
        [
            *(
                _line(
                    {
                        "kind": "snapshot",
                        "name": row["name"],
                        "branch": row["branch"],
                        "seq": row["seq"],
                        "props": json_props(row["props"]),
                    }
                )
                for row in snapshots
            ),
            *(
                _line(
                    {
                        "kind": "branch",
                        "name": row["name"],
                        "base_seq": row["base_seq"],
                        **({} if row["view_seq"] is None else {"view_seq": row["view_seq"]}),
                        "props": json_props(row["props"]),
                    }
                )
                for row in branches
            ),
            _line({"kind": "end", "records": count}),
        ]
    )


# --- import -----------------------------------------------------------------------------------


def node_key(node: Row) -> dict[str, Any]:
    props = node["props"]
    return {key: props[key] for key in ("memory_id", "branch", "created_seq")}


async def _embed(registry: Registry, user_id: str, plan: Plan) -> int:
    """Encodes the content of the nodes the import will create that need an embedding of this
    service's model (off the event loop, a batch per model call); returns how many."""
    if not plan.encode:
        return 0
    held = {
        (row["memory_id"], row["branch"], row["created_seq"])
        for row in await registry.graph.read(
            "transfer/held_nodes",
            user_id=user_id,
            nodes=[node_key(plan.nodes[index]) for index in plan.encode],
        )
    }
    pending = [
        index for index in plan.encode if tuple(node_key(plan.nodes[index]).values()) not in held
    ]
    for start in range(0, len(pending), ENCODE_BATCH):
        batch = pending[start : start + ENCODE_BATCH]
        vectors = await registry.embedder.encode_documents(
            [plan.nodes[index]["props"]["content"] for index in batch]
        )
        model_id = registry.embedder.model_id
        for index, vector in zip(batch, vectors, strict=True):
            plan.nodes[index]["embedding"] = array("f", vector)
            plan.nodes[index]["props"]["embedding_model"] = model_id
    return len(pending)


def _counted(row: Row) -> tuple[int, int]:
    return int(row["created"]), int(row["skipped"])


async def _write(tx: Tx, user_id: str, plan: Plan) -> tuple[Counts, Counts]:
    """Everything in the caller's transaction, after the user's lock; Conflict when the user
    holds what the file does not."""
    [claim] = await tx.run(
        "transfer/claim_user",
        user_id=user_id,
        seq=plan.seq,
        settings=plan.settings,
        **plan.history,
    )
    [foreign] = await tx.run(
        "transfer/foreign",
        user_id=user_id,
        nodes=[] if claim["fresh"] else [node_key(node) for node in plan.nodes],
        snapshots=[
            {key: item[key] for key in ("name", "branch", "seq")} for item in plan.snapshots
        ],
        branches=[{key: item[key] for key in ("name", "base_seq")} for item in plan.branches],
    )
    held = {name: foreign[name] for name in ("nodes", "snapshots", "branches") if foreign[name]}
    if held:
        what = ", ".join(f"{count} {name.removesuffix('s')}(s)" for name, count in held.items())
        raise Conflict(
            f"this user holds {what} that the file does not: an import goes into a user "
            "without memories, snapshots or branches, or one holding only this file's"
        )
    imported, skipped = Counts(), Counts()

    async def load(name: str, rows: list[Row], run: Callable[[], Awaitable[list[Row]]]) -> None:
        if rows:
            created, already = _counted((await run())[0])
            setattr(imported, name, created)
            setattr(skipped, name, already)

    await load(
        "entities",
        plan.entities,
        lambda: tx.run("transfer/load_entities", user_id=user_id, entities=plan.entities),
    )
    await load(
        "sessions",
        plan.sessions,
        lambda: tx.run("transfer/load_sessions", user_id=user_id, sessions=plan.sessions),
    )
    await load(
        "feedback",
        plan.feedback,
        lambda: tx.run("transfer/load_feedback", user_id=user_id, feedback=plan.feedback),
    )
    loaded = await versions.load(tx, user_id, plan.nodes, plan.links)
    imported.memories, skipped.memories = loaded["created"], loaded["held"]
    imported.links = loaded["linked"]
    skipped.links = len(plan.links) - loaded["linked"]
    await load(
        "relations",
        plan.relations,
        lambda: tx.run("transfer/load_relations", user_id=user_id, relations=plan.relations),
    )
    await load(
        "snapshots",
        plan.snapshots,
        lambda: tx.run("transfer/load_snapshots", user_id=user_id, snapshots=plan.snapshots),
    )
    await load(
        "branches",
        plan.branches,
        lambda: tx.run("transfer/load_branches", user_id=user_id, branches=plan.branches),
    )
    await load(
        "changes",
        plan.changes,
        lambda: tx.run("transfer/load_changes", user_id=user_id, changes=plan.changes),
    )
    return imported, skipped


async def import_file(registry: Registry, caller: Caller, body: AsyncIterable[bytes]) -> Imported:
    """Loads an export into the caller, all or nothing: every line is checked first (Invalid
    naming the bad ones), then everything is written in one transaction (Conflict when the
    caller holds memories, snapshots or branches the file lacks). Importing a file again
    changes nothing. Nodes another model embedded, or whose embedding the file leaves out, are
    encoded with this service's model first."""
    model_id = registry.embedder.model_id
    file = await read_file(body, model_id, registry.embedder.dimensions)
    mapping = await claimed_ids(registry, caller.user_id, file)
    plan = plan_import(file, mapping, model_id)
    del file  # the plan holds what is written
    reembedded = await _embed(registry, caller.user_id, plan)
    imported, skipped = await registry.graph.transaction(
        lambda tx: _write(tx, caller.user_id, plan)
    )
    return Imported(
        imported=imported, skipped=skipped, reembedded=reembedded, remapped_ids=plan.remapped
    )
