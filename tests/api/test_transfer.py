"""GET /v1/export and POST /v1/import: a user's whole state moves to another user (or instance)
and behaves the same there; imports are all or nothing, idempotent, and never mix with data of
the importing user's own."""

from __future__ import annotations

import base64
import copy
import struct
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from quart import Quart
from quart.testing.app import TestApp
from quart.typing import TestClientProtocol

from app import create_app
from app.embedding import Embedder
from app.services.transfer.plan import derived_id
from tests.conftest import STARTUP_TIMEOUT_S, User, create_user, make_settings
from tests.support.as_of import listed
from tests.support.http import error_detail, request_ok
from tests.support.memories import page_items, store, without_confidence
from tests.support.neo4j_direct import query
from tests.support.snapshots import list_snapshots, roll_back, take_snapshot
from tests.support.transfer import (
    as_body,
    as_imported,
    export_lines,
    graph_size,
    import_body,
    import_ok,
    mapped_state,
    of_kind,
    ranked_ids,
    unconfident,
    user_with_history,
    visible_state,
)

QUERIES = [
    "what tea does alice drink",
    "who owns invoice-api",
    "where is the office",
    "when do deploys happen",
]


async def test_a_user_moves_whole_to_a_fresh_user(client: TestClientProtocol, user: User) -> None:
    await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    header = lines[0]
    assert header["kind"] == "header" and header["user_id"] == user.user_id
    assert lines[-1] == {"kind": "end", "records": len(lines) - 2}
    # History travels: the corrected and the deleted memory's past versions are in the file.
    labels = [line["label"] for line in of_kind(lines, "memory")]
    assert "MemoryVersion" in labels

    fresh = await create_user(client, "imported")
    report = await import_ok(client, fresh.headers, lines)
    assert report["imported"]["memories"] == len(of_kind(lines, "memory"))
    # The user's snapshot, and the safety snapshot the deletion took.
    assert report["imported"]["snapshots"] == len(of_kind(lines, "snapshot")) == 2
    assert report["imported"]["branches"] == 1
    assert report["imported"]["feedback"] == 3 and report["imported"]["entities"] > 0
    assert set(report["skipped"].values()) == {0}
    assert report["reembedded"] == 0  # same model: the file's embeddings are used
    assert report["remapped_ids"] > 0  # this instance holds the source user's ids

    source_state = await visible_state(client, user)
    assert unconfident(await visible_state(client, fresh)) == unconfident(
        mapped_state(source_state, fresh)
    )
    for query_text in QUERIES:
        expected = [
            derived_id(fresh.user_id, i) for i in await ranked_ids(client, user, query_text)
        ]
        assert expected, query_text
        assert await ranked_ids(client, fresh, query_text) == expected, query_text

    # The imported snapshot restores what it did at the source: Berlin and the Friday deploys.
    await roll_back(client, user.headers, "before-changes")
    await roll_back(client, fresh.headers, "before-changes")
    restored = await page_items(client, fresh.headers)
    assert {item["content"] for item in restored} >= {
        "The office is in Berlin near the river",
        "Deploys happen on Fridays",
    }
    assert "The office moved to Munich" not in {item["content"] for item in restored}
    assert without_confidence(restored) == [
        as_imported(item, fresh) for item in await page_items(client, user.headers)
    ]


async def test_ids_keep_their_values_where_nobody_holds_them(
    client: TestClientProtocol, user: User
) -> None:
    """As on another instance: the file's ids are free here, so the memories keep them."""
    made = await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    text = as_body(lines).decode()
    elsewhere: dict[str, str] = {}
    # As another instance would have them: every memory and feedback id made anew.
    ids = [line["props"]["memory_id"] for line in of_kind(lines, "memory")]
    ids += [line["feedback_id"] for line in of_kind(lines, "feedback")]
    for found in ids:
        elsewhere.setdefault(found, found[:16] + uuid.uuid4().hex[16:])
    for old, new in elsewhere.items():
        text = text.replace(old, new)
    fresh = await create_user(client, "moved")
    response = await import_body(client, fresh.headers, text.encode())
    assert response.status_code == 200, await response.get_data(as_text=True)
    assert (await response.get_json())["remapped_ids"] == 0
    tea = elsewhere[made["tea"]["memory_id"]]
    found = await request_ok(client, "GET", f"/v1/memories/{tea}", fresh.headers)
    assert found["content"] == "Alice prefers green tea in the morning"
    assert found["feedback"]["useful"] == 2


