"""The MCP server, driven by the SDK's own client over streamable HTTP (/mcp in the service) and
over stdio (`memory-service mcp`, calling the service's REST API): the tools and their
annotations, every tool at work, errors as tool errors worded like REST's, authentication,
rate limits, user isolation, and retrieve answering exactly what REST answers."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.conftest import MASTER, MASTER_KEY, PATIENT_S
from tests.support.fake_llm import FakeLlm
from tests.support.mcp import TRANSPORTS, Transport, call, connect, tool_error
from tests.support.summaries import FULL

TOOL_NAMES = {
    "memory_retrieve",
    "memory_search",
    "memory_feedback",
    "memory_correct",
    "memory_purge",
    "memory_governance",
    "memory_store",
    "memory_list",
    "memory_profile",
    "memory_observe",
    "memory_snapshot",
    "memory_snapshots",
    "memory_rollback",
    "memory_branch",
    "memory_branches",
    "memory_checkout",
    "memory_diff",
    "memory_merge",
    "memory_entities",
    "memory_summary",
    "memory_task",
    "memory_capabilities",
    "memory_history",
    "memory_pick",
}


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> Transport:
    transport: Transport = request.param
    return transport


async def _new_user(base_url: str, prefix: str) -> dict[str, str]:
    """A fresh user's bearer headers, the key issued through REST with the master key."""
    async with httpx.AsyncClient(base_url=base_url, timeout=PATIENT_S) as http:
        issued = await http.post(
            "/auth/keys",
            json={"user_id": f"{prefix}-{uuid.uuid4().hex[:10]}", "name": "mcp"},
            headers=MASTER,
        )
    assert issued.status_code == 201, issued.text
    return {"Authorization": f"Bearer {issued.json()['raw_key']}"}


async def _rest(
    base_url: str, headers: dict[str, str], method: str, path: str, **kwargs: Any
) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=PATIENT_S) as http:
        return await http.request(method, path, **kwargs)


def _ids(memories: list[dict[str, Any]]) -> list[str]:
    return [memory["memory_id"] for memory in memories]


async def test_the_tools_are_listed_with_schemas_and_annotations(
    served: str, transport: Transport
) -> None:
    async with connect(transport, served, await _new_user(served, "mcp-list")) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}

    assert set(listed) == TOOL_NAMES
    retrieve = listed["memory_retrieve"]
    assert retrieve.input_schema["required"] == ["query"]
    assert {"query", "top_k", "memory_types", "session_id"} <= set(
        retrieve.input_schema["properties"]
    )
    assert listed["memory_correct"].input_schema["properties"].keys() >= {
        "memory_id",
        "query",
        "new_content",
        "reason",
    }
    for tool in listed.values():
        assert tool.description, tool.name
        assert tool.annotations is not None, tool.name
        assert tool.annotations.open_world_hint is False
    assert retrieve.annotations is not None and retrieve.annotations.read_only_hint
    purge = listed["memory_purge"].annotations
    assert purge is not None and purge.destructive_hint and not purge.read_only_hint
    store = listed["memory_store"].annotations
    assert store is not None and not store.destructive_hint and not store.read_only_hint
    # The spec's two "alternative to feedback" rules, where an agent reads them.
    feedback = listed["memory_feedback"].description or ""
    assert "memory_correct" in feedback and "memory_purge" in feedback


