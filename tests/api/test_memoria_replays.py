"""The requests of Memoria's other clients, replayed against the service served on loopback with
each client's own headers: its MCP server in remote mode (`memoria-mcp`'s remote.rs, which
sends null for every argument a tool was not given) and its openclaw agent plugin
(http-client.ts). The bodies are written here as those sources build them; each answer is
checked for the fields that client reads (and falls back to a default when they are missing).

The service has no LLM, as such clients' users often start: `mode: "auto"` then answers the
candidates."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx

from tests.conftest import MASTER_KEY
from tests.support.memoria import replaying

# remote.rs: a bearer token, the configured user (a key's owner is who acts: it is ignored), and
# the tool the server runs under.
MCP_HEADERS = {"X-User-Id": "default", "X-Memoria-Tool": "kiro"}
# http-client.ts: JSON content type on every request, bodies or not.
PLUGIN_HEADERS = {"Content-Type": "application/json", "X-Memoria-Tool": "openclaw"}


def _shown(memories: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """What both clients print of a memory: `[memory_id] (memory_type) content`."""
    return [(m["memory_id"], m["memory_type"], m["content"]) for m in memories]


def _stored(content: str, **given: Any) -> dict[str, Any]:
    """memory_store's body as remote.rs builds it: `memory_type` semantic, `session_id`,
    `trust_tier` and `branch` null unless the tool was given them; `subject_id` and
    `extra_metadata` only when given."""
    return {
        "content": content,
        "memory_type": "semantic",
        "session_id": None,
        "trust_tier": None,
        "branch": None,
        **given,
    }


def _memoria_time(at: str) -> str:
    """A time as Memoria's branch tool takes it, 'YYYY-MM-DD HH:MM:SS' (UTC, whole seconds)."""
    return datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M:%S")


