"""The export file: how property values and embeddings are written in it, and reading and
checking one before an import writes anything (every line, every reference, the embeddings)."""

from __future__ import annotations

import base64
import binascii
import math
import sys
from array import array
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from pydantic import ValidationError

from app.errors import Invalid
from app.graph import Row
from app.models import transfer as records
from app.services.memories import NOT_EMBEDDED
from app.services.scope import MAIN

MAX_REPORTED = 50  # problems listed in a 422
NodeKey = tuple[str, str, int]  # memory_id, branch, created_seq
# Settings of the user node that travel in the `user` record.
USER_SETTINGS = (
    "active_branch",
    "feedback_weight",
    "tuning_source",
    "tuned_at",
    "tuned_signals",
    "feedback_signals",
)
# What bounds the user's history the file holds (see records.UserState).
HISTORY_BOUNDS = ("created_at", "collected_through", "collected_through_at")


def _json_value(value: Any) -> Any:
    """A property value as JSON: temporal values tagged, everything else as it is."""
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, list):
        return [_json_value(item) for item in value]
    return value


def json_props(props: Row) -> dict[str, Any]:
    """A property map as JSON (Neo4j has no null properties: a null is a key left out)."""
    return {key: _json_value(value) for key, value in sorted(props.items()) if value is not None}


