"""The memory console through the app: what signing in gives and keeps, what every page's
headers and forms refuse, and that one user's console never shows another's data."""

from __future__ import annotations

import json
import uuid

import pytest_asyncio
from quart import Quart

from tests.conftest import MASTER, MASTER_KEY, User, create_user
from tests.support.console import Console, form_token, memory_ids, problem

SCRIPT = '<script>document.title="owned"</script><img src=x onerror=alert(1)> Rita runs billing'


async def _store(app: Quart, user: User, content: str, **fields: object) -> str:
    response = await app.test_client().post(
        "/v1/memories", json={"content": content, **fields}, headers=user.headers
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    memory_id: str = (await response.get_json())["memory_id"]
    return memory_id


async def _api(app: Quart, user: User, method: str, path: str, **kwargs: object) -> object:
    response = await app.test_client().open(path, method=method, headers=user.headers, **kwargs)
    assert response.status_code < 300, await response.get_data(as_text=True)
    return await response.get_json()


@pytest_asyncio.fixture(loop_scope="session")
async def console(app: Quart, user: User) -> Console:
    """A browser signed in with the user's API key."""
    view = Console(app.test_client())
    await view.sign_in(user.raw_key)
    return view


async def test_every_page_has_a_strict_content_security_policy(
    app: Quart, console: Console
) -> None:
    for path in ("/console/sign-in", "/console/memories", "/console/versioning"):
        response = await console.client.get(path)
        policy = response.headers["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["default-src"] == "'none'"
        assert directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert "unsafe" not in policy
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Cache-Control"] == "no-store"


async def test_pages_hold_no_inline_script(app: Quart, user: User, console: Console) -> None:
    memory_id = await _store(app, user, "Inline scripts are refused by the policy")
    for path in ("/console/memories", f"/console/memories/{memory_id}", "/console/governance"):
        page = await console.page(path)
        for tag in page.split("<script")[1:]:
            opening = tag.split(">", 1)[0]
            assert " src=" in opening or 'type="application/json"' in opening, opening


async def test_a_stored_script_is_shown_as_text(app: Quart, user: User, console: Console) -> None:
    memory_id = await _store(app, user, SCRIPT)
    for path in (
        "/console/memories",
        f"/console/memories/{memory_id}",
        "/console/memories?q=who+runs+billing",
    ):
        page = await console.page(path)
        assert "&lt;script&gt;document.title=" in page, path
        assert "<script>document.title" not in page
        assert "<img src=x" not in page


async def test_a_form_without_its_token_changes_nothing(
    app: Quart, user: User, console: Console
) -> None:
    memory_id = await _store(app, user, "The staging database is in Oslo")
    token = form_token(await console.page("/console/memories"))
    for given in (None, "", token[:-2] + "xx"):
        response = await console.post(f"/console/memories/{memory_id}/delete", given, reason="x")
        assert response.status_code == 403
        assert "token" in (problem(await response.get_data(as_text=True)) or "")
    memory = await _api(app, user, "GET", f"/v1/memories/{memory_id}")
    assert isinstance(memory, dict) and memory["is_active"] is True
    snapshots = await _api(app, user, "GET", "/v1/snapshots")
    assert not [s for s in snapshots if isinstance(s, dict) and s["name"].startswith("pre_delete")]


async def test_a_form_from_another_site_is_refused(
    app: Quart, user: User, console: Console
) -> None:
    memory_id = await _store(app, user, "The release train leaves on Thursdays")
    token = form_token(await console.page("/console/memories"))
    for headers in ({"Origin": "https://elsewhere.example"}, {"Sec-Fetch-Site": "cross-site"}):
        response = await console.client.post(
            f"/console/memories/{memory_id}/delete",
            form={"csrf_token": token, "reason": "x"},
            headers=headers,
        )
        assert response.status_code == 403
    memory = await _api(app, user, "GET", f"/v1/memories/{memory_id}")
    assert isinstance(memory, dict) and memory["is_active"] is True


async def test_one_users_console_never_shows_anothers_data(
    app: Quart, user: User, other_user: User, console: Console
) -> None:
    theirs = await _store(app, other_user, "Other's secret: the vault code is 4711 at Aurora Labs")
    await _api(app, other_user, "POST", "/v1/snapshots", json={"name": "their-snap"})
    await _api(app, other_user, "POST", "/v1/branches", json={"name": "their-branch"})
    mine = await _store(app, user, "My own note about Aurora Labs")

    listing = await console.page("/console/memories?inactive=on")
    assert mine in memory_ids(listing) and theirs not in memory_ids(listing)
    assert "vault code" not in listing
    searched = await console.page("/console/memories?q=vault+code+Aurora")
    assert "4711" not in searched and theirs not in searched
    for path in (
        f"/console/memories/{theirs}",
        "/console/snapshots/their-snap",
        "/console/branches/their-branch",
        f"/console/memories/{theirs}?branch=their-branch",
    ):
        await console.page(path, status=404)
    graph = await console.page("/console/graph?entity=aurora+labs")
    assert "4711" not in graph and theirs not in graph
    token = form_token(listing)
    response = await console.post(f"/console/memories/{theirs}/delete", token, reason="x")
    assert response.status_code == 404
    response = await console.post(
        f"/console/memories/{theirs}/correct", token, new_content="Overwritten"
    )
    assert response.status_code == 404
    memory = await _api(app, other_user, "GET", f"/v1/memories/{theirs}")
    assert isinstance(memory, dict) and memory["is_active"] and "4711" in memory["content"]


def _sets_session(response: object) -> bool:
    headers = response.headers.getlist("Set-Cookie")  # type: ignore[attr-defined]
    return any(header.startswith("memory_console=") for header in headers)


def _cookie(response: object, name: str) -> str:
    headers = response.headers.getlist("Set-Cookie")  # type: ignore[attr-defined]
    found = [header for header in headers if header.startswith(f"{name}=")]
    assert found, headers
    return str(found[0])


async def _signed_in(app: Quart, user: User, scheme: str = "http") -> object:
    client = app.test_client()
    page = await (await client.get("/console/sign-in", scheme=scheme)).get_data(as_text=True)
    return await client.post(
        "/console/sign-in",
        form={"csrf_token": form_token(page), "credential": user.raw_key},
        scheme=scheme,
    )


async def test_the_session_cookie_is_httponly_strict_and_holds_no_key(
    app: Quart, user: User
) -> None:
    response = await _signed_in(app, user)
    cookie = _cookie(response, "memory_console")
    flags = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite", "path"} <= flags
    assert "SameSite=Strict" in cookie and "Path=/console" in cookie
    assert "secure" not in flags  # plain HTTP here: a Secure cookie would never come back
    value = cookie.split(";", 1)[0].split("=", 1)[1]
    session = app.extensions["console"].session(value)
    assert session is not None and session.key_id == user.key_id
    assert user.raw_key not in value and user.raw_key not in json.dumps(session.as_payload())


async def test_the_session_cookie_is_secure_over_tls(app: Quart, user: User) -> None:
    response = await _signed_in(app, user, scheme="https")
    assert "; Secure" in _cookie(response, "memory_console")


async def test_the_console_opens_at_its_bare_path(app: Quart) -> None:
    response = await app.test_client().get("/console", follow_redirects=True)
    assert response.status_code == 401  # the sign-in form, in place of the page asked for
    assert 'name="credential"' in await response.get_data(as_text=True)


async def test_the_console_is_not_part_of_the_api_document(app: Quart) -> None:
    document = await (await app.test_client().get("/openapi.json")).get_json()
    assert not [path for path in document["paths"] if path.startswith("/console")]


async def test_a_wrong_key_does_not_sign_in(app: Quart) -> None:
    client = app.test_client()
    page = await (await client.get("/console/sign-in")).get_data(as_text=True)
    response = await client.post(
        "/console/sign-in",
        form={"csrf_token": form_token(page), "credential": "sk-" + "0" * 32},
    )
    assert response.status_code == 401
    assert "invalid API key" in (problem(await response.get_data(as_text=True)) or "")
    assert not _sets_session(response)


async def test_signing_in_needs_the_sign_in_forms_token(app: Quart, user: User) -> None:
    response = await app.test_client().post("/console/sign-in", form={"credential": user.raw_key})
    assert response.status_code == 403
    assert not _sets_session(response)


async def test_a_revoked_key_signs_the_session_out(app: Quart) -> None:
    user = await create_user(app.test_client(), "revoked")
    view = Console(app.test_client())
    await view.sign_in(user.raw_key)
    await view.page("/console/memories")
    await _api(app, user, "DELETE", f"/auth/keys/{user.key_id}")
    page = await view.page("/console/memories", status=401)
    assert "revoked" in page and 'name="credential"' in page


async def test_signing_out_ends_the_session_in_the_browser(app: Quart, user: User) -> None:
    view = Console(app.test_client())
    await view.sign_in(user.raw_key)
    token = form_token(await view.page("/console/memories"))
    response = await view.post("/console/sign-out", token)
    assert response.status_code == 200
    assert "Max-Age=0" in _cookie(response, "memory_console")
    await view.page("/console/memories", status=401)


async def test_an_operator_views_a_user_and_users_cannot_open_the_operators_pages(
    app: Quart, user: User, console: Console
) -> None:
    mine = await _store(app, user, "Operators can read this through the console")
    await console.page("/console/operators", status=403)
    operator = Console(app.test_client())
    landing = await operator.sign_in(MASTER_KEY)
    assert 'id="users"' in landing  # no user chosen yet: the operators' page
    sent_back = await operator.page("/console/memories")
    assert 'id="users"' in sent_back and "Choose a user to view first" in sent_back
    user_page = await operator.page(f"/console/operators/users/{user.user_id}")
    assert user.raw_key[:12] in user_page  # the key's prefix, never the key
    assert user.raw_key not in user_page
    viewed = await operator.submit(
        "/console/operators", "/console/operators/view", user_id=user.user_id
    )
    assert mine in memory_ids(viewed) and f"viewing <strong>{user.user_id}</strong>" in viewed
    operator_for = Console(app.test_client())
    direct = await operator_for.sign_in(MASTER_KEY, user.user_id)
    assert mine in memory_ids(direct)


async def test_an_operator_revokes_a_key_and_its_session_ends(app: Quart) -> None:
    user = await create_user(app.test_client(), "revoked-by-operator")
    view = Console(app.test_client())
    await view.sign_in(user.raw_key)
    operator = Console(app.test_client())
    await operator.sign_in(MASTER_KEY)
    page = await operator.page(f"/console/operators/users/{user.user_id}")
    response = await operator.post(
        f"/console/operators/users/{user.user_id}/keys/{user.key_id}/revoke", form_token(page)
    )
    assert response.status_code == 303
    await view.page("/console/memories", status=401)


async def test_correcting_shows_the_history_with_both_versions(
    app: Quart, user: User, console: Console
) -> None:
    old = await _store(app, user, "The on-call rotation changes on Mondays")
    page = await console.submit(
        f"/console/memories/{old}",
        f"/console/memories/{old}/correct",
        new_content="The on-call rotation changes on Tuesdays",
        reason="moved in March",
    )
    assert "Tuesdays" in page and "Mondays" in page and "moved in March" in page
    assert old in memory_ids(page)


async def test_restoring_a_quarantined_memory(app: Quart, user: User, console: Console) -> None:
    memory_id = await _store(
        app, user, "A weak rumour about the cafeteria", trust_tier="T4", initial_confidence=0.1
    )
    report = await _api(app, user, "POST", "/v1/governance?force=true")
    assert isinstance(report, dict) and report["quarantined"] >= 1
    page = await console.page("/console/governance")
    assert memory_id in memory_ids(page) and "decayed confidence" in page
    page = await console.submit(
        "/console/governance", f"/console/memories/{memory_id}/restore", reason="still true"
    )
    assert memory_id not in memory_ids(page.split('id="contradictions"')[0])
    memory = await _api(app, user, "GET", f"/v1/memories/{memory_id}")
    assert isinstance(memory, dict) and memory["is_active"] is True
    history = await _api(app, user, "GET", f"/v1/memories/{memory_id}/history")
    assert isinstance(history, dict)
    causes = [version["cause"] for version in history["versions"]]
    assert causes[-2:] == ["quarantine", "restore"]
    response = await console.post(
        f"/console/memories/{memory_id}/restore", form_token(page), reason="again"
    )
    assert response.status_code == 409


async def test_contradictions_are_shown_side_by_side(
    app: Quart, console: Console, user: User
) -> None:
    older = await _store(app, user, "The Falcon team's office is in Berlin")
    newer = await _store(app, user, "The Falcon team's office is in Munich")
    report = await _api(app, user, "POST", "/v1/consolidate?force=true")
    assert isinstance(report, dict) and report["contradictions"] >= 1
    page = await console.page("/console/governance")
    section = page.split('id="contradictions"')[1].split('id="runs"')[0]
    assert section.index(newer) < section.index(older)
    assert "the newer memory is kept" in section
    assert "consolidate" in page.split('id="runs"')[1]


async def test_the_graph_page_draws_an_entitys_neighbourhood(
    app: Quart, console: Console, user: User
) -> None:
    name = f"Quasar{uuid.uuid4().hex[:6]}"
    first = await _store(app, user, f"{name} Service is owned by Priya Raman")
    second = await _store(app, user, f"{name} Service depends on Kafka Cluster")
    page = await console.page(f"/console/graph?entity={name}+service")
    drawn = json.loads(page.split('id="graph-data">')[1].split("</script>")[0])
    nodes = {item["data"]["id"]: item["data"] for item in drawn if "source" not in item["data"]}
    assert {f"m:{first}", f"m:{second}"} <= set(nodes)
    assert nodes[f"m:{first}"]["href"] == f"/console/memories/{first}"
    assert any(data["kind"] == "entity" and "Priya" in data["label"] for data in nodes.values())


async def test_an_operator_viewing_a_user_who_is_deactivated_is_sent_back(app: Quart) -> None:
    user = await create_user(app.test_client(), "deactivated")
    operator = Console(app.test_client())
    await operator.sign_in(MASTER_KEY, user.user_id)
    response = await app.test_client().delete(f"/admin/users/{user.user_id}", headers=MASTER)
    assert response.status_code == 200
    page = await operator.page("/console/memories")
    assert 'id="users"' in page and f"user {user.user_id} is deactivated" in page


async def test_the_memories_page_shows_the_memory_as_of_a_snapshot_or_a_time(
    app: Quart, user: User, console: Console
) -> None:
    kept = await _store(app, user, "The release train leaves on Mondays")
    dropped = await _store(app, user, "Staging runs on db-stg-1")
    await _api(app, user, "POST", "/v1/snapshots", json={"name": "before-tidy"})
    await _api(app, user, "DELETE", f"/v1/memories/{dropped}")
    await _api(
        app, user, "PUT", f"/v1/memories/{kept}/correct", json={"new_content": "Trains: Tuesdays"}
    )
    now = await console.page("/console/memories")
    assert "Staging runs on db-stg-1" not in now and "Trains: Tuesdays" in now
    assert '<option value="before-tidy"' in now  # the picker offers the user's snapshots

    then = await console.page("/console/memories?as_of=before-tidy")
    assert "Staging runs on db-stg-1" in then and "Trains: Tuesdays" not in then
    assert 'id="as-of-shown"' in then and '<option value="before-tidy" selected' in then
    assert set(memory_ids(then)) == {kept, dropped}

    history = await console.page(f"/console/memories/{kept}")
    links = history.split('class="as-of" href="')[1:]
    assert len(links) == 3  # stored, superseded by the correction, the correction
    stored_then = links[0].split('"', 1)[0].replace("&amp;", "&")
    as_stored = await console.page(stored_then)
    assert "The release train leaves on Mondays" in as_stored
    assert "Staging runs on db-stg-1" not in as_stored  # stored after it

    picked = await console.page("/console/memories?as_of=nine&as_of_time=2001-01-01T00:00:00")
    assert "No memories match." in picked  # the time picked wins: before anything was stored
    missing = await console.page("/console/memories?as_of=no-such-snapshot", status=404)
    assert problem(missing) == "snapshot no-such-snapshot not found"