async def test_the_mcp_remote_clients_memory_requests(served_without_llm: str) -> None:
    async with replaying(served_without_llm, "mcp-remote", MCP_HEADERS) as rest:
        # memory_store, with only the content given, and with everything.
        owner = await rest("POST", "/v1/memories", _stored("Ravi owns the search-api."))
        assert owner["content"] == "Ravi owns the search-api." and owner["memory_id"]
        budget = await rest(
            "POST",
            "/v1/memories",
            _stored(
                "search-api p99 latency budget is 300 ms.",
                session_id="s-1",
                trust_tier="T2",
                subject_id="ravi",
                extra_metadata={"source": "runbook"},
            ),
        )
        assert (budget["trust_tier"], budget["subject_id"]) == ("T2", "ravi")

        # memory_retrieve and memory_search read a plain array.
        found = await rest(
            "POST",
            "/v1/memories/retrieve",
            {"query": "Who owns the search-api?", "top_k": 5, "session_id": None, "branch": None},
        )
        assert _shown(found)[0] == (owner["memory_id"], "semantic", "Ravi owns the search-api.")
        scoped = await rest(
            "POST",
            "/v1/memories/search",
            {
                "query": "latency budget",
                "top_k": 10,
                "session_id": "s-1",
                "branch": None,
                "session_scope": "only",
                "subject_id": "ravi",
                "memory_types": ["semantic"],
            },
        )
        assert [m["memory_id"] for m in scoped] == [budget["memory_id"]]
        assert scoped[0]["extra_metadata"] == {"source": "runbook"}

        # memory_list and memory_profile (query parameters only when given).
        listed = await rest("GET", "/v1/memories", params={"limit": 20, "subject_id": "ravi"})
        assert [m["memory_id"] for m in listed["items"]] == [budget["memory_id"]]
        await rest(
            "POST",
            "/v1/memories",
            _stored("Ravi prefers written handovers.", memory_type="profile", subject_id="ravi"),
        )
        await rest(
            "POST",
            "/v1/memories",
            _stored("Mei prefers calls.", memory_type="profile", subject_id="mei"),
        )
        profile = await rest("GET", "/v1/profiles/me", params={"subject_id": "ravi"})
        assert profile["profile"] == "Ravi prefers written handovers."

        # memory_correct by id, then by query.
        corrected = await rest(
            "PUT",
            f"/v1/memories/{owner['memory_id']}/correct",
            {"new_content": "Ravi and Mei own the search-api.", "reason": None, "branch": None},
        )
        assert corrected["content"] == "Ravi and Mei own the search-api." and corrected["memory_id"]
        by_query = await rest(
            "POST",
            "/v1/memories/correct",
            {
                "query": "search-api latency budget",
                "new_content": "search-api p99 latency budget is 250 ms.",
                "session_id": None,
                "session_scope": None,
                "reason": None,
                "branch": None,
                "subject_id": "ravi",
                "memory_types": ["semantic"],
            },
        )
        assert "error" not in by_query
        assert by_query["content"] == "search-api p99 latency budget is 250 ms."
        assert by_query["matched_memory_id"] == budget["memory_id"]

        # memory_feedback and memory_observe.
        feedback = await rest(
            "POST",
            f"/v1/memories/{by_query['memory_id']}/feedback",
            {"signal": "useful", "context": None},
        )
        assert feedback["feedback_id"]
        observed = await rest(
            "POST",
            "/v1/observe",
            {
                "messages": [{"role": "user", "content": "Ravi is on leave next week."}],
                "session_id": None,
                "branch": None,
                "subject_id": "ravi",
            },
        )
        assert [(m["content"], m["subject_id"]) for m in observed["memories"]] == [
            ("Ravi is on leave next week.", "ravi")
        ]

        # memory_get_retrieval_params, and memory_tune_params: a POST without a body.
        params = await rest("GET", "/v1/retrieval-params")
        assert params["feedback_weight"] == 0.1
        tuned = await rest("POST", "/v1/retrieval-params/tune")
        assert tuned["tuned"] is False and "feedback" in tuned["message"]
        assert tuned["new_params"]["feedback_weight"] == 0.1

        # memory_purge: ids (the tool's comma list split), a topic, a session.
        purged = await rest(
            "POST",
            "/v1/memories/purge",
            {"memory_ids": [by_query["memory_id"], corrected["memory_id"]], "branch": None},
        )
        assert purged["purged"] == 2
        purged = await rest("POST", "/v1/memories/purge", {"topic": "leave", "branch": None})
        assert purged["purged"] == 1
        await rest(
            "POST",
            "/v1/memories",
            _stored("Draft agenda for Friday.", memory_type="working", session_id="s-9"),
        )
        purged = await rest(
            "POST",
            "/v1/memories/purge",
            {"session_id": "s-9", "memory_types": None, "branch": None},
        )
        assert purged["purged"] == 1


