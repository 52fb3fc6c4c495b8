"""Memoria's request forms as our models read them, without HTTP: null as "not given", the
modes, and the forms of a pick, a link and a bulk snapshot delete in ours."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from app.models.branches import MemoriaPick, Merge, Pick, PickRequest
from app.models.common import answers_candidates
from app.models.entities import LinkEntities, LinkEntitiesMany, LinkRequest
from app.models.governance import Cluster, ClusterMember, ReflectCandidates
from app.models.memories import CorrectByQuery, StoreMemory
from app.models.snapshots import DeleteSnapshots, Snapshot


def test_null_in_an_optional_field_is_its_default_and_in_a_required_one_an_error() -> None:
    read = StoreMemory.model_validate(
        {"content": "x", "memory_type": None, "trust_tier": None, "extra_metadata": None},
        strict=True,
    )
    assert (read.memory_type, read.trust_tier, read.extra_metadata) == ("semantic", "T1", {})
    assert read.model_fields_set == {"content"}
    with pytest.raises(ValidationError):
        StoreMemory.model_validate({"content": None}, strict=True)
    # session_scope "only" needs a session: a null scope is no scope at all.
    scoped = CorrectByQuery.model_validate(
        {"query": "q", "new_content": "n", "session_scope": None, "session_id": None},
        strict=True,
    )
    assert scoped.only_session is None
    with pytest.raises(ValidationError):  # unknown fields stay errors, null or not
        StoreMemory.model_validate({"content": "x", "colour": None}, strict=True)


@pytest.mark.parametrize(
    ("mode", "llm", "candidates"),
    [
        ("candidates", True, True),
        ("candidates", False, True),
        ("auto", True, False),
        ("auto", False, True),
        ("llm", False, False),  # the LLM is asked for: 503 without one
        ("internal", False, False),
    ],
)
def test_which_modes_answer_the_candidates(mode: Any, llm: bool, candidates: bool) -> None:
    assert answers_candidates(mode, llm) is candidates


def test_merge_strategy_accept_is_replace() -> None:
    assert Merge.model_validate({"strategy": "accept"}, strict=True).strategy == "replace"
    assert Merge.model_validate({}, strict=True).strategy == "append"


def _pick(body: dict[str, Any]) -> Pick | MemoriaPick:
    form = PickRequest.form_of(body)
    return form.model_validate(body, strict=True)


def test_memorias_pick_forms_are_ours() -> None:
    keys = _pick({"selector": {"type": "key_list", "keys": ["b", "a", "b"]}})
    assert isinstance(keys, MemoriaPick)
    assert keys.as_pick() == Pick(memory_ids=["b", "a"])
    assert keys.skipped_items == 0
    ranged = _pick(
        {
            "selector": {"type": "snapshot_range", "from_snapshot": "s1", "to_snapshot": "s2"},
            "strategy": "skip",
            "target": "dev",
            "dry_run": {"limit": 3, "offset": 6},
        }
    )
    assert isinstance(ranged, MemoriaPick)
    assert ranged.as_pick() == Pick(
        from_snapshot="s1", to_snapshot="s2", strategy="skip", target="dev", dry_run=True, limit=3
    )
    assert ranged.skipped_items == 6
    found = _pick({"selector": {"type": "retrieve", "query": "disk"}, "dry_run": None})
    assert isinstance(found, MemoriaPick)
    assert found.as_pick() == Pick(query="disk", top_k=5)  # Memoria's default top_k
    assert isinstance(_pick({"memory_ids": ["a"]}), Pick)


def test_memorias_link_form_takes_its_types_into_ours() -> None:
    assert LinkRequest.form_of({"memory_id": "m", "entities": []}) is LinkEntities
    many = LinkEntitiesMany.model_validate(
        {
            "entities": [
                {
                    "memory_id": "m",
                    "entities": [
                        {"name": "React", "type": "tech"},
                        {"name": "memoria", "type": "repo"},
                        {"name": "Apollo", "type": "project"},
                        {"name": "Ada", "type": "Person"},
                        {"name": "Kyiv", "type": "place"},
                        {"name": "Rust"},
                    ],
                }
            ]
        },
        strict=True,
    )
    assert [e.type for e in many.entities[0].entities] == [
        "package",
        "identifier",
        "other",
        "other",  # not one of ours as spelled, nor one of Memoria's
        "place",
        "concept",
    ]


def _snapshot(name: str, created: datetime) -> Snapshot:
    return Snapshot(name=name, branch="main", seq=1, kind="user", created_at=created)


def test_a_bulk_delete_selects_by_names_prefix_or_age() -> None:
    old = _snapshot("pre_purge_1", datetime(2026, 1, 1, tzinfo=UTC))
    new = _snapshot("weekly", datetime(2026, 3, 1, 12, tzinfo=UTC))
    by_names = DeleteSnapshots.model_validate({"names": " weekly ,gone,"}, strict=True)
    assert by_names.names == ["weekly", "gone"]
    assert [by_names.selects(s) for s in (old, new)] == [False, True]
    by_prefix = DeleteSnapshots.model_validate({"prefix": "pre_"}, strict=True)
    assert [by_prefix.selects(s) for s in (old, new)] == [True, False]
    by_age = DeleteSnapshots.model_validate({"older_than": "2026-03-01"}, strict=True)
    assert [by_age.selects(s) for s in (old, new)] == [True, False]  # midnight UTC
    for body in ({}, {"names": ["a"], "prefix": "b"}, {"names": ""}):
        with pytest.raises(ValidationError):
            DeleteSnapshots.model_validate(body, strict=True)


def test_a_clusters_importance_grows_with_the_sessions_it_spans() -> None:
    def cluster(sessions: list[str]) -> Cluster:
        members = [
            ClusterMember(memory_id=f"m{i}", content=f"c{i}", session_id=s, memory_type="semantic")
            for i, s in enumerate(sessions)
        ]
        return Cluster(
            memory_ids=[m.memory_id for m in members],
            sessions=sorted(set(sessions)),
            shared_entities=[],
            members=members,
        )

    answer = ReflectCandidates(items=[cluster(["a", "b"]), cluster(["a", "b", "c", "d"])])
    assert [c.importance for c in answer.candidates] == [0.5, 0.75]
    assert answer.candidates[0].memories[1].model_dump() == {"memory_id": "m1", "content": "c1"}
