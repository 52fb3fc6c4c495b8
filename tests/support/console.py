"""Driving the memory console through Quart's test client: signing in as a browser would (the
form's token, then the session cookie) and reading what its pages show."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from quart.typing import TestClientProtocol

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
MEMORY_LINK = re.compile(r"/console/memories/([0-9a-f]{32})")
PROBLEM = re.compile(r'class="problem"[^>]*>([^<]*)<')


def form_token(page: str) -> str:
    """The token the page's forms carry."""
    found = TOKEN.search(page)
    assert found is not None, "the page has no form token"
    return html.unescape(found.group(1))


def token_of_form(page: str, action: str) -> str:
    """The token the page's form that posts to `action` carries."""
    start = page.find(f'action="{html.escape(action)}"')
    assert start >= 0, f"the page has no form that posts to {action}"
    return form_token(page[start:])


def memory_ids(page: str) -> list[str]:
    """The memories a page links to, in order."""
    return list(dict.fromkeys(MEMORY_LINK.findall(page)))


def problem(page: str) -> str | None:
    found = PROBLEM.search(page)
    return html.unescape(found.group(1)) if found else None


@dataclass
class Console:
    """One browser's view of the console (its own cookie jar)."""

    client: TestClientProtocol

    async def page(self, path: str, status: int = 200) -> str:
        response = await self.client.get(path, follow_redirects=True)
        body = await response.get_data(as_text=True)
        assert response.status_code == status, (response.status_code, problem(body) or body[:500])
        return body

    async def sign_in(self, credential: str, user_id: str = "") -> str:
        """Signs in through the form; returns the page signing in leads to."""
        form = await self.page("/console/sign-in")
        response = await self.client.post(
            "/console/sign-in",
            form={"csrf_token": form_token(form), "credential": credential, "user_id": user_id},
        )
        assert response.status_code == 303, await response.get_data(as_text=True)
        return await self.page(response.headers["Location"])

    async def post(self, path: str, token: str | None, **fields: Any) -> Any:
        """Posts a form (with `token` as its csrf_token unless None); the raw response."""
        form = dict(fields)
        if token is not None:
            form["csrf_token"] = token
        return await self.client.post(path, form=form)

    async def submit(self, on: str, path: str, **fields: Any) -> str:
        """Posts the form of page `on` that posts to `path`, as the browser would (with the
        token in that form), and follows its redirect; the page it leads to."""
        token = token_of_form(await self.page(on), path)
        response = await self.post(path, token, **fields)
        body = await response.get_data(as_text=True)
        assert response.status_code == 303, (response.status_code, problem(body) or body[:500])
        return await self.page(response.headers["Location"])