async def test_the_mcp_remote_clients_governance_and_entity_requests(
    served_without_llm: str,
) -> None:
    async with replaying(served_without_llm, "mcp-remote-gov", MCP_HEADERS) as rest:
        deploy = await rest(
            "POST",
            "/v1/memories",
            _stored(
                "The invoice-api deploy failed because the Redis cluster was full.", session_id="s1"
            ),
        )
        for session, content in [
            ("s2", "Another invoice-api deploy failed: the Redis cluster ran out of memory."),
            ("s3", "invoice-api deploys pass once the Redis cluster is flushed first."),
        ]:
            await rest("POST", "/v1/memories", _stored(content, session_id=session))

        governed = await rest("POST", "/v1/governance", {"force": False})
        assert governed["skipped"] is False
        assert (governed["quarantined"], governed["cleaned_stale"]) == (0, 0)
        skipped = await rest("POST", "/v1/governance", {"force": False})
        assert skipped["skipped"] is True and skipped["cooldown_remaining_s"] > 0
        await rest("POST", "/v1/governance", {"force": True})  # memory_rebuild_index

        consolidated = await rest("POST", "/v1/consolidate", {"force": False})
        for field in ("conflicts_detected", "orphaned_scenes", "promoted", "demoted"):
            assert isinstance(consolidated[field], int)

        reflected = await rest("POST", "/v1/reflect", {"force": False, "mode": "auto"})
        [cluster] = reflected["candidates"]
        assert cluster["signal"] == "semantic_cluster" and 0 < cluster["importance"] <= 1
        assert len(cluster["memories"]) == 3 and all(m["content"] for m in cluster["memories"])

        extraction = await rest("POST", "/v1/extract-entities", {"mode": "auto"})
        assert extraction["status"] == "candidates" and extraction["unlinked"] == 3
        assert {m["memory_id"] for m in extraction["memories"]} >= {deploy["memory_id"]}
        assert "invoice-api" in {e["name"].lower() for e in extraction["existing_entities"]}

        # memory_link_entities: the tool's JSON text parsed into Memoria's several-memory form.
        linked = await rest(
            "POST",
            "/v1/extract-entities/link",
            {
                "entities": [
                    {
                        "memory_id": deploy["memory_id"],
                        "entities": [
                            {"name": "Grafana", "type": "tech"},
                            {"name": "invoice-api", "type": "project"},
                        ],
                    }
                ]
            },
        )
        assert (linked["entities_created"], linked["entities_reused"]) == (1, 1)
        assert linked["edges_created"] == 1  # invoice-api was linked on store already
        [link] = linked["links"]
        assert ("Grafana", "package") in {(e["name"], e["type"]) for e in link["entities"]}
        listed = await rest("GET", "/v1/entities")
        assert {"name": "Grafana", "entity_type": "package"} in listed["entities"]


async def test_the_mcp_remote_clients_snapshot_and_branch_requests(
    served_without_llm: str,
) -> None:
    async with replaying(served_without_llm, "mcp-remote-git", MCP_HEADERS) as rest:
        first = await rest("POST", "/v1/memories", _stored("Backups run at 02:00 UTC."))
        await rest("POST", "/v1/snapshots", {"name": "mcp-snap", "description": None})
        snapshots = await rest("GET", "/v1/snapshots?limit=20&offset=0")
        assert [s["name"] for s in snapshots] == ["mcp-snap"]
        await rest("POST", "/v1/snapshots/mcp-snap/rollback", {})
        deleted = await rest("POST", "/v1/snapshots/delete", {"names": ["mcp-snap"]})
        assert deleted["deleted"] == 1
        deleted = await rest("POST", "/v1/snapshots/delete", {"prefix": "pre_"})
        assert deleted["deleted"] == 1  # the rollback's safety snapshot

        await rest(
            "POST",
            "/v1/branches",
            {"name": "mcp-branch", "from_snapshot": None, "from_timestamp": None},
        )
        # From a time before this user's first change: main was empty then.
        before = _memoria_time(first["created_at"])
        earlier = (datetime.fromisoformat(before) - timedelta(seconds=1)).isoformat(sep=" ")
        await rest(
            "POST",
            "/v1/branches",
            {"name": "mcp-past", "from_snapshot": None, "from_timestamp": earlier},
        )
        branches = await rest("GET", "/v1/branches")
        counts = {b["name"]: b["memory_count"] for b in branches["branches"]}
        assert counts == {"main": 1, "mcp-branch": 1, "mcp-past": 0}

        checked_out = await rest("POST", "/v1/branches/mcp-branch/checkout", {})
        assert checked_out["memory_count"] == 1
        added = await rest(
            "POST", "/v1/memories", _stored("Backups are kept for 30 days.", branch="mcp-branch")
        )
        await rest("POST", "/v1/branches/main/checkout", {})
        diff = await rest("GET", "/v1/branches/mcp-branch/diff?limit=50")
        assert [m["memory_id"] for m in diff["added"]] == [added["memory_id"]]

        picked = await rest(
            "POST",
            "/v1/branches/mcp-branch/pick",
            {
                "target": "main",
                "strategy": "fail",
                "selector": {"type": "key_list", "keys": [added["memory_id"]]},
                "dry_run": None,
            },
        )
        assert picked["dry_run"] is False
        assert picked["result"].startswith("Picked 1 change(s) from branch 'mcp-branch'")
        applied = await rest(
            "POST",
            "/v1/branches/mcp-branch/apply",
            {"adds": [], "updates": [], "removes": [], "accept_branch_conflicts": []},
        )
        assert applied["applied_adds"] == applied["skipped_adds"] == []
        merged = await rest("POST", "/v1/branches/mcp-branch/merge", {"strategy": "accept"})
        assert (merged["strategy"], merged["added"]) == ("replace", 0)  # picked already
        await rest("DELETE", "/v1/branches/mcp-branch")
        branches = await rest("GET", "/v1/branches")
        assert [b["name"] for b in branches["branches"]] == ["main", "mcp-past"]


