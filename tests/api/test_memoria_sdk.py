"""Memoria's Python SDK (`memoria-client` from PyPI), sync and async, against the service served
on loopback: every public method of both clients, each asserted on what it returns as the SDK
parses it; and the two methods Memoria's newest SDK source adds (`fulltext_search`, `query`),
whose requests are sent as that source builds them and whose answers the SDK's own models read.

The service here has no LLM, as most deployments of the SDK's users start: reflect's default
mode (`auto`) then answers the candidates."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from memoria import (
    ApplyResult,
    Branch,
    GovernanceResult,
    MemoriaClient,
    Memory,
    MemoryPage,
    ObserveResult,
    Profile,
    PurgeResult,
    RetrieveResult,
    Snapshot,
)
from memoria.exceptions import MemoriaNotFoundError, MemoriaServerError
from neo4j import AsyncDriver

from tests.conftest import MASTER
from tests.support.governance import days_ago
from tests.support.memoria import KINDS, Client, Kind, call, sdk_client
from tests.support.neo4j_direct import query


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> Kind:
    chosen: Kind = request.param
    return chosen


async def _as_master(base_url: str, method: str, path: str, user_id: str, **kwargs: Any) -> Any:
    """A request for the SDK's user that the SDK cannot make (a backdated memory, stats)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        response = await http.request(
            method, path, headers={**MASTER, "X-User-Id": user_id}, **kwargs
        )
    assert response.is_success, response.text
    return response.json()


async def _user_id(client: Client) -> str:
    profile: Profile = await call(client.profile.me)
    return profile.user_id


async def test_memories_from_store_to_purge(served_without_llm: str, kind: Kind) -> None:
    async with sdk_client(served_without_llm, kind, "sdk-memories") as client:
        assert await call(client.ping) is True
        stored: Memory = await call(
            client.memories.store,
            "Ana's team deploys the billing service with Argo CD.",
            session_id="s-1",
            trust_tier="T2",
        )
        assert (stored.content, stored.memory_type, stored.trust_tier) == (
            "Ana's team deploys the billing service with Argo CD.",
            "semantic",
            "T2",
        )
        assert (stored.session_id, stored.initial_confidence, stored.is_active) == (
            "s-1",
            0.85,
            True,
        )
        assert stored.created_at is not None and stored.observed_at is not None

        batch: list[Memory] = await call(
            client.memories.store_batch,
            [
                {"content": "Ana prefers short status updates.", "memory_type": "profile"},
                {"content": "The billing service runs on Postgres 16."},
            ],
        )
        assert [(m.content, m.memory_type) for m in batch] == [
            ("Ana prefers short status updates.", "profile"),
            ("The billing service runs on Postgres 16.", "semantic"),
        ]
        preference, database = batch

        found: RetrieveResult = await call(
            client.memories.retrieve, "How is the billing service deployed?", session_id="s-1"
        )
        assert found.items[0].memory_id == stored.memory_id
        assert found.items[0].retrieval_score is not None and found.items[0].retrieval_score > 0
        assert found.explain is None
        explained: RetrieveResult = await call(
            client.memories.retrieve, "billing service deployment", explain=True
        )
        assert explained.items and explained.explain is not None
        assert explained.explain["level"] is not None
        searched: RetrieveResult = await call(
            client.memories.search, "Which database does the billing service use?", top_k=2
        )
        assert searched.items[0].memory_id == database.memory_id

        tier_two: MemoryPage = await call(client.memories.list, trust_tier="T2")
        assert [m.memory_id for m in tier_two.items] == [stored.memory_id]
        assert tier_two.next_cursor is None
        profiles: MemoryPage = await call(client.memories.list, memory_type="profile")
        assert [m.memory_id for m in profiles.items] == [preference.memory_id]

        corrected: Memory = await call(
            client.memories.correct,
            stored.memory_id,
            new_content="Ana's team deploys the billing service with Flux.",
            reason="migrated",
        )
        assert corrected.memory_id != stored.memory_id
        assert (corrected.content, corrected.trust_tier) == (
            "Ana's team deploys the billing service with Flux.",
            "T2",
        )
        upgraded: Memory = await call(
            client.memories.correct_by_query,
            "Which database does the billing service run on?",
            new_content="The billing service runs on Postgres 17.",
            reason="upgrade",
        )
        assert upgraded.content == "The billing service runs on Postgres 17."
        listed: MemoryPage = await call(client.memories.list)
        assert {m.content for m in listed.items} == {
            "Ana's team deploys the billing service with Flux.",
            "Ana prefers short status updates.",
            "The billing service runs on Postgres 17.",
        }

        assert await call(client.memories.feedback, upgraded.memory_id, signal="useful") is None
        user_id = await _user_id(client)
        stats = await _as_master(served_without_llm, "GET", "/v1/feedback/stats", user_id)
        assert stats["useful"] == 1

        observed: ObserveResult = await call(
            client.observe,
            [{"role": "user", "content": "I moved to Lisbon in May."}],
            session_id="s-2",
        )
        assert [m["content"] for m in observed.memories] == ["I moved to Lisbon in May."]
        assert observed.memories[0]["session_id"] == "s-2"
        assert observed.warning is not None  # no LLM: stored as said

        me: Profile = await call(client.profile.me)
        assert me.profile == "Ana prefers short status updates."
        assert me.stats["profile"] == 1

        assert await call(client.memories.delete, upgraded.memory_id, reason="stale") is None
        with pytest.raises(MemoriaNotFoundError):
            await call(client.memories.delete, upgraded.memory_id)
        purged: PurgeResult = await call(client.memories.purge, topic="Lisbon")
        assert purged.purged == 1
        assert purged.snapshot_name is not None and purged.snapshot_name.startswith("pre_purge_")
        left: MemoryPage = await call(client.memories.list)
        assert {m.content for m in left.items} == {
            "Ana's team deploys the billing service with Flux.",
            "Ana prefers short status updates.",
        }