def encode_embedding(values: Iterable[float]) -> str:
    """An embedding as base64 of little-endian float32 (what it was stored from)."""
    packed = array("f", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


def decode_embedding(text: str) -> array[float]:
    """The floats of encode_embedding's text; ValueError when it is not such a text."""
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error as error:
        raise ValueError("embedding is not base64") from error
    if not raw or len(raw) % 4:
        raise ValueError("embedding is not a whole number of float32 values")
    packed = array("f")
    packed.frombytes(raw)
    if sys.byteorder == "big":
        packed.byteswap()
    # Neo4j's vector index and cosine take finite vectors with a direction only.
    if not all(map(math.isfinite, packed)) or not any(packed):
        raise ValueError("embedding must be finite numbers, not all zero")
    return packed


@dataclass
class Problems:
    """What is wrong with a file, by line (1-based), for the 422."""

    items: list[dict[str, Any]] = field(default_factory=list)
    lines: set[int] = field(default_factory=set)

    def add(self, line: int, problem: str, where: str = "line") -> None:
        self.lines.add(line)
        if len(self.items) < MAX_REPORTED:
            self.items.append({"line": line, "field": where, "problem": problem})

    def add_invalid(self, line: int, error: ValidationError) -> None:
        for item in error.errors(include_url=False):
            where = ".".join(str(part) for part in item["loc"]) or "line"
            self.add(line, item["msg"], where)

    def raise_any(self) -> None:
        if not self.items:
            return
        first = self.items[0]
        detail = (
            f"the file has {len(self.lines)} invalid line(s), nothing was imported; "
            f"line {first['line']}: {first['field']}: {first['problem']}"
        )
        raise Invalid(detail, errors=self.items)


@dataclass
class File:
    """A file's records by kind, each with its line number."""

    header: records.Header
    user: records.UserState | None = None
    user_line: int = 1
    nodes: list[tuple[int, records.MemoryNode]] = field(default_factory=list)
    entities: list[tuple[int, records.Entity]] = field(default_factory=list)
    relations: list[tuple[int, records.Relation]] = field(default_factory=list)
    sessions: list[tuple[int, records.Session]] = field(default_factory=list)
    feedback: list[tuple[int, records.Feedback]] = field(default_factory=list)
    snapshots: list[tuple[int, records.Snapshot]] = field(default_factory=list)
    branches: list[tuple[int, records.Branch]] = field(default_factory=list)
    changes: list[tuple[int, records.Change]] = field(default_factory=list)
    embeddings: dict[int, array[float]] = field(default_factory=dict)  # by line, kept ones


async def _read_lines(body: AsyncIterable[bytes]) -> AsyncIterator[tuple[int, bytes]]:
    """(line number, line) of a body as it arrives, blank lines left out."""
    number = 0
    pending = bytearray()
    async for chunk in body:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            pending += chunk[start:end]
            number += 1
            if pending.strip():
                yield number, bytes(pending)
            pending.clear()
            start = end + 1
        pending += chunk[start:]
    if pending.strip():
        yield number + 1, bytes(pending)


async def read_file(body: AsyncIterable[bytes], model_id: str, dimensions: int) -> File:
    """Every line of a body validated (each against its kind's model) and the file checked as a
    whole (one header first, an end line last counting the records, every link, relation and
    name pointing at a record of the file, seqs within the header's, embeddings of this
    service's dimension); Invalid naming each bad line otherwise."""
    problems = Problems()
    parsed: list[tuple[int, Any]] = []
    last = 0
    async for number, raw in _read_lines(body):
        last = number
        try:
            parsed.append((number, records.Line.model_validate_json(raw).root))
        except ValidationError as error:
            problems.add_invalid(number, error)
    if not parsed and not problems.items:
        problems.add(1, "the file is empty: an export starts with its header line")
    problems.raise_any()
    file = _sorted(parsed, last, problems)
    problems.raise_any()
    assert file is not None
    _check_references(file, problems)
    _check_embeddings(file, model_id, dimensions, problems)
    problems.raise_any()
    return file


def _sorted(parsed: list[tuple[int, Any]], last: int, problems: Problems) -> File | None:
    first_line, first = parsed[0]
    if not isinstance(first, records.Header):
        problems.add(first_line, "the first line must be the header", "kind")
        return None
    file = File(header=first)
    end_line, end = parsed[-1]
    if not isinstance(end, records.End):
        problems.add(last + 1, "the file ends without its end line: it is incomplete")
    elif end.records != len(parsed) - 2:
        problems.add(
            end_line,
            f"the end line counts {end.records} records but the file has {len(parsed) - 2}: "
            "it is incomplete",
            "records",
        )
    for number, record in parsed[1:-1] if isinstance(end, records.End) else parsed[1:]:
        if isinstance(record, records.Header | records.End):
            problems.add(number, f"a second {record.kind} line", "kind")
        elif isinstance(record, records.UserState):
            if file.user is not None:
                problems.add(number, "a second user line", "kind")
            file.user, file.user_line = record, number
        elif isinstance(record, records.MemoryNode):
            file.nodes.append((number, record))
        elif isinstance(record, records.Entity):
            file.entities.append((number, record))
        elif isinstance(record, records.Relation):
            file.relations.append((number, record))
        elif isinstance(record, records.Session):
            file.sessions.append((number, record))
        elif isinstance(record, records.Feedback):
            file.feedback.append((number, record))
        elif isinstance(record, records.Snapshot):
            file.snapshots.append((number, record))
        elif isinstance(record, records.Branch):
            file.branches.append((number, record))
        elif isinstance(record, records.Change):
            file.changes.append((number, record))
    return file


def _unique(
    items: Iterable[tuple[int, Any]], key: Callable[[Any], Any], what: str, problems: Problems
) -> set[Any]:
    seen: set[Any] = set()
    for number, item in items:
        found = key(item)
        if found in seen:
            problems.add(number, f"a second {what} {found}")
        seen.add(found)
    return seen


def _check_references(file: File, problems: Problems) -> None:
    seq = file.header.seq
    branches = _unique(file.branches, lambda item: item.name, "branch named", problems)
    if MAIN in branches:
        problems.add(next(n for n, b in file.branches if b.name == MAIN), "main is no branch")
    branches.add(MAIN)
    nodes = _unique(file.nodes, lambda item: item.key, "memory node", problems)
    _unique(
        ((n, node) for n, node in file.nodes if node.label == "Memory"),
        lambda item: (item.props["memory_id"], item.props["branch"]),
        "current node of memory and branch",
        problems,
    )
    entities = _unique(file.entities, lambda item: item.key, "entity", problems)
    sessions = _unique(file.sessions, lambda item: item.id, "session", problems)
    feedback = _unique(file.feedback, lambda item: item.feedback_id, "feedback record", problems)
    _unique(file.snapshots, lambda item: item.name, "snapshot named", problems)
    if file.user is not None and file.user.active_branch not in branches:
        problems.add(
            file.user_line,
            f"the checked-out branch {file.user.active_branch} is not in the file",
            "active_branch",
        )
    for number, node in file.nodes:
        _, branch, created = node.key
        ended = node.props.get("ended_seq")
        if branch not in branches:
            problems.add(number, f"branch {branch} is not in the file", "props.branch")
        if created > seq or (isinstance(ended, int) and not created < ended <= seq):
            problems.add(number, f"seqs outside 0..{seq} (the header's), or an end before a start")
        for place, link in enumerate(node.links):
            where = f"links.{place}"
            if link.memory is not None:
                target = (link.memory.memory_id, link.memory.branch, link.memory.created_seq)
                if target not in nodes:
                    problems.add(number, f"links to memory node {target}, not in the file", where)
            elif link.entity is not None and link.entity not in entities:
                problems.add(number, f"links to entity {link.entity}, not in the file", where)
            elif link.session is not None and link.session not in sessions:
                problems.add(number, f"links to session {link.session}, not in the file", where)
            elif link.feedback is not None and link.feedback not in feedback:
                problems.add(number, f"links to feedback {link.feedback}, not in the file", where)
    for number, relation in file.relations:
        for end in (relation.source, relation.target):
            if end not in entities:
                problems.add(number, f"entity {end} is not in the file")
    for number, snapshot in file.snapshots:
        if snapshot.branch not in branches:
            problems.add(number, f"branch {snapshot.branch} is not in the file", "branch")
        if snapshot.seq > seq:
            problems.add(number, f"seq after the header's {seq}", "seq")
    for number, item in file.branches:
        if item.base_seq > seq or (item.view_seq or 0) > seq:
            problems.add(number, f"seqs after the header's {seq}")
    _unique(file.changes, lambda item: item.seq, "change of seq", problems)
    for number, change in file.changes:
        if change.seq > seq:
            problems.add(number, f"seq after the header's {seq}", "seq")


def _keeps_embedding(node: records.MemoryNode, header_model: str, model_id: str) -> bool:
    """Whether a node's embedding can be kept: this service's model made it."""
    return (
        node.embedding is not None
        and header_model == model_id
        and node.props.get("embedding_model") == model_id
    )


def needs_embedding(node: records.MemoryNode, header_model: str, model_id: str) -> bool:
    """Whether an import encodes a node's content: it was embedded (a memory stored without an
    embedding on purpose has the model '') but not with this service's model, or the file
    left its embedding out."""
    return node.props.get("embedding_model") != NOT_EMBEDDED and not _keeps_embedding(
        node, header_model, model_id
    )


def _check_embeddings(file: File, model_id: str, dimensions: int, problems: Problems) -> None:
    for number, node in file.nodes:
        if node.embedding is None or not _keeps_embedding(
            node, file.header.embedding_model, model_id
        ):
            continue
        try:
            vector = decode_embedding(node.embedding)
        except ValueError as error:
            problems.add(number, str(error), "embedding")
            continue
        if len(vector) != dimensions:
            problems.add(
                number,
                f"{len(vector)} dimensions where the model {model_id} has {dimensions}",
                "embedding",
            )
        file.embeddings[number] = vector