async def test_every_tool_works(served: str, transport: Transport, llm: FakeLlm) -> None:
    async with connect(transport, served, await _new_user(served, "mcp-tools")) as client:
        owns = await call(
            client, "memory_store", content="The billing team owns invoice-api.", session_id="s1"
        )
        again = await call(
            client, "memory_store", content="The billing team owns invoice-api.", session_id="s1"
        )
        assert again["memory_id"] == owns["memory_id"]
        leads = await call(
            client, "memory_store", content="Maria leads the billing team.", session_id="s2"
        )
        found = await call(client, "memory_retrieve", query="Who owns invoice-api?", top_k=5)
        assert found[0]["memory_id"] == owns["memory_id"]
        searched = await call(client, "memory_search", query="Who leads billing?", top_k=5)
        assert searched[0]["memory_id"] == leads["memory_id"]
        page = await call(client, "memory_list", limit=10)
        assert set(_ids(page["items"])) == {owns["memory_id"], leads["memory_id"]}

        recorded = await call(
            client, "memory_feedback", memory_id=owns["memory_id"], signal="useful"
        )
        assert recorded["feedback_id"]
        await call(client, "memory_snapshot", name="before-fix", description="two facts")
        fixed = await call(
            client,
            "memory_correct",
            memory_id=leads["memory_id"],
            new_content="Maria and Wei lead the billing team.",
            reason="Wei joined",
        )
        assert fixed["content"] == "Maria and Wei lead the billing team."
        matched = await call(
            client,
            "memory_correct",
            query="who owns invoice-api",
            new_content="The billing team owns invoice-api and ledger-api.",
        )
        assert matched["matched_memory_id"] == owns["memory_id"]
        diff = await call(client, "memory_diff", snapshot="before-fix")
        assert diff["counts"]["added"] == 2 and diff["counts"]["removed"] == 2
        snapshots = await call(client, "memory_snapshots")
        assert "before-fix" in [snapshot["name"] for snapshot in snapshots]

        await call(client, "memory_branch", name="trial")
        assert (await call(client, "memory_checkout", name="trial"))["active_branch"] == "trial"
        trial = await call(client, "memory_store", content="Trial: invoice-api moves to Go.")
        branch_diff = await call(client, "memory_diff", branch="trial")
        assert _ids(branch_diff["added"]) == [trial["memory_id"]]
        branches = await call(client, "memory_branches")
        assert branches["active_branch"] == "trial"
        await call(client, "memory_checkout", name="main")
        preview = await call(
            client, "memory_pick", branch="trial", memory_ids=[trial["memory_id"]], dry_run=True
        )
        assert [item["action"] for item in preview["items"]] == ["add"]
        merged = await call(client, "memory_merge", branch="trial")
        assert merged["added"] == 1
        rolled_back = await call(client, "memory_rollback", name="before-fix")
        assert rolled_back["safety_snapshot"]
        history = await call(client, "memory_history", memory_id=leads["memory_id"])
        assert [version["cause"] for version in history["versions"]] == [
            "store",
            "supersede",
            "correct",  # the correction, which the rollback ended
            "rollback",
        ]
        page = await call(client, "memory_list")
        assert sorted(memory["content"] for memory in page["items"]) == [
            "Maria leads the billing team.",
            "The billing team owns invoice-api.",
        ]

        entities = await call(client, "memory_entities", prefix="invoice")
        assert "invoice-api" in [entity["name"] for entity in entities["items"]]
        profile = await call(client, "memory_profile")
        assert "profile" in profile
        llm.reply = {
            "facts": [{"content": "The user prefers dark mode.", "memory_type": "profile"}]
        }
        observed = await call(
            client, "memory_observe", messages=[{"role": "user", "content": "Dark mode, please."}]
        )
        assert [memory["content"] for memory in observed["memories"]] == [
            "The user prefers dark mode."
        ]

        governed = await call(client, "memory_governance", op="governance", force=True)
        assert governed["quarantined"] == 0
        consolidated = await call(client, "memory_governance", op="consolidate", force=True)
        assert "contradictions" in consolidated
        clusters = await call(client, "memory_governance", op="reflect", mode="candidates")
        [cluster] = clusters["items"]  # the two sessions share the billing team
        assert sorted(cluster["memory_ids"]) == sorted([owns["memory_id"], leads["memory_id"]])

        llm.reply = FULL
        summary = await call(client, "memory_summary", session_id="s1", sync=True)
        assert summary["memory_type"] == "episodic"
        accepted = await call(client, "memory_summary", session_id="s2")
        task = await call(client, "memory_task", task_id=accepted["task_id"])
        assert task["status"] in ("processing", "completed")

        purged = await call(
            client, "memory_purge", memory_ids=[trial["memory_id"], leads["memory_id"]]
        )
        assert purged["purged"] == 1 and purged["snapshot_name"]  # the trial one is gone already
        capabilities = await call(client, "memory_capabilities")
        assert capabilities["llm_configured"] is True
        assert capabilities["features"]["reflect"] == "llm"


async def test_bad_arguments_and_domain_errors_are_tool_errors_worded_like_rest(
    served: str, transport: Transport
) -> None:
    headers = await _new_user(served, "mcp-errors")
    rest_blank = await _rest(served, headers, "POST", "/v1/memories", json={"content": " "})
    assert rest_blank.status_code == 422
    rest_missing = await _rest(
        served, headers, "POST", "/v1/memories/no-such-memory/feedback", json={"signal": "useful"}
    )
    assert rest_missing.status_code == 404

    async with connect(transport, served, headers) as client:
        assert await tool_error(client, "memory_store", content=" ") == rest_blank.json()["detail"]
        assert (
            await tool_error(client, "memory_feedback", memory_id="no-such-memory", signal="useful")
            == rest_missing.json()["detail"]
        )
        assert "signal" in await tool_error(
            client, "memory_feedback", memory_id="no-such-memory", signal="great"
        )
        assert "top_k" in await tool_error(client, "memory_retrieve", query="x", top_k="5")
        assert "exactly one of memory_id and query" in await tool_error(
            client, "memory_correct", new_content="fixed"
        )
        assert "unknown tool" in await tool_error(client, "memory_fulltext_search", query="x")
        assert "not found" in await tool_error(client, "memory_rollback", name="never-taken")
        # The session survives its errors.
        assert (await call(client, "memory_list"))["items"] == []