async def test_the_openclaw_plugins_requests(served_without_llm: str) -> None:
    async with replaying(served_without_llm, "openclaw", PLUGIN_HEADERS) as rest:
        health = await rest("GET", "/health/instance")
        assert health["status"] == "ok" and isinstance(health["instance_id"], str)

        stored = await rest("POST", "/v1/memories", {"content": "Lena reviews infra PRs."})
        assert stored["memory_id"] and stored["content"] == "Lena reviews infra PRs."
        typed = await rest(
            "POST",
            "/v1/memories",
            {
                "content": "Lena prefers async reviews.",
                "memory_type": "profile",
                "session_id": "chat-1",
                "trust_tier": "T2",
            },
        )
        found = await rest(
            "POST", "/v1/memories/retrieve", {"query": "Who reviews infra?", "top_k": 5}
        )
        assert _shown(found)[0] == (stored["memory_id"], "semantic", "Lena reviews infra PRs.")
        scoped = await rest(
            "POST",
            "/v1/memories/retrieve",
            {"query": "review style", "top_k": 5, "session_id": "chat-1"},
        )
        assert scoped[0]["memory_id"] == typed["memory_id"]
        searched = await rest("POST", "/v1/memories/search", {"query": "infra PRs", "top_k": 10})
        assert searched[0]["memory_id"] == stored["memory_id"]
        listed = await rest("GET", "/v1/memories?limit=100")
        assert {m["memory_id"] for m in listed["items"]} == {
            stored["memory_id"],
            typed["memory_id"],
        }
        profile = await rest("GET", "/v1/profiles/me")
        assert profile["profile"] == "Lena prefers async reviews."

        corrected = await rest(
            "PUT",
            f"/v1/memories/{stored['memory_id']}/correct",
            {"new_content": "Lena and Omar review infra PRs.", "reason": "team change"},
        )
        assert corrected["content"] == "Lena and Omar review infra PRs."
        staging = await rest("POST", "/v1/memories", {"content": "Staging runs Kubernetes 1.28."})
        by_query = await rest(
            "POST",
            "/v1/memories/correct",
            {
                "query": "Which Kubernetes version does staging run?",
                "new_content": "Staging runs Kubernetes 1.29.",
            },
        )
        assert by_query["content"] == "Staging runs Kubernetes 1.29."
        assert by_query["matched_memory_id"] == staging["memory_id"]
        observed = await rest(
            "POST",
            "/v1/observe",
            {
                "messages": [{"role": "user", "content": "Omar is new on the infra team."}],
                "session_id": "chat-2",
            },
        )
        assert [m["content"] for m in observed["memories"]] == ["Omar is new on the infra team."]
        purged = await rest("POST", "/v1/memories/purge", {"memory_ids": [by_query["memory_id"]]})
        assert purged["purged"] == 1
        purged = await rest("POST", "/v1/memories/purge", {"topic": "Omar", "reason": "cleanup"})
        assert purged["purged"] == 2

        assert (await rest("POST", "/v1/governance", {"force": False}))["skipped"] is False
        assert (await rest("POST", "/v1/consolidate", {"force": False}))["status"] == "success"
        assert (await rest("POST", "/v1/reflect", {"force": False, "mode": "auto"}))[
            "candidates"
        ] == []
        modules = await rest("POST", "/v1/memories", {"content": "Omar maintains the modules."})
        extraction = await rest("POST", "/v1/extract-entities", {"mode": "auto"})
        assert modules["memory_id"] in {m["memory_id"] for m in extraction["memories"]}
        linked = await rest(
            "POST",
            "/v1/extract-entities/link",
            {
                "entities": [
                    {
                        "memory_id": modules["memory_id"],
                        "entities": [{"name": "HashiCorp", "type": "tech"}],
                    }
                ]
            },
        )
        assert (linked["entities_created"], linked["edges_created"]) == (1, 1)

        created = await rest("POST", "/v1/snapshots", {"name": "plugin-snap", "description": "d"})
        assert created["name"] == "plugin-snap" and created["created_at"]
        snapshots = await rest("GET", "/v1/snapshots?limit=20&offset=0")
        assert "plugin-snap" in {s["name"] for s in snapshots}
        await rest("POST", "/v1/snapshots/plugin-snap/rollback", {})

        await rest("POST", "/v1/branches", {"name": "plugin-branch"})
        await rest(
            "POST", "/v1/branches", {"name": "plugin-from-snap", "from_snapshot": "plugin-snap"}
        )
        branches = await rest("GET", "/v1/branches")
        assert [(b["name"], b["active"]) for b in branches["branches"]] == [
            ("main", True),
            ("plugin-branch", False),
            ("plugin-from-snap", False),
        ]
        await rest("POST", "/v1/branches/plugin-branch/checkout", {})
        await rest("POST", "/v1/memories", {"content": "Infra PRs need two approvals."})
        await rest("POST", "/v1/branches/main/checkout", {})
        diff = await rest("GET", "/v1/branches/plugin-branch/diff?limit=50")
        assert [m["content"] for m in diff["added"]] == ["Infra PRs need two approvals."]
        merged = await rest("POST", "/v1/branches/plugin-branch/merge", {})
        assert merged["added"] == 1
        merged = await rest("POST", "/v1/branches/plugin-from-snap/merge", {"strategy": "append"})
        assert merged["strategy"] == "append"
        await rest("DELETE", "/v1/branches/plugin-branch")
        await rest("DELETE", "/v1/branches/plugin-from-snap")
        branches = await rest("GET", "/v1/branches")
        assert [b["name"] for b in branches["branches"]] == ["main"]


