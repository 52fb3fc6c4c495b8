"""The versioned write path: the only code that writes memory nodes and their links.

A change happens at a new value of the user's `seq`. Nodes are never edited in place once a
change has committed: a change ends the current node (it becomes a :MemoryVersion with
`ended_seq`) and creates its successor with `created_seq`. Snapshots, diffs and rollbacks read
these two numbers.

Links are versioned with the node that owns them. A memory owns every outgoing relationship of
its node and the inbound ones from nodes that are not memories (feedback records), whatever
their type. A successor starts with copies of them and the ended version keeps its own, so the
state at any seq (what a snapshot sees, a rollback restores, a fork copies and a merge brings
over) is a set of nodes together with their links. Adding or removing a link is a change of the
memory like any other; links between memories join the nodes a branch reads.

Branches are copy-on-write (see scope.Scope): a branch reads main's nodes as of its fork until
a change on either side writes one of those memories; `versions/materialize` then gives the
branch its own copy first, so neither side ever sees the other's changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from app.errors import NotFound
from app.graph import Row, Tx, packed_vector
from app.models.history import ChangeKind
from app.services.retrieval.query_text import seq_text
from app.services.scope import MAIN

# A change that created no node yet (a fork) keeps its record this long at least.
CHANGE_RECORD_MIN_AGE = timedelta(days=1)


@dataclass(frozen=True)
class Link:
    """A relationship a memory owns: to another memory of its branch (`target_memory_id`) or
    to any other node (`target_node`, its element id); `inbound` links point at the memory."""

    memory_id: str
    type: str
    target_memory_id: str | None = None
    target_node: str | None = None
    inbound: bool = False
    props: dict[str, Any] = field(default_factory=dict)

    def as_param(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "type": self.type,
            "target_memory_id": self.target_memory_id,
            "target_node": self.target_node,
            "inbound": self.inbound,
            "props": self.props,
        }


@dataclass(frozen=True)
class Why:
    """What a change does and why, recorded with it (a memory's history shows it)."""

    kind: ChangeKind
    reason: str = ""


async def open_change(
    tx: Tx,
    user_id: str,
    branch: str,
    why: Why,
    counts: dict[str, int] | None = None,
    needs: Sequence[str] | None = None,
) -> int:
    """The seq of a new change of the user's `branch` (where its nodes are written), recorded as
    a (:Change) with `why`; also serialises the user's concurrent writes, and adds `counts` to
    the user's counters of those names.

    The branches the change reads or writes (`needs`, by default `branch`) must still exist
    once it holds the user: NotFound when a concurrent delete took one (the request found it
    before, but its nodes are gone or going)."""
    rows = await tx.run(
        "versions/next_seq",
        user_id=user_id,
        branch=branch,
        kind=why.kind,
        reason=why.reason,
        counts=counts or {},
        needs=[branch] if needs is None else list(needs),
    )
    if rows[0]["missing"]:
        raise NotFound(f"branch {rows[0]['missing'][0]} not found")
    return int(rows[0]["seq"])


async def create(
    tx: Tx, seq: int, memories: list[dict[str, Any]], links: Sequence[Link] = ()
) -> list[Row]:
    """Creates memories (property maps with their `embedding`, or None) as current nodes of change
    `seq`, linked to their sessions and with their first `links` (outgoing, to nodes by
    element id); returns them in order."""
    # One link per memory, type and target: the statement creates each one it is given.
    by_memory: dict[str, dict[tuple[str, str | None], dict[str, Any]]] = {}
    for item in links:
        by_memory.setdefault(item.memory_id, {})[(item.type, item.target_node)] = {
            "type": item.type,
            "target_node": item.target_node,
            "props": item.props,
        }
    rows = await tx.run(
        "versions/create",
        seq=seq,
        seq_text=seq_text(seq),
        memories=[
            {
                "props": {key: value for key, value in props.items() if key != "embedding"},
                "embedding": None
                if props["embedding"] is None
                else packed_vector(props["embedding"]),
                "links": list(by_memory.get(props["memory_id"], {}).values()),
            }
            for props in memories
        ],
    )
    return [row["memory"] for row in rows]


async def revise(
    tx: Tx, seq: int, user_id: str, branch: str, changes: list[tuple[str, dict[str, Any]]]
) -> list[Row]:
    """Gives each named current memory a successor with `props` applied (and its links)."""
    if not changes:
        return []
    await _materialize(tx, user_id, branch, [memory_id for memory_id, _ in changes])
    rows = await tx.run(
        "versions/revise",
        seq=seq,
        seq_text=seq_text(seq),
        user_id=user_id,
        branch=branch,
        changes=[{"memory_id": memory_id, "props": props} for memory_id, props in changes],
    )
    return [row["memory"] for row in rows]


async def link(
    tx: Tx,
    seq: int,
    user_id: str,
    branch: str,
    links: list[Link],
    changes: dict[str, dict[str, Any]] | None = None,
) -> int:
    """Adds links to current memories as part of change `seq`, with `changes` (properties by
    memory_id) applied to their nodes in the same revision; returns how many links now exist."""
    params = await _own_links(tx, seq, user_id, branch, links, changes or {})
    return int((await tx.run("versions/link", **params))[0]["changed"]) if params else 0


async def unlink(tx: Tx, seq: int, user_id: str, branch: str, links: list[Link]) -> int:
    """Removes links of current memories as part of change `seq`; returns how many."""
    params = await _own_links(tx, seq, user_id, branch, links, {})
    return int((await tx.run("versions/unlink", **params))[0]["changed"]) if params else 0


async def _own_links(
    tx: Tx,
    seq: int,
    user_id: str,
    branch: str,
    links: list[Link],
    changes: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The parameters of a link change (none without links), once every memory whose links
    change has a node of change `seq`: a link belongs to its memory's state."""
    if not links:
        return {}
    owners = list(dict.fromkeys(item.memory_id for item in links))
    await revise(
        tx, seq, user_id, branch, [(memory_id, changes.get(memory_id, {})) for memory_id in owners]
    )
    return {
        "seq": seq,
        "user_id": user_id,
        "branch": branch,
        "links": [item.as_param() for item in links],
    }


async def retire(tx: Tx, seq: int, user_id: str, branch: str, memory_ids: list[str]) -> int:
    """Ends the current nodes of inactive memories without a successor, as change `seq`, so
    that only their history is left for garbage collection; returns how many."""
    if not memory_ids:
        return 0
    await _materialize(tx, user_id, branch, memory_ids)
    rows = await tx.run(
        "versions/retire",
        seq=seq,
        seq_text=seq_text(seq),
        user_id=user_id,
        branch=branch,
        memory_ids=memory_ids,
    )
    return int(rows[0]["ended"])


async def restore(tx: Tx, seq: int, user_id: str, branch: str, state_seq: int) -> Row:
    """Makes the branch what it was at `state_seq`, as change `seq`: what was created since is
    ended, what has ended since comes back, links included. Returns `ended` and `restored`."""
    params = {
        "user_id": user_id,
        "branch": branch,
        "seq": state_seq,
        "change_seq": seq,
        "change_seq_text": seq_text(seq),
    }
    if branch == MAIN:
        await _materialize(tx, user_id, branch, None, created_after=state_seq)
    ended = (await tx.run("versions/end_since", **params))[0]["ended"]
    restored = (await tx.run("versions/restore_since", **params))[0]["restored"]
    await _relink(tx, seq, user_id, branch)
    return {"ended": ended, "restored": restored}


async def copy(
    tx: Tx,
    seq: int,
    user_id: str,
    *,
    from_branch: str,
    to_branch: str,
    state_seq: int,
    memory_ids: list[str] | None = None,
    past_only: bool = False,
) -> Row:
    """Copies memories of `from_branch` as they were at `state_seq` (all of them, those whose
    node then has ended since with `past_only`, or those named) into `to_branch` as change
    `seq`, with their links. Returns `copied` and `active`."""
    row = (
        await tx.run(
            "versions/copy",
            user_id=user_id,
            from_branch=from_branch,
            to_branch=to_branch,
            seq=state_seq,
            change_seq=seq,
            change_seq_text=seq_text(seq),
            past_only=past_only,
            memory_ids=memory_ids,
        )
    )[0]
    await _relink(tx, seq, user_id, to_branch)
    return {"copied": row["copied"], "active": row["active"]}


async def replace(
    tx: Tx,
    seq: int,
    user_id: str,
    *,
    branch: str,
    from_branch: str,
    changes: list[tuple[str, dict[str, Any]]],
) -> None:
    """Revises memories of `branch` to the properties given and the outgoing links their
    namesakes have on `from_branch` (a merge that replaces)."""
    if not changes:
        return
    await revise(tx, seq, user_id, branch, changes)
    await tx.run(
        "versions/adopt_links",
        user_id=user_id,
        branch=branch,
        from_branch=from_branch,
        change_seq=seq,
        memory_ids=[memory_id for memory_id, _ in changes],
    )
    await _relink(tx, seq, user_id, branch)


async def _materialize(
    tx: Tx,
    user_id: str,
    branch: str,
    memory_ids: list[str] | None,
    created_after: int | None = None,
) -> None:
    """Before a change ends nodes of `branch`: every copy-on-write branch that reads one of
    these memories through main gets its own node for it (see versions/materialize)."""
    await tx.run(
        "versions/materialize",
        user_id=user_id,
        branch=branch,
        memory_ids=memory_ids,
        created_after=created_after,
    )


async def _relink(tx: Tx, seq: int, user_id: str, branch: str) -> None:
    await tx.run("versions/relink", user_id=user_id, branch=branch, change_seq=seq)


async def drop_branch(tx: Tx, user_id: str, branch: str) -> int:
    """Deletes every node of the branch's memories, current and past, with their links."""
    rows = await tx.run("versions/drop_branch", user_id=user_id, name=branch)
    return int(rows[0]["deleted"])


async def collect_garbage(tx: Tx, batch: int, retention: timedelta) -> int:
    """Deletes up to `batch` past versions that no snapshot can see any more and that ended
    longer ago than `retention`, and change records (that old, and a day old at least) of which
    no version is left; returns how many versions."""
    now = datetime.now(UTC)
    rows = await tx.run("versions/collect_garbage", batch=batch, kept_since=now - retention)
    await tx.run(
        "versions/collect_changes",
        before=now - max(retention, CHANGE_RECORD_MIN_AGE),
        batch=batch,
    )
    return int(rows[0]["deleted"])


async def set_embeddings(
    tx: Tx, model: str, embeddings: dict[str, list[float]], waiting: bool = False
) -> int:
    """Gives nodes (by element id) embeddings of `model`: a new representation of the same
    state, so no new version (see reembed). `waiting`: beside the embedding in use, until
    switch_embeddings makes them the nodes' own; else in place."""
    rows = [
        {"node": node, "embedding": packed_vector(vector)} for node, vector in embeddings.items()
    ]
    if waiting:
        updated = await tx.run("reembed/set_next", model=model, rows=rows)
    else:
        updated = await tx.run("reembed/set_embeddings", model=model, rows=rows)
    return int(updated[0]["updated"])


async def switch_embeddings(tx: Tx, model: str, batch: int) -> int:
    """Makes up to `batch` nodes' waiting embeddings of `model` their own; returns how many."""
    rows = await tx.run("reembed/switch", model=model, batch=batch)
    return int(rows[0]["switched"])


async def load(
    tx: Tx, user_id: str, nodes: Sequence[Row], links: Sequence[Row], batch: int = 500
) -> Row:
    """Import (see services/transfer): creates the user's memory nodes exactly as exported,
    current or past, with their seqs, unless the user holds that node already (same memory_id,
    branch and created_seq; a committed node never changes, so it is the same node), then the
    links the created nodes own. No change is opened: the nodes keep the seqs they had, so
    snapshots and rollbacks read them as they did where they came from.

    `nodes`: {label ("Memory" | "MemoryVersion"), props (memory_id, branch, created_seq and every
    other property), embedding (floats or None)}. `links`: {owner and, for a link between
    memories, memory (each a (memory_id, branch, created_seq) key of a node given here or held),
    type, inbound, entity, session, feedback (keys of the user's nodes), props}.
    Returns `created` and `held` (nodes) and `linked` (links).
    """
    node_ids: dict[tuple[str, str, int], str] = {}
    created: set[tuple[str, str, int]] = set()
    for start in range(0, len(nodes), batch):
        rows = await tx.run(
            "versions/load",
            user_id=user_id,
            nodes=[
                {
                    "label": node["label"],
                    "props": node["props"],
                    "embedding": None
                    if node["embedding"] is None
                    else packed_vector(node["embedding"]),
                }
                for node in nodes[start : start + batch]
            ],
        )
        for row in rows:
            key = (row["memory_id"], row["branch"], row["created_seq"])
            node_ids[key] = row["node"]
            if row["created"]:
                created.add(key)
    owned = [
        {
            "node": node_ids[item["owner"]],
            "type": item["type"],
            "inbound": item["inbound"],
            "memory": None if item["memory"] is None else node_ids[item["memory"]],
            "entity": item["entity"],
            "session": item["session"],
            "feedback": item["feedback"],
            "props": item["props"],
        }
        for item in links
        if item["owner"] in created
    ]
    linked = 0
    for start in range(0, len(owned), batch):
        rows = await tx.run(
            "versions/load_links", user_id=user_id, links=owned[start : start + batch]
        )
        linked += int(rows[0]["linked"])
    return {"created": len(created), "held": len(node_ids) - len(created), "linked": linked}
