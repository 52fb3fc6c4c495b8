"""A real browser for tests that open the service's pages: Debian's headless Chromium driven
through Playwright's Python package (Playwright's own browser downloads are never used), with a
record of what its pages requested and what they complained about (script errors, refusals by
the Content Security Policy), so a test can tell that a page loaded only what it should."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.async_api import (
    BrowserContext,
    ConsoleMessage,
    Page,
    Request,
    async_playwright,
    expect,
)

# Installed by scripts/bootstrap.sh (apt, as root); CHROMIUM names another build of it.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# What runs on this machine (as root, without a GPU) and keeps the browser from calling home:
# no update checks, field trials, sync or QUIC probes.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ACTION_GUARD_MS = 300_000
expect.set_options(timeout=ACTION_GUARD_MS)  # its assertions' guard (5 s by default) too
# Schemes that name no host: inline data and the page's own objects.
HOSTLESS_SCHEMES = {"data", "blob", "about"}


def chromium_path() -> str:
    """The Chromium executable, or a failure that says how to get it."""
    found = shutil.which(CHROMIUM)
    if found is None:
        raise AssertionError(
            f"no Chromium at {CHROMIUM}: run scripts/bootstrap.sh as root "
            "(apt-get install chromium), or set CHROMIUM"
        )
    return found


@dataclass
class RequestLog:
    """Every request the browser made (pages, scripts, styles, fetches), in order, and what
    its pages reported: uncaught script errors and console errors (a CSP refusal is one)."""

    urls: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def record(self, request: Request) -> None:
        self.urls.append(request.url)

    def note(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def elsewhere(self, base_url: str) -> list[str]:
        """The requests that went to a host other than `base_url`'s."""
        home = urlsplit(base_url)
        return [
            url
            for url in self.urls
            if urlsplit(url).scheme not in HOSTLESS_SCHEMES
            and (urlsplit(url).scheme, urlsplit(url).netloc) != (home.scheme, home.netloc)
        ]


@dataclass
class Browser:
    """A fresh browser profile and the log of what its pages did."""

    context: BrowserContext
    requests: RequestLog

    async def open(self, url: str) -> Page:
        """A new tab at `url`, its errors going to the log."""
        page = await self.context.new_page()
        page.on("pageerror", lambda error: self.requests.page_errors.append(str(error)))
        page.on("console", self.requests.note)
        await page.goto(url)
        return page


@contextlib.asynccontextmanager
async def chromium(profile_dir: Path) -> AsyncIterator[Browser]:
    """Headless Chromium with a fresh profile in `profile_dir`, closed after the block."""
    executable = chromium_path()
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            str(profile_dir),
            executable_path=executable,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        # A guard for each action and page load: Playwright's 30 s is not enough for a page
        # of a machine whose cores are taken (the suite beside two CPU burners).
        context.set_default_timeout(ACTION_GUARD_MS)
        requests = RequestLog()
        context.on("request", requests.record)
        try:
            yield Browser(context, requests)
        finally:
            await context.close()