async def test_the_benchmark_runners_requests_as_the_master_key(served_without_llm: str) -> None:
    """Memoria's benchmark runner (benchmark_executor.rs) acts for each scenario's user with the
    master key and X-Impersonate-User, and stores with `source`; its load tool names the user
    in the same header, and Memoria also reads `?user_id=`."""
    impersonating = {"Authorization": f"Bearer {MASTER_KEY}", "X-Impersonate-User": "bench-u1"}
    async with httpx.AsyncClient(base_url=served_without_llm, timeout=60) as http:
        stored = await http.post(
            "/v1/memories",
            json={"content": "The project uses PostgreSQL 15", "source": "benchmark"},
            headers=impersonating,
        )
        assert stored.status_code == 201, stored.text
        assert stored.json()["user_id"] == "bench-u1"
        batch = await http.post(
            "/v1/memories/batch",
            json={"memories": [{"content": "CI runs on GitHub Actions"}], "subject_id": "ci"},
            headers=impersonating,
        )
        assert batch.status_code == 201 and batch.json()[0]["subject_id"] == "ci"
        listed = await http.get(
            "/v1/memories",
            params={"user_id": "bench-u1"},
            headers={"Authorization": f"Bearer {MASTER_KEY}"},
        )
        assert {m["content"] for m in listed.json()["items"]} == {
            "The project uses PostgreSQL 15",
            "CI runs on GitHub Actions",
        }