async def test_ids_of_another_users_memories_are_replaced_where_the_file_only_names_them(
    client: TestClientProtocol, user: User
) -> None:
    """A file may name memories it lacks (feedback given on a branch deleted since): where
    another user holds such an id, the import replaces it as it replaces the file's own."""
    made = await user_with_history(client, user)
    tea = made["tea"]["memory_id"]
    lines = await export_lines(client, user.headers)
    [header, account] = lines[:2]
    memory = copy.deepcopy(
        next(line for line in of_kind(lines, "memory") if line["props"]["memory_id"] != tea)
    )
    memory["links"] = []
    memory["props"]["superseded_by"] = tea
    feedback = copy.deepcopy(of_kind(lines, "feedback")[0])
    feedback["props"]["memory_id"] = tea
    crafted = [header, account, memory, feedback, {"kind": "end", "records": 3}]

    fresh = await create_user(client, "naming")
    await import_ok(client, fresh.headers, crafted)
    exported = await export_lines(client, fresh.headers)
    replaced = derived_id(fresh.user_id, tea)
    assert [line["props"]["superseded_by"] for line in of_kind(exported, "memory")] == [replaced]
    assert [line["props"]["memory_id"] for line in of_kind(exported, "feedback")] == [replaced]
    assert tea not in as_body(exported).decode()