async def test_snapshots_create_list_roll_back_and_delete(
    served_without_llm: str, kind: Kind
) -> None:
    async with sdk_client(served_without_llm, kind, "sdk-snapshots") as client:
        await call(client.memories.store, "The release train leaves every second Tuesday.")
        taken: Snapshot = await call(
            client.snapshots.create, "before-cleanup", description="state before the clean-up"
        )
        assert (taken.name, taken.description) == ("before-cleanup", "state before the clean-up")
        assert taken.created_at is not None
        listed: list[Snapshot] = await call(client.snapshots.list)
        assert [s.name for s in listed] == ["before-cleanup"]

        await call(client.memories.store, "The release train is paused in August.")
        assert await call(client.snapshots.rollback, "before-cleanup") is None
        after: MemoryPage = await call(client.memories.list)
        assert [m.content for m in after.items] == [
            "The release train leaves every second Tuesday."
        ]

        # One by name (DELETE), then Memoria's bulk forms: names, a prefix, an age.
        assert await call(client.snapshots.delete, "before-cleanup") is None
        for name in ("keep-a", "drop-a", "drop-b"):
            await call(client.snapshots.create, name)
        await call(client.snapshots.delete, names=["drop-a", "drop-b", "never-taken"])
        names = {s.name for s in await call(client.snapshots.list)}
        assert "keep-a" in names and not names & {"drop-a", "drop-b"}
        assert any(name.startswith("pre_rollback_") for name in names)
        await call(client.snapshots.delete, prefix="pre_")
        assert [s.name for s in await call(client.snapshots.list)] == ["keep-a"]
        newest: Snapshot = await call(client.snapshots.create, "newest")
        assert newest.created_at is not None
        await call(client.snapshots.delete, older_than=newest.created_at.isoformat())
        assert [s.name for s in await call(client.snapshots.list)] == ["newest"]


async def test_branches_from_fork_to_merge(served_without_llm: str, kind: Kind) -> None:
    async with sdk_client(served_without_llm, kind, "sdk-branches") as client:
        rotation: Memory = await call(
            client.memories.store, "The on-call rotation changes on Mondays."
        )
        created: Branch = await call(client.branches.create, "rotation-trial")
        assert (created.name, created.active) == ("rotation-trial", False)
        branches: list[Branch] = await call(client.branches.list)
        assert [(b.name, b.active) for b in branches] == [("main", True), ("rotation-trial", False)]

        assert await call(client.branches.checkout, "rotation-trial") is None
        assert [b.name for b in await call(client.branches.list) if b.active] == ["rotation-trial"]
        moved: Memory = await call(
            client.memories.correct,
            rotation.memory_id,
            new_content="The on-call rotation changes on Wednesdays.",
        )
        pager: Memory = await call(client.memories.store, "Pages go to the on-call phone first.")
        assert await call(client.branches.checkout, "main") is None

        diff: dict[str, Any] = await call(client.branches.diff, "rotation-trial")
        assert {m["memory_id"] for m in diff["added"]} == {moved.memory_id, pager.memory_id}
        entries: dict[str, Any] = await call(client.branches.diff_items, "rotation-trial", limit=10)
        assert (entries["branch"], entries["against"]) == ("rotation-trial", "main")
        assert [e["memory_id"] for e in entries["added"]] == [pager.memory_id]
        [update] = entries["updated"]
        assert (update["memory_id"], update["old_memory_id"]) == (
            moved.memory_id,
            rotation.memory_id,
        )
        assert update["old_content"] == "The on-call rotation changes on Mondays."
        assert entries["removed"] == entries["conflicts"] == entries["behind_main"] == []

        preview: dict[str, Any] = await call(
            client.branches.pick,
            "rotation-trial",
            selector={"type": "key_list", "keys": [pager.memory_id]},
            dry_run={"limit": 5},
        )
        assert preview["dry_run"] is True and preview["added"] == 1
        assert preview["result"].startswith("Would pick 1 change(s)")
        applied: ApplyResult = await call(
            client.branches.apply,
            "rotation-trial",
            updates=[{"old_id": rotation.memory_id, "new_id": moved.memory_id}],
        )
        assert applied.applied_updates == [f"{rotation.memory_id}→{moved.memory_id}"]
        assert applied.skipped_updates == applied.applied_adds == []
        main: MemoryPage = await call(client.memories.list, branch="main")
        assert [m.content for m in main.items] == ["The on-call rotation changes on Wednesdays."]

        picked: dict[str, Any] = await call(
            client.branches.pick,
            "rotation-trial",
            selector={"type": "key_list", "keys": [pager.memory_id]},
        )
        assert picked["dry_run"] is False
        assert picked["result"].startswith("Picked 1 change(s) from branch 'rotation-trial'")
        escalation: Memory = await call(
            client.memories.store, "Escalate after 15 minutes.", branch="rotation-trial"
        )
        assert await call(client.branches.merge, "rotation-trial") is None  # strategy "accept"
        merged: MemoryPage = await call(client.memories.list)
        assert escalation.memory_id in {m.memory_id for m in merged.items}

        assert await call(client.branches.delete, "rotation-trial") is None
        assert [b.name for b in await call(client.branches.list)] == ["main"]


