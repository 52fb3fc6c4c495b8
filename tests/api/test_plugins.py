"""Plugin administration over HTTP: signers, publishing signed packages and every rejection,
review moves, scores, the list and its filters, the matrix, the audit events, and the master key
on every route."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from quart.typing import TestClientProtocol

from app.services.plugins.packages import MAX_PACKAGE_BYTES
from tests.conftest import MASTER, User
from tests.support.http import body_of, error_detail
from tests.support.plugins import (
    Publisher,
    b64,
    plugin_name,
    publish,
    review,
    trust,
    trusted_publisher,
)


async def test_signers_are_added_listed_and_checked(client: TestClientProtocol) -> None:
    publisher = await trusted_publisher(client)
    listed = await body_of(await client.get("/admin/plugins/signers", headers=MASTER))
    assert {"name": publisher.name, "public_key": publisher.public_key} in [
        {key: item[key] for key in ("name", "public_key")} for item in listed["items"]
    ]
    same_name = {"name": publisher.name, "public_key": Publisher().public_key}
    same_key = {"name": Publisher().name, "public_key": publisher.public_key}
    for body in (same_name, same_key):
        response = await client.post("/admin/plugins/signers", json=body, headers=MASTER)
        await error_detail(response, 409)
    for key in ("not base64!", b64(b"short"), ""):
        body = {"name": Publisher().name, "public_key": key}
        response = await client.post("/admin/plugins/signers", json=body, headers=MASTER)
        await error_detail(response, 422)


async def test_a_signed_package_is_stored_pending_and_versions_are_immutable(
    client: TestClientProtocol,
) -> None:
    publisher = await trusted_publisher(client)
    name = plugin_name()

    package = await body_of(await publish(client, publisher.package(name)), 201)

    assert (package["key"], package["version"], package["status"]) == (name, "1.0.0", "pending")
    assert package["capabilities"] == ["retrieval.rerank"]
    assert package["signer"] == publisher.name
    assert package["config"] == {"ranking": {"vector_weight": 0.9}}
    assert [f["path"] for f in package["files"]] == ["rules/rerank.toml"]
    again = publisher.package(name, config={"ranking": {"vector_weight": 0.1}})
    assert "immutable" in await error_detail(await publish(client, again), 409)
    await body_of(await publish(client, publisher.package(name, "1.1.0")), 201)


def _tampered(files: dict[str, str]) -> dict[str, str]:
    return {**files, "rules/rerank.toml": b64(b"[ranking]\nvector_weight = 0.0\n")}


def _manifest_edit(files: dict[str, str], **changes: Any) -> dict[str, str]:
    manifest = json.loads(base64.b64decode(files["manifest.json"]))
    manifest.update(changes)
    return {**files, "manifest.json": b64(json.dumps(manifest).encode())}


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("bad base64", "base64"),
        ("no manifest", "manifest.json"),
        ("unknown capability", "unknown capability"),
        ("tampered file", "sha256"),
        ("unlisted file", "disagree"),
        ("bad signature", "signature"),
        ("untrusted signer", "not trusted"),
        ("traversal", "relative path"),
        ("absolute path", "relative path"),
        ("bad version", "semantic version"),
        ("bad range", "version range"),
        ("bad config", "manifest.json is invalid"),
        ("deep manifest", "manifest.json is invalid"),
        ("lone surrogate", "manifest.json is invalid"),
    ],
)
async def test_every_bad_package_is_rejected_with_a_clear_422(
    client: TestClientProtocol, case: str, expected: str
) -> None:
    publisher, stranger = Publisher(), Publisher()
    await trust(client, publisher)
    name = plugin_name()
    good = publisher.package(name)
    files = {
        "bad base64": {**good, "rules/rerank.toml": "%%% not base64"},
        "no manifest": {k: v for k, v in good.items() if k != "manifest.json"},
        "unknown capability": publisher.package(name, capabilities=["kernel.patch"]),
        "tampered file": _tampered(good),
        "unlisted file": {**good, "extra.txt": b64(b"x")},
        "bad signature": _manifest_edit(good, compatible="*"),
        "untrusted signer": stranger.package(name),
        "traversal": {**good, "../evil.py": b64(b"x")},
        "absolute path": {**good, "/etc/evil.py": b64(b"x")},
        "bad version": publisher.package(name, "one"),
        "bad range": publisher.package(name, compatible="about 1"),
        "bad config": publisher.package(name, config={"ranking": {"vector_weight": 7}}),
        "deep manifest": {**good, "manifest.json": b64(b'{"a":' * 100_000 + b"1" + b"}" * 100_000)},
        # JSON may spell a lone surrogate, which no UTF-8 (the signed bytes) can hold.
        "lone surrogate": _manifest_edit(good, description="\udc00"),
    }[case]
    detail = await error_detail(await publish(client, files), 422)
    assert expected in detail
    listed = await body_of(await client.get("/admin/plugins", headers=MASTER))
    assert name not in [item["key"] for item in listed["items"]]


async def test_a_package_over_the_size_limit_is_413(client: TestClientProtocol) -> None:
    publisher = await trusted_publisher(client)
    big = {"blob.bin": b"\0" * (MAX_PACKAGE_BYTES + 1)}
    manifest = publisher.manifest(plugin_name(), "1.0.0", big)
    files = {"blob.bin": b64(big["blob.bin"]), "manifest.json": b64(json.dumps(manifest).encode())}
    await error_detail(await publish(client, files), 413)


async def test_review_follows_the_allowed_moves_and_score_is_bounded(
    client: TestClientProtocol,
) -> None:
    publisher = await trusted_publisher(client)
    name = plugin_name()
    await body_of(await publish(client, publisher.package(name)), 201)

    assert (await body_of(await review(client, name, "1.0.0", "active")))["status"] == "active"
    detail = await error_detail(await review(client, name, "1.0.0", "pending"), 409)
    assert "cannot go from active to pending" in detail
    await error_detail(await review(client, name, "1.0.0", "active"), 409)
    await error_detail(await review(client, name, "1.0.0", "approved"), 422)
    await error_detail(await review(client, name, "9.9.9", "active"), 404)
    assert (await body_of(await review(client, name, "1.0.0", "disabled")))["status"] == "disabled"
    assert (await body_of(await review(client, name, "1.0.0", "active")))["status"] == "active"

    path = f"/admin/plugins/{name}/1.0.0/score"
    scored = await body_of(await client.post(path, json={"score": 87.5}, headers=MASTER))
    assert scored["score"] == 87.5
    for bad in (101, -1, "high", None):
        await error_detail(await client.post(path, json={"score": bad}, headers=MASTER), 422)


async def test_the_list_filters_and_the_matrix_says_what_is_supported(
    client: TestClientProtocol,
) -> None:
    publisher = await trusted_publisher(client)
    active, pending, incompatible = plugin_name(), plugin_name(), plugin_name()
    await body_of(await publish(client, publisher.package(active)), 201)
    await body_of(await review(client, active, "1.0.0", "active"))
    await body_of(
        await publish(
            client,
            publisher.package(
                pending,
                capabilities=["governance.plan"],
                config={"governance": {"quarantine_below": 0.1}},
            ),
        ),
        201,
    )
    await body_of(await publish(client, publisher.package(incompatible, compatible=">=2.0.0")), 201)
    await body_of(await review(client, incompatible, "1.0.0", "active"))

    by_status = await body_of(
        await client.get("/admin/plugins", query_string={"status": "pending"}, headers=MASTER)
    )
    keys = [item["key"] for item in by_status["items"]]
    assert pending in keys and active not in keys
    by_capability = await body_of(
        await client.get(
            "/admin/plugins", query_string={"capability": "governance.plan"}, headers=MASTER
        )
    )
    assert pending in [item["key"] for item in by_capability["items"]]
    assert active not in [item["key"] for item in by_capability["items"]]
    await error_detail(
        await client.get("/admin/plugins", query_string={"status": "great"}, headers=MASTER), 422
    )

    matrix = await body_of(await client.get("/admin/plugins/matrix", headers=MASTER))
    rows = {row["key"]: row for row in matrix["items"]}
    assert rows[active]["supported"] is True
    assert rows[pending]["supported"] is False and "pending" in rows[pending]["reason"]
    assert rows[incompatible]["supported"] is False
    assert ">=2.0.0" in rows[incompatible]["reason"]


async def test_every_change_writes_an_audit_event_newest_first(
    client: TestClientProtocol,
) -> None:
    publisher = await trusted_publisher(client)
    name = plugin_name()
    await body_of(await publish(client, publisher.package(name)), 201)
    await body_of(await review(client, name, "1.0.0", "active"))
    await body_of(
        await client.post(f"/admin/plugins/{name}/1.0.0/score", json={"score": 5}, headers=MASTER)
    )

    page = await body_of(
        await client.get("/admin/plugins/events", query_string={"plugin": name}, headers=MASTER)
    )
    actions = [event["action"] for event in page["items"]]
    assert actions == ["plugin.score", "plugin.review", "plugin.publish"]
    reviewed = page["items"][1]
    assert reviewed["actor"] == "master" and reviewed["target"] == f"plugin:{name}@1.0.0"
    assert (reviewed["before"], reviewed["after"]) == ({"status": "pending"}, {"status": "active"})

    first = await body_of(
        await client.get(
            "/admin/plugins/events", query_string={"plugin": name, "limit": 2}, headers=MASTER
        )
    )
    assert len(first["items"]) == 2 and first["next_cursor"]
    rest = await body_of(
        await client.get(
            "/admin/plugins/events",
            query_string={"plugin": name, "limit": 2, "cursor": first["next_cursor"]},
            headers=MASTER,
        )
    )
    assert [e["action"] for e in rest["items"]] == ["plugin.publish"]
    assert rest["next_cursor"] is None
    reviews = await body_of(
        await client.get(
            "/admin/plugins/events",
            query_string={"plugin": name, "action": "plugin.review"},
            headers=MASTER,
        )
    )
    assert [e["action"] for e in reviews["items"]] == ["plugin.review"]
    signers = await body_of(
        await client.get(
            "/admin/plugins/events", query_string={"action": "signer.add"}, headers=MASTER
        )
    )
    assert f"signer:{publisher.name}" in [e["target"] for e in signers["items"]]


ROUTES = [
    ("GET", "/admin/plugins/signers"),
    ("POST", "/admin/plugins/signers"),
    ("POST", "/admin/plugins"),
    ("GET", "/admin/plugins"),
    ("POST", "/admin/plugins/some-key/1.0.0/review"),
    ("POST", "/admin/plugins/some-key/1.0.0/score"),
    ("GET", "/admin/plugins/matrix"),
    ("GET", "/admin/plugins/events"),
    ("GET", "/admin/plugins/domains/retrieval/bindings"),
    ("POST", "/admin/plugins/domains/retrieval/bindings"),
    ("POST", "/admin/plugins/domains/retrieval/activate"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_plugin_route_needs_the_master_key(
    client: TestClientProtocol, user: User, method: str, path: str
) -> None:
    await error_detail(await client.open(path, method=method, json={}), 401)
    await error_detail(await client.open(path, method=method, json={}, headers=user.headers), 403)
