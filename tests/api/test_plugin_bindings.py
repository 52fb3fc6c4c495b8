"""Plugin bindings over HTTP, and the end-to-end effect of a signed rerank plugin on retrieval:
bound for a user, it ranks as its manifest says and explain names it; disabled, the default
ranking is back; every step is in the audit events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import pytest_asyncio
from quart.typing import TestClientProtocol

from tests.conftest import MASTER, User
from tests.support.governance import days_ago
from tests.support.http import body_of, error_detail
from tests.support.memories import store
from tests.support.plugins import Publisher, plugin_name, publish, review, trust

BOOST = {"ranking": {"session_boost": 2.0}}


async def _review(client: TestClientProtocol, key: str, status: str, version: str = "1.0.0") -> Any:
    return await body_of(await review(client, key, version, status))


async def _bind(client: TestClientProtocol, domain: str, **rule: Any) -> Any:
    return await client.post(f"/admin/plugins/domains/{domain}/bindings", json=rule, headers=MASTER)


@pytest_asyncio.fixture(loop_scope="session")
async def publisher(client: TestClientProtocol) -> Publisher:
    signer = Publisher()
    await trust(client, signer)
    return signer


@pytest_asyncio.fixture(loop_scope="session")
async def plugin(client: TestClientProtocol, publisher: Publisher) -> AsyncIterator[str]:
    """A published rerank plugin that boosts the session (pending); disabled afterwards, so
    that no other test meets its effect."""
    name = plugin_name()
    await body_of(await publish(client, publisher.package(name, config=BOOST)), 201)
    yield name
    listed = await body_of(await client.get("/admin/plugins", headers=MASTER))
    for package in listed["items"]:
        if package["key"] == name and package["status"] == "active":
            await _review(client, name, "disabled", package["version"])


async def test_only_active_packages_can_be_bound(
    client: TestClientProtocol, plugin: str, user: User
) -> None:
    rule = {"plugin": plugin, "version": "1.0.0", "subject": f"user:{user.user_id}"}
    assert "only active" in await error_detail(await _bind(client, "retrieval", **rule), 409)
    await _review(client, plugin, "active")
    # The wrong domain for its capability, a version it does not have, an unknown domain.
    await error_detail(await _bind(client, "governance", **rule), 409)
    await error_detail(await _bind(client, "retrieval", **{**rule, "version": ">=2.0.0"}), 409)
    await error_detail(await _bind(client, "kitchen", **rule), 404)
    for bad in (
        {"version": "one"},
        {"subject": "everyone"},
        {"rollout_percent": 101},
        {"priority": -1},
        {"plugin": "Bad Name"},
    ):
        await error_detail(await _bind(client, "retrieval", **{**rule, **bad}), 422)

    created = await body_of(
        await _bind(client, "retrieval", **rule, priority=7, rollout_percent=50), 201
    )
    assert {
        key: created[key]
        for key in ("plugin", "version", "subject", "priority", "rollout_percent", "activation")
    } == {
        "plugin": plugin,
        "version": "1.0.0",
        "subject": f"user:{user.user_id}",
        "priority": 7,
        "rollout_percent": 50,
        "activation": False,
    }
    listed = await body_of(
        await client.get("/admin/plugins/domains/retrieval/bindings", headers=MASTER)
    )
    assert created["binding_id"] in [item["binding_id"] for item in listed["items"]]
    activate = "/admin/plugins/domains/retrieval/activate"
    await error_detail(
        await client.post(activate, json={"plugin": plugin, "version": ">=1.0.0"}, headers=MASTER),
        422,
    )


async def _retrieve(client: TestClientProtocol, user: User) -> tuple[list[str], Any]:
    response = await client.post(
        "/v1/memories/retrieve",
        json={
            "query": "What does Maria drink in the morning?",
            "session_id": "kitchen",
            "explain": True,
            "min_score": 0,
        },
        headers=user.headers,
    )
    body = await body_of(response)
    return [memory["content"] for memory in body["results"]], body["explain"]


async def test_a_bound_rerank_plugin_changes_ranking_as_its_manifest_says(
    client: TestClientProtocol, publisher: Publisher, plugin: str, user: User
) -> None:
    best = "Maria drinks green tea every morning."
    in_session = "Maria takes her coffee black."
    await store(client, user.headers, best)
    await store(client, user.headers, in_session, session_id="kitchen")
    default, explain = await _retrieve(client, user)
    assert default[0] == best and explain["plugin"] is None

    await _review(client, plugin, "active")
    rule = {"plugin": plugin, "version": ">=1.0.0,<2.0.0", "subject": f"user:{user.user_id}"}
    await body_of(await _bind(client, "retrieval", **rule), 201)
    activated = await body_of(
        await client.post(
            "/admin/plugins/domains/retrieval/activate",
            json={"plugin": plugin, "version": "1.0.0"},
            headers=MASTER,
        ),
        201,
    )
    assert activated["activation"] is True and activated["subject"] == "*"

    boosted, explain = await _retrieve(client, user)
    assert boosted[0] == in_session  # the session counts twice now
    assert explain["plugin"] == f"{plugin}@1.0.0"

    await _review(client, plugin, "disabled")
    restored, explain = await _retrieve(client, user)
    assert restored == default and explain["plugin"] is None

    events = await body_of(
        await client.get("/admin/plugins/events", query_string={"plugin": plugin}, headers=MASTER)
    )
    assert [event["action"] for event in events["items"]] == [
        "plugin.review",
        "domain.activate",
        "binding.create",
        "plugin.review",
        "plugin.publish",
    ]
    signers = await body_of(
        await client.get(
            "/admin/plugins/events", query_string={"action": "signer.add"}, headers=MASTER
        )
    )
    assert f"signer:{publisher.name}" in [event["target"] for event in signers["items"]]


async def test_a_governance_plugin_sets_the_quarantine_threshold_for_the_users_it_selects(
    client: TestClientProtocol, publisher: Publisher, user: User
) -> None:
    name = plugin_name()
    strict = {"governance": {"quarantine_below": 0.5}}
    files = publisher.package(name, capabilities=["governance.plan"], config=strict)
    await body_of(await publish(client, files), 201)
    await _review(client, name, "active")
    # A T2 memory 100 days old keeps 0.85 * exp(-100/180) = 0.49 of its confidence.
    aging = await store(
        client,
        user.headers,
        "The old wiki lives on wiki.internal.",
        trust_tier="T2",
        observed_at=days_ago(100),
    )
    try:
        rule = {"plugin": name, "version": "1.0.0", "subject": f"user:{user.user_id}"}
        await body_of(await _bind(client, "governance", **rule), 201)
        report = await body_of(
            await client.post(
                "/v1/governance", query_string={"force": "true"}, headers=user.headers
            )
        )
        assert report["quarantined"] == 1
        listed = await body_of(await client.get("/v1/memories", headers=user.headers))
        assert aging["memory_id"] not in [item["memory_id"] for item in listed["items"]]
    finally:
        await _review(client, name, "disabled")


async def test_a_plugin_that_selects_a_recipe_changes_retrieval_for_its_users_and_explain_names_it(
    client: TestClientProtocol, publisher: Publisher, user: User
) -> None:
    name = plugin_name()
    precise = {"retrieval": {"recipe": "precise", "features": {"session_boost": 1.5}}}
    await body_of(await publish(client, publisher.package(name, config=precise)), 201)
    await _review(client, name, "active")
    best = "Maria drinks green tea every morning."
    for content in (
        best,
        "The invoice service is deployed on Kubernetes.",
        "Quarterly tax filings are due in April.",
        "The staging cluster runs on three nodes.",
    ):
        await store(client, user.headers, content)

    async def ask() -> tuple[list[str], Any]:
        response = await client.post(
            "/v1/memories/retrieve",
            json={
                "query": "What does Maria drink in the morning?",
                "top_k": 4,
                "explain": "verbose",
            },
            headers=user.headers,
        )
        body = await body_of(response)
        return [memory["content"] for memory in body["results"]], body["explain"]

    default, explain = await ask()
    assert explain["recipe"] == "balanced" and explain["plugin"] is None
    assert len(default) == 4 and default[0] == best  # top_k filled by default
    try:
        rule = {"plugin": name, "version": "1.0.0", "subject": f"user:{user.user_id}"}
        await body_of(await _bind(client, "retrieval", **rule), 201)
        floored, explain = await ask()
        assert explain["recipe"] == "precise" and explain["plugin"] == f"{name}@1.0.0"
        assert explain["config"]["floor"]["relative"] == 0.5
        assert explain["config"]["features"]["session_boost"] == 1.5
        assert floored == [best]  # the unrelated ones fall under half the best score
    finally:
        await _review(client, name, "disabled")
    restored, explain = await ask()
    assert restored == default and explain["recipe"] == "balanced"


async def test_an_activation_replaces_the_one_before_and_the_audit_keeps_it(
    client: TestClientProtocol, plugin: str
) -> None:
    await _review(client, plugin, "active")
    activate = "/admin/plugins/domains/retrieval/activate"
    rule = {"plugin": plugin, "version": "1.0.0"}
    first = await body_of(await client.post(activate, json=rule, headers=MASTER), 201)
    second = await body_of(await client.post(activate, json=rule, headers=MASTER), 201)
    assert second["binding_id"] != first["binding_id"]

    listed = await body_of(
        await client.get("/admin/plugins/domains/retrieval/bindings", headers=MASTER)
    )
    activations = [item["binding_id"] for item in listed["items"] if item["activation"]]
    assert activations == [second["binding_id"]]
    events = await body_of(
        await client.get("/admin/plugins/events", query_string={"plugin": plugin}, headers=MASTER)
    )
    latest = events["items"][0]
    assert latest["action"] == "domain.activate"
    assert latest["before"]["binding_id"] == first["binding_id"]
    recorded = datetime.fromisoformat(latest["before"]["created_at"])
    assert recorded == datetime.fromisoformat(first["created_at"])