async def test_governance_and_consolidate(
    served_without_llm: str, kind: Kind, neo4j_driver: AsyncDriver
) -> None:
    async with sdk_client(served_without_llm, kind, "sdk-governance") as client:
        user_id = await _user_id(client)
        await _as_master(
            served_without_llm,
            "POST",
            "/v1/memories",
            user_id,
            json={
                "content": "Scratch: retry the export",
                "memory_type": "working",
                "observed_at": days_ago(30),
            },
        )
        await query(
            neo4j_driver,
            "CREATE (:Entity {user_id: $user_id, key: 'nobody', name: 'Nobody', type: 'person'})",
            user_id=user_id,
        )
        governed: GovernanceResult = await call(client.governance.run, force=True)
        assert governed.skipped is False
        assert (governed.quarantined, governed.cleaned_stale, governed.orphan_graph_cleaned) == (
            0,
            1,
            1,
        )
        again: GovernanceResult = await call(client.governance.run)
        assert again.skipped is True and again.cooldown_remaining_s is not None

        await call(client.memories.store, "The invoice-api rate limit is 5000 requests per minute.")
        await call(
            client.memories.store, "The invoice-api rate limit is now 9000 requests per minute."
        )
        consolidated: GovernanceResult = await call(client.governance.consolidate, force=True)
        assert (consolidated.skipped, consolidated.status) == (False, "success")
        assert (consolidated.conflicts_detected, consolidated.demoted) == (1, 1)
        assert (consolidated.promoted, consolidated.decision_count) == (0, 1)
        assert consolidated.warnings == []


async def test_reflect_answers_the_candidates_without_an_llm(
    served_without_llm: str, kind: Kind
) -> None:
    async with sdk_client(served_without_llm, kind, "sdk-reflect") as client:
        deploys = [
            ("s1", "The invoice-api deploy failed because the Redis cluster was full."),
            ("s2", "Another invoice-api deploy failed: the Redis cluster ran out of memory."),
            ("s3", "invoice-api deploys pass once the Redis cluster is flushed first."),
        ]
        for session, content in deploys:
            await call(client.memories.store, content, session_id=session)
        reflected: GovernanceResult = await call(client.governance.reflect)  # mode "auto"
        [cluster] = reflected.candidates
        assert cluster["signal"] == "semantic_cluster"
        assert cluster["importance"] == pytest.approx(2 / 3, abs=0.001)
        assert {m["content"] for m in cluster["memories"]} == {c for _, c in deploys}
        asked: GovernanceResult = await call(client.governance.reflect, mode="candidates")
        assert asked.candidates == reflected.candidates
        with pytest.raises(MemoriaServerError) as refused:  # "internal" needs the LLM
            await call(client.governance.reflect, mode="internal", force=True)
        assert refused.value.status_code == 503


async def test_fulltext_search_and_query_as_the_newest_sdk_sends_them(
    served_without_llm: str, kind: Kind
) -> None:
    """The newest source's methods send these bodies through the client's own transport and
    read the answers with models the PyPI release has too."""
    async with sdk_client(served_without_llm, kind, "sdk-newest") as client:
        await call(client.memories.store, "Kafka lag alerts page the data team.", session_id="ops")
        await call(client.memories.store, "Kafka brokers run on three nodes.", trust_tier="T3")
        send = client._request if isinstance(client, MemoriaClient) else client._arequest
        # MemoriesResource.fulltext_search: the body without the arguments left out.
        body = {"query": "Kafka", "memory_types": ["semantic"], "session_id": "ops", "limit": 20}
        found = RetrieveResult.from_dict(
            await call(send, "POST", "/v1/memories/fulltext-search", json=body)
        )
        assert [m.content for m in found.items] == ["Kafka lag alerts page the data team."]
        assert found.items[0].retrieval_score is not None
        # MemoriesResource.query: filters only, limit 100 by default.
        body = {"trust_tier": "T3", "branch": "main", "limit": 100}
        page = MemoryPage.from_dict(await call(send, "POST", "/v1/memories/query", json=body))
        assert [m.content for m in page.items] == ["Kafka brokers run on three nodes."]
        assert page.next_cursor is None