async def test_importing_again_changes_nothing(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    fresh = await create_user(client, "twice")
    first = await import_ok(client, fresh.headers, lines)
    before = await visible_state(client, fresh)
    size = await graph_size(neo4j_driver, fresh.user_id)
    exported = await export_lines(client, fresh.headers)

    second = await import_ok(client, fresh.headers, lines)
    assert set(second["imported"].values()) == {0}
    assert second["skipped"] == first["imported"]
    assert unconfident(await visible_state(client, fresh)) == unconfident(before)
    assert await graph_size(neo4j_driver, fresh.user_id) == size
    assert (await export_lines(client, fresh.headers))[1:] == exported[1:]

    # The source user holds exactly this file too: importing it there changes nothing either.
    size = await graph_size(neo4j_driver, user.user_id)
    again = await import_ok(client, user.headers, lines)
    assert set(again["imported"].values()) == {0} and again["remapped_ids"] == 0
    assert await graph_size(neo4j_driver, user.user_id) == size


async def test_a_bad_line_is_named_and_nothing_is_written(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    fresh = await create_user(client, "rejected")
    size = await graph_size(neo4j_driver, fresh.user_id)
    broken = copy.deepcopy(lines)
    memory_line = next(i for i, line in enumerate(broken) if line["kind"] == "memory")
    broken[memory_line]["props"]["created_seq"] = "seven"
    body = as_body(broken).splitlines(keepends=True)
    body[4] = b'{"kind": "session", "id": \n'  # not JSON

    response = await import_body(client, fresh.headers, b"".join(body))
    detail = await error_detail(response, 422)
    assert "nothing was imported" in detail
    errors = (await response.get_json())["errors"]
    assert {error["line"] for error in errors} == {memory_line + 1, 5}
    assert all(error["problem"] for error in errors)
    assert await page_items(client, fresh.headers) == []
    assert await list_snapshots(client, fresh.headers) == []
    assert await graph_size(neo4j_driver, fresh.user_id) == size

    # A file cut short (no end line) is refused as incomplete.
    response = await import_body(client, fresh.headers, as_body(lines[:-3]))
    assert "incomplete" in await error_detail(response, 422)
    assert await page_items(client, fresh.headers) == []


ZERO_EMBEDDING = base64.b64encode(bytes(4 * 384)).decode()
NAN_EMBEDDING = base64.b64encode(struct.pack("<384f", *([float("nan")] + [0.1] * 383))).decode()
# Values the service could not read back (a 500 on every later list, or a Cypher error).
UNREADABLE = {
    "memory-type": ("memory", "props", "memory_type", "bogus"),
    "trust-tier": ("memory", "props", "trust_tier", "T9"),
    "active-text": ("memory", "props", "is_active", "yes"),
    "created-at-text": ("memory", "props", "created_at", "yesterday"),
    "observed-at-number": ("memory", "props", "observed_at", 5),
    "metadata-list": ("memory", "props", "meta_tags", [1, 2]),
    "count-too-large": ("memory", "props", "useful", 2**64),
    "zero-embedding": ("memory", None, "embedding", ZERO_EMBEDDING),
    "nan-embedding": ("memory", None, "embedding", NAN_EMBEDDING),
    "entity-type": ("entity", "props", "type", "bogus"),
    "entity-aliases": ("entity", "props", "aliases", "x"),
    "snapshot-kind": ("snapshot", "props", "kind", "bogus"),
    "branch-from-snapshot": ("branch", "props", "from_snapshot", 7),
    "feedback-weight": ("user", None, "feedback_weight", 3.0),
    "tuning-source": ("user", None, "tuning_source", "xxx"),
}


@pytest.mark.parametrize("change", list(UNREADABLE.values()), ids=list(UNREADABLE))
async def test_a_value_the_service_could_not_read_back_is_refused(
    client: TestClientProtocol,
    user: User,
    neo4j_driver: AsyncDriver,
    change: tuple[str, str | None, str, object],
) -> None:
    kind, within, field, value = change
    await user_with_history(client, user)
    await take_snapshot(client, user.headers, "kept")
    lines = await export_lines(client, user.headers)
    fresh = await create_user(client, "unreadable")
    size = await graph_size(neo4j_driver, fresh.user_id)
    line = next(i for i, line in enumerate(lines) if line["kind"] == kind)
    target = lines[line][within] if within else lines[line]
    target[field] = value

    response = await import_body(client, fresh.headers, as_body(lines))
    await error_detail(response, 422)
    assert [error["line"] for error in (await response.get_json())["errors"]] == [line + 1]
    assert await graph_size(neo4j_driver, fresh.user_id) == size
    assert await page_items(client, fresh.headers) == []


async def test_an_import_never_mixes_with_the_users_own_memories(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    mine = await store(client, other_user.headers, "Bob keeps his own notes")

    response = await import_body(client, other_user.headers, as_body(lines))
    assert "holds" in await error_detail(response, 409)
    assert [item["memory_id"] for item in await page_items(client, other_user.headers)] == [
        mine["memory_id"]
    ]
    assert await list_snapshots(client, other_user.headers) == []

    # Nor with a changed source: the user now holds a memory the file lacks.
    await store(client, user.headers, "Written after the export")
    response = await import_body(client, user.headers, as_body(lines))
    await error_detail(response, 409)


async def test_another_models_file_is_embedded_again(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    ours = lines[0]["embedding_model"]
    lines[0]["embedding_model"] = "another-model:384"
    for line in of_kind(lines, "memory"):
        line["embedding"] = None
    fresh = await create_user(client, "reembedded")

    report = await import_ok(client, fresh.headers, lines)
    assert report["reembedded"] == len(of_kind(lines, "memory"))
    for query_text in QUERIES:
        expected = [
            derived_id(fresh.user_id, i) for i in await ranked_ids(client, user, query_text)
        ]
        assert await ranked_ids(client, fresh, query_text) == expected, query_text
    [row] = await query(
        neo4j_driver,
        "MATCH (m:Memory|MemoryVersion {user_id: $user_id}) "
        "RETURN collect(DISTINCT m.embedding_model) AS models, "
        "count(m.embedding) AS embedded, count(m) AS nodes",
        user_id=fresh.user_id,
    )
    assert row == {"models": [ours], "embedded": row["nodes"], "nodes": row["nodes"]}


async def test_an_export_holds_only_the_callers_data(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    await user_with_history(client, user)
    theirs = await store(client, other_user.headers, "Bob's secret plan for the office party")
    await take_snapshot(client, other_user.headers, "bobs-snapshot")

    mine_text = as_body(await export_lines(client, user.headers)).decode()
    assert theirs["memory_id"] not in mine_text
    assert "secret plan" not in mine_text and "bobs-snapshot" not in mine_text
    assert other_user.user_id not in mine_text

    their_lines = await export_lines(client, other_user.headers)
    their_text = as_body(their_lines).decode()
    assert "green tea" not in their_text and user.user_id not in their_text
    assert [line["props"]["content"] for line in of_kind(their_lines, "memory")] == [
        theirs["content"]
    ]

    fresh = await create_user(client, "copy")
    await import_ok(client, fresh.headers, their_lines)
    assert [item["content"] for item in await page_items(client, other_user.headers)] == [
        theirs["content"]
    ]
    assert [item["content"] for item in await page_items(client, fresh.headers)] == [
        theirs["content"]
    ]


# --- body size: imports get their own limit ------------------------------------------------


@pytest_asyncio.fixture(loop_scope="session", scope="module")
async def small_bodies(embedder: Embedder) -> AsyncIterator[Quart]:
    """An app whose bodies may be 8 KiB, and imports 128 KiB."""
    service = create_app(
        make_settings(max_body_bytes=8 * 1024, import_max_bytes=128 * 1024, instance_id="small"),
        embedder=embedder,
    )
    async with TestApp(service, startup_timeout=STARTUP_TIMEOUT_S):
        yield service


async def test_imports_may_be_larger_than_other_bodies(small_bodies: Quart) -> None:
    client = small_bodies.test_client()
    source = await create_user(client, "large")
    await user_with_history(client, source)
    body = as_body(await export_lines(client, source.headers))
    assert 8 * 1024 < len(body) < 128 * 1024

    fresh = await create_user(client, "large-copy")
    response = await import_body(client, fresh.headers, body)
    assert response.status_code == 200, await response.get_data(as_text=True)
    assert len(await page_items(client, fresh.headers)) == len(
        await page_items(client, source.headers)
    )
    # Every other route keeps MAX_BODY_BYTES; an import beyond IMPORT_MAX_BYTES is refused.
    response = await client.post(
        "/v1/memories", json={"content": "x" * 10_000}, headers=fresh.headers
    )
    await error_detail(response, 413)
    other = await create_user(client, "too-large")
    response = await import_body(client, other.headers, body * 8)
    await error_detail(response, 413)
    assert await page_items(client, other.headers) == []


async def test_an_imported_history_reads_as_of_its_moments_as_at_the_source(
    client: TestClientProtocol, user: User, neo4j_driver: AsyncDriver
) -> None:
    await store(client, user.headers, "The lease ends in March", observed_at="2024-03-01T00:00:00Z")
    await user_with_history(client, user)
    lines = await export_lines(client, user.headers)
    fresh = await create_user(client, "imported-history")
    await import_ok(client, fresh.headers, lines)
    changes = await query(
        neo4j_driver,
        "MATCH (c:Change {user_id: $user_id}) RETURN toString(c.at) AS at ORDER BY c.seq",
        user_id=user.user_id,
    )
    before_first = "2001-01-01T00:00:00Z"
    for at in [before_first, *(row["at"] for row in changes)]:
        source = await listed(client, user.headers, at, "main")
        imported = await listed(client, fresh.headers, at, "main")
        assert imported == {
            derived_id(fresh.user_id, key): as_imported(memory, fresh)
            for key, memory in source.items()
        }, at
    [lease] = (await listed(client, fresh.headers, changes[0]["at"], "main")).values()
    assert lease["observed_at"].startswith("2024-03-01")  # the event time travels too
