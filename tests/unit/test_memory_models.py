"""Request shapes of the memory endpoints: the limits DECISIONS.md sets, checked without HTTP."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from app.models.memories import (
    CorrectByQuery,
    FulltextRequest,
    ListQuery,
    Message,
    NewMemory,
    RetrieveRequest,
    StoreBatch,
)


def _rejects(model: Any, field: str, **values: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        model(**values)
    assert any(error["loc"] and error["loc"][0] == field for error in caught.value.errors())


@pytest.mark.parametrize(
    "content",
    ["x", "a" * 32 * 1024, "é" * 16 * 1024, "🎉" * 8 * 1024, " padded "],
    ids=["1-byte", "32KiB-ascii", "32KiB-2-byte", "32KiB-4-byte", "padded"],
)
def test_content_from_1_byte_to_32_kib(content: str) -> None:
    assert NewMemory(content=content).content == content  # kept as given, not stripped


@pytest.mark.parametrize(
    "content",
    ["", " ", "\n\t", "a" * (32 * 1024 + 1), "é" * (16 * 1024) + "a", "🎉" * (8 * 1024 + 1)],
    ids=["empty", "space", "whitespace", "over-ascii", "over-2-byte", "over-4-byte"],
)
def test_content_blank_or_over_32_kib_is_rejected(content: str) -> None:
    _rejects(NewMemory, "content", content=content)


def test_memory_defaults() -> None:
    memory = NewMemory(content="x")
    assert memory.memory_type == "semantic"
    assert memory.trust_tier == "T1"
    assert (memory.session_id, memory.subject_id, memory.initial_confidence) == (None, None, None)
    assert memory.extra_metadata == {}


@pytest.mark.parametrize(
    "memory_type", ["semantic", "profile", "procedural", "working", "tool_result", "episodic"]
)
def test_every_memory_type_is_accepted(memory_type: str) -> None:
    assert NewMemory(content="x", memory_type=memory_type).memory_type == memory_type


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("memory_type", "Semantic"),
        ("memory_type", "fact"),
        ("trust_tier", "T0"),
        ("initial_confidence", -0.1),
        ("initial_confidence", 1.01),
        ("extra_metadata", {"a": [1]}),
        ("extra_metadata", {"a": None}),
        ("extra_metadata", {"1abc": 1}),
        ("extra_metadata", {f"k{i}": i for i in range(33)}),
        ("session_id", ""),
        ("session_id", "s" * 129),
        ("unknown", 1),
    ],
)
def test_invalid_memory_fields(field: str, value: Any) -> None:
    _rejects(NewMemory, field, content="x", **{field: value})


def test_metadata_keeps_scalar_types() -> None:
    metadata = {"n": 2, "f": 2.0, "s": "2", "b": True}
    memory = NewMemory(content="x", extra_metadata=metadata)
    assert memory.extra_metadata == metadata
    assert [type(value) for value in memory.extra_metadata.values()] == [int, float, str, bool]


def test_observed_at_without_zone_is_utc() -> None:
    memory = NewMemory(content="x", observed_at=datetime(2026, 1, 2, 3, 4, 5))
    assert memory.observed_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_batch_holds_1_to_100_items() -> None:
    assert len(StoreBatch(memories=[{"content": f"{i}"} for i in range(100)]).memories) == 100
    _rejects(StoreBatch, "memories", memories=[{"content": f"{i}"} for i in range(101)])
    _rejects(StoreBatch, "memories", memories=[])
    _rejects(StoreBatch, "memories", memories=[{"content": "ok"}, {"content": ""}])


def test_list_limit_is_1_to_500_default_50() -> None:
    assert ListQuery().limit == 50
    assert ListQuery(limit=1).limit == 1
    assert ListQuery(limit=500).limit == 500
    _rejects(ListQuery, "limit", limit=0)
    _rejects(ListQuery, "limit", limit=501)


def test_retrieve_request_bounds() -> None:
    assert RetrieveRequest(query="q").top_k is None  # the mode picks 5 or 10
    for top_k in (1, 100):
        assert RetrieveRequest(query="q", top_k=top_k).top_k == top_k
    for top_k in (0, 101):
        _rejects(RetrieveRequest, "top_k", query="q", top_k=top_k)
    _rejects(RetrieveRequest, "query", query="  ")
    _rejects(RetrieveRequest, "query", query="é" * 2049)


@pytest.mark.parametrize("explain", [False, True, "verbose", "analyze"])
def test_explain_levels(explain: Any) -> None:
    assert RetrieveRequest(query="q", explain=explain).explain == explain


def test_unknown_explain_level_is_rejected() -> None:
    _rejects(RetrieveRequest, "explain", query="q", explain="everything")


def test_fulltext_request_limits() -> None:
    request = FulltextRequest(query="q")
    assert request.limit == 20
    assert FulltextRequest(query="é" * 2048).query == "é" * 2048  # exactly 4096 bytes
    _rejects(FulltextRequest, "query", query="é" * 2048 + "x")
    for limit in (1, 100):
        assert FulltextRequest(query="q", limit=limit).limit == limit
    for limit in (0, 101):
        _rejects(FulltextRequest, "limit", query="q", limit=limit)
    for blank in ("", "  \t"):
        _rejects(FulltextRequest, "query", query=blank)  # a required string, as on retrieve


def test_correct_by_query_needs_a_query_and_new_content() -> None:
    _rejects(CorrectByQuery, "query", query="", new_content="x")
    _rejects(CorrectByQuery, "query", query="   ", new_content="x")
    _rejects(CorrectByQuery, "new_content", query="q", new_content=" ")


def test_observed_messages_may_be_blank_but_not_oversized() -> None:
    assert Message(role="user", content="").content == ""
    assert Message(role="user", content="東" * 10922).content  # 32766 bytes
    _rejects(Message, "content", role="user", content="東" * 10923)  # 32769 bytes
    _rejects(Message, "role", role=" ", content="x")


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T12:00:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),  # no zone: UTC
        ("2024-05-01T14:00:00+02:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("before-migration", "before-migration"),
        ("pre_delete_0a1b2c3d", "pre_delete_0a1b2c3d"),
    ],
)
def test_as_of_is_a_time_or_a_snapshot_name(given: str, read: object) -> None:
    assert ListQuery(as_of=given).as_of == read
    assert RetrieveRequest(query="x", as_of=given).as_of == read


@pytest.mark.parametrize("given", ["2024-02-30T00:00:00Z", "last tuesday", "", "x" * 65, "a/b"])
def test_as_of_is_neither_anything_else(given: str) -> None:
    _rejects(FulltextRequest, "as_of", query="x", as_of=given)