async def test_two_keys_never_see_each_others_memories(served: str, transport: Transport) -> None:
    alice, bob = await _new_user(served, "mcp-alice"), await _new_user(served, "mcp-bob")
    async with connect(transport, served, alice) as client:
        secret = await call(client, "memory_store", content="Alice's locker code is 4711.")
    async with connect(transport, served, bob) as client:
        assert await call(client, "memory_retrieve", query="locker code") == []
        assert (await call(client, "memory_list"))["items"] == []
        for tool, arguments in (
            ("memory_correct", {"memory_id": secret["memory_id"], "new_content": "0000"}),
            ("memory_feedback", {"memory_id": secret["memory_id"], "signal": "wrong"}),
        ):
            assert "not found" in await tool_error(client, tool, **arguments)
        purged = await call(client, "memory_purge", memory_ids=[secret["memory_id"]])
        assert purged["purged"] == 0
    async with connect(transport, served, alice) as client:
        [kept] = (await call(client, "memory_list"))["items"]
        assert kept["content"] == "Alice's locker code is 4711."


async def test_retrieve_through_mcp_answers_what_rest_answers(
    served: str, transport: Transport
) -> None:
    headers = await _new_user(served, "mcp-parity")
    contents = [
        "invoice-api pins lodash 4.17.15.",
        "lodash 4.17.15 is affected by CVE-2020-8203.",
        "The billing team owns invoice-api.",
        "Maria leads the billing team.",
        "支付服务 payment-service 部署在上海机房。",
        "The office coffee machine is on the third floor.",
    ]
    batch = await _rest(
        served,
        headers,
        "POST",
        "/v1/memories/batch",
        json={"memories": [{"content": content} for content in contents]},
    )
    assert batch.status_code == 201, batch.text
    question = {"query": "Which library does invoice-api depend on?", "top_k": 5}
    rest = await _rest(served, headers, "POST", "/v1/memories/retrieve", json=question)
    assert rest.status_code == 200, rest.text
    async with connect(transport, served, headers) as client:
        through_mcp = await call(client, "memory_retrieve", **question)
    assert _ids(through_mcp) == _ids(rest.json())
    # Equal up to float noise: a query vector encoded alone or batched with others differs in
    # its last bits.
    assert [m["retrieval_score"] for m in through_mcp] == pytest.approx(
        [m["retrieval_score"] for m in rest.json()], rel=1e-6
    )


async def test_mcp_over_http_needs_a_key(served: str) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx.AsyncClient(base_url=served, timeout=PATIENT_S) as http:
        missing = await http.post("/mcp", json=ping)
        wrong = await http.post("/mcp", json=ping, headers={"Authorization": "Bearer sk-wrong"})
        master_alone = await http.post("/mcp", json=ping, headers=MASTER)
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == "Bearer"
    assert "Authorization: Bearer" in missing.json()["detail"]
    assert wrong.status_code == 401
    assert master_alone.status_code == 422  # the master key acts for a user named in X-User-Id


async def test_the_master_key_acts_for_the_user_named_in_x_user_id(served: str) -> None:
    headers = await _new_user(served, "mcp-acted")
    async with connect("http", served, headers) as client:
        stored = await call(client, "memory_store", content="Stored with the user's own key.")
        user_id = stored["user_id"]
    acting = {"Authorization": f"Bearer {MASTER_KEY}", "X-User-Id": user_id}
    async with connect("http", served, acting) as client:
        assert _ids((await call(client, "memory_list"))["items"]) == [stored["memory_id"]]


async def test_tool_calls_count_against_rest_rate_limits(served: str) -> None:
    headers = await _new_user(served, "mcp-limits")
    async with connect("http", served, headers) as client:
        for _ in range(10):  # consolidate and reflect share 10 per minute per key
            await call(client, "memory_governance", op="consolidate")
        detail = await tool_error(client, "memory_governance", op="reflect", mode="candidates")
        assert detail == "rate limit of 10 consolidate_reflect requests per minute exceeded"
        await call(client, "memory_governance", op="governance")  # its own class: not limited
    rest = await _rest(served, headers, "POST", "/v1/consolidate")
    assert rest.status_code == 429  # one window per key, whichever way the calls came


async def test_list_and_history_take_as_of_as_rest_does(served: str, transport: Transport) -> None:
    headers = await _new_user(served, "mcp-as-of")
    async with connect(transport, served, headers) as client:
        leads = await call(client, "memory_store", content="Maria leads the billing team.")
        await call(client, "memory_snapshot", name="before-fix")
        fixed = await call(
            client,
            "memory_correct",
            memory_id=leads["memory_id"],
            new_content="Maria and Wei lead the billing team.",
        )
        then = await call(client, "memory_list", as_of="before-fix")
        assert [memory["content"] for memory in then["items"]] == ["Maria leads the billing team."]
        history = await call(client, "memory_history", memory_id=fixed["memory_id"])
        corrected_at = history["versions"][-1]["at"]
        as_corrected = await call(client, "memory_list", as_of=corrected_at)
        assert _ids(as_corrected["items"]) == [fixed["memory_id"]]
        before = await call(
            client, "memory_history", memory_id=leads["memory_id"], as_of="before-fix"
        )
        assert [version["cause"] for version in before["versions"]] == ["store"]
        assert "not found" in await tool_error(client, "memory_list", as_of="never-taken")
        assert "future" in await tool_error(client, "memory_list", as_of="2999-01-01T00:00:00Z")
    rest = await _rest(served, headers, "GET", "/v1/memories", params={"as_of": "before-fix"})
    assert rest.json()["items"] == then["items"]
