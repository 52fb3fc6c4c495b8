"""The memory console in a real browser (Debian's headless Chromium) against the service served
on loopback: a person signs in, finds what the agent stored, reads why a search found it, follows
a correction in the history, snapshots, changes, diffs and rolls back, previews a pick from a
branch, restores a quarantined memory, looks at the operators' pages and signs out. Each page
is kept as a screenshot in var/console-screenshots/ for a person to look at."""

from __future__ import annotations

import re

import httpx
from playwright.async_api import Page, expect

from tests.conftest import MASTER_KEY
from tests.support.browser import Browser
from tests.support.service_process import REPO, new_user

SHOTS = REPO / "var" / "console-screenshots"
STORED = [
    ("Maria Lund owns the payment-service and is its on-call lead", {}),
    ("payment-service depends on redis-cache 4.2 for idempotency keys", {}),
    ("The billing team deploys payment-service every Tuesday", {"session_id": "deploys"}),
    ("Ops prefers Grafana dashboards over raw logs", {"memory_type": "profile"}),
    ("<script>alert('stored')</script> is how an agent wrote a note once", {}),
    ("A vague rumour that the cafeteria closes early", {"trust_tier": "T4"}),
]
WEAK = "A vague rumour that the cafeteria closes early"
DISAGREEING = ("The Falcon team's office is in Berlin", "The Falcon team's office is in Munich")


async def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def _sign_in(page: Page, base: str, credential: str, user_id: str = "") -> None:
    await page.goto(f"{base}/console/")
    await page.fill("#credential", credential)
    if user_id:
        await page.fill("#user_id", user_id)
    await page.click("#sign-in")


async def test_a_person_walks_through_the_console(served: str, browser: Browser) -> None:
    async with httpx.AsyncClient(base_url=served, timeout=30) as http:
        user_id, raw_key = await new_user(http, "console")
        headers = {"Authorization": f"Bearer {raw_key}"}
        ids: dict[str, str] = {}
        for content, fields in STORED:
            extra = {"initial_confidence": 0.1} if content == WEAK else {}
            response = await http.post(
                "/v1/memories", json={"content": content, **fields, **extra}, headers=headers
            )
            assert response.status_code == 201, response.text
            ids[content] = response.json()["memory_id"]

        page = await browser.open(f"{served}/console/")
        await expect(page.locator("#credential")).to_be_visible()
        await _shot(page, "01-sign-in")

        # Signing in shows the memories stored through the API, user-written markup as text.
        await _sign_in(page, served, raw_key)
        await expect(page.locator("#memories")).to_contain_text("Maria Lund owns")
        await expect(page.locator("#memories")).to_contain_text("<script>alert('stored')</script>")
        assert await page.title() != "owned"
        await _shot(page, "02-memories")

        # A search shows each result's score and what made it.
        await page.fill("#q", "who is on call for the payment-service?")
        await page.click("#search")
        first = page.locator(".result").first
        await expect(first).to_contain_text("Maria Lund owns")
        await expect(first.locator(".score")).to_have_text(re.compile(r"\d\.\d{4}"))
        await expect(first.locator(".why")).to_contain_text("feedback")
        await expect(page).to_have_url(re.compile(r"q=who"))
        await _shot(page, "03-search")

        # A correction: the memory's history holds both versions and why.
        await first.locator("a").first.click()
        await expect(page.locator("#content")).to_contain_text("Maria Lund owns")
        await page.fill("#new_content", "Maria Lund and Chen Wei own the payment-service")
        await page.fill("#reason", "Chen joined in May")
        await page.click("#correct")
        await expect(page.locator("#content")).to_contain_text("Chen Wei")
        history = page.locator("#history")
        await expect(history).to_contain_text("Maria Lund owns the payment-service")
        await expect(history).to_contain_text("Chen joined in May")
        await expect(page.locator("#entities")).to_contain_text("payment-service")
        await page.select_option("#signal", "useful")
        await page.click("#give-feedback")
        await expect(page.locator("#feedback")).to_contain_text("useful 1")
        await _shot(page, "04-memory-history")

        # The graph around an entity, drawn and clickable through its lists.
        await page.locator("#entities a", has_text="payment-service").click()
        await expect(page.locator("#graph")).to_have_attribute("data-drawn", re.compile(r"[1-9]"))
        await expect(page.locator("#neighbour-memories")).to_contain_text("redis-cache")
        await _shot(page, "05-graph")

        # A snapshot, a change, the diff against now, and a rollback.
        await page.goto(f"{served}/console/versioning")
        await page.fill("#snapshot-name", "before-cleanup")
        await page.fill("#snapshot-description", "as the agent left it")
        await page.click("#take-snapshot")
        await expect(page.locator("#snapshots")).to_contain_text("before-cleanup")
        await _shot(page, "06-versioning")
        grafana = ids["Ops prefers Grafana dashboards over raw logs"]
        await page.goto(f"{served}/console/memories/{grafana}")
        await page.fill("#delete-reason", "nobody said that")
        await page.click("#delete")
        await expect(page.locator(".notice")).to_contain_text("Deleted")
        await page.goto(f"{served}/console/versioning")
        await page.locator("#snapshots tr", has_text="before-cleanup").locator("a").click()
        await expect(page.locator("#diff")).to_contain_text("1 removed")
        await expect(page.locator("#diff .diff-removed")).to_contain_text("Grafana")
        await _shot(page, "07-snapshot-diff")
        await page.fill("#confirm", "before-cleanup")
        await page.click("#rollback")
        await expect(page.locator(".notice")).to_contain_text("Rolled branch main back")
        restored = await http.get(f"/v1/memories/{grafana}", headers=headers)
        assert restored.json()["is_active"] is True
        await _shot(page, "08-rolled-back")

        # A branch's diff against main, and a pick previewed before it is applied.
        assert (await http.post("/v1/branches", json={"name": "trial"}, headers=headers)).is_success
        tried = await http.post(
            "/v1/memories",
            json={"content": "payment-service moves to Redis 7 next quarter", "branch": "trial"},
            headers=headers,
        )
        assert tried.status_code == 201, tried.text
        await page.goto(f"{served}/console/branches/trial")
        await expect(page.locator("#diff")).to_contain_text("Redis 7")
        await page.check("#diff input[name=memory_ids]")
        await page.click("#preview-pick")
        await expect(page.locator("#pick-preview")).to_contain_text("Would add 1")
        await _shot(page, "09-pick-preview")
        await page.click("#apply-pick")
        await expect(page.locator(".notice")).to_contain_text("1 added")

        # Governance quarantines the weak memory, consolidate finds two that disagree; the
        # person sees both and restores the quarantined one.
        report = await http.post("/v1/governance?force=true", headers=headers)
        assert report.json()["quarantined"] == 1, report.text
        for content in DISAGREEING:
            stored = await http.post("/v1/memories", json={"content": content}, headers=headers)
            assert stored.status_code == 201, stored.text
        report = await http.post("/v1/consolidate?force=true", headers=headers)
        assert report.json()["contradictions"] == 1, report.text
        await page.goto(f"{served}/console/governance")
        await expect(page.locator("#contradictions .side.kept")).to_contain_text("Munich")
        row = page.locator("#quarantine tr", has_text="cafeteria")
        await expect(row).to_contain_text("decayed confidence")
        await expect(page.locator("#runs")).to_contain_text("governance")
        await _shot(page, "10-governance")
        await row.locator("button").click()
        await expect(page.locator(".notice")).to_contain_text("Restored")
        await expect(page.locator("#quarantine")).to_contain_text("Nothing is quarantined")
        await _shot(page, "11-restored")
        weak = await http.get(f"/v1/memories/{ids[WEAK]}", headers=headers)
        assert weak.json()["is_active"] is True

        # Signing out ends the session: the pages ask to sign in again.
        await page.click("#sign-out")
        await expect(page.locator("#credential")).to_be_visible()
        await page.goto(f"{served}/console/memories")
        await expect(page.locator("#credential")).to_be_visible()
        await _shot(page, "12-signed-out")

        # An operator sees every user with their counts and keys, and one user's view.
        await _sign_in(page, served, MASTER_KEY)
        await expect(page.locator("#users")).to_be_visible()
        await _shot(page, "13-operators")
        await page.fill("#find-user", user_id)
        await page.click("#open-user")
        await expect(page.locator("#keys")).to_contain_text(raw_key[:12])
        await _shot(page, "14-operator-user")
        await page.click("text=View as this user")
        await expect(page.locator("#memories")).to_contain_text("Chen Wei")
        await page.click("#sign-out")
        await expect(page.locator("#credential")).to_be_visible()

    assert browser.requests.elsewhere(served) == []
    assert browser.requests.page_errors == []
    assert [e for e in browser.requests.console_errors if "Security Policy" in e] == []


async def test_a_person_reads_the_memory_as_it_stood_then(served: str, browser: Browser) -> None:
    """The "as of" picker on the memories page (a snapshot of the user's, or a time), and a
    memory's history linking each version to the memories as they stood right after it."""
    async with httpx.AsyncClient(base_url=served, timeout=30) as http:
        _, raw_key = await new_user(http, "console-as-of")
        headers = {"Authorization": f"Bearer {raw_key}"}
        ids: dict[str, str] = {}
        for content in ("Deploys go out on Mondays", "Staging runs on db-stg-1"):
            response = await http.post("/v1/memories", json={"content": content}, headers=headers)
            assert response.status_code == 201, response.text
            ids[content] = response.json()["memory_id"]
        taken = await http.post("/v1/snapshots", json={"name": "before-tidy"}, headers=headers)
        assert taken.status_code == 201, taken.text
        staging = ids["Staging runs on db-stg-1"]
        assert (await http.delete(f"/v1/memories/{staging}", headers=headers)).is_success
        deploys = ids["Deploys go out on Mondays"]
        fixed = await http.put(
            f"/v1/memories/{deploys}/correct",
            json={"new_content": "Deploys go out on Tuesdays"},
            headers=headers,
        )
        assert fixed.is_success, fixed.text
        later = await http.post(
            "/v1/memories", json={"content": "Grafana replaced Kibana"}, headers=headers
        )
        assert later.status_code == 201, later.text

        page = await browser.open(f"{served}/console/")
        await _sign_in(page, served, raw_key)
        listing = page.locator("#memories")
        await expect(listing).to_contain_text("Deploys go out on Tuesdays")
        await expect(listing).not_to_contain_text("db-stg-1")

        # As of the snapshot: what it recorded, before the deletion and the correction.
        await page.select_option("#as_of", "before-tidy")
        await page.click("#filter")
        await expect(page.locator("#as-of-shown")).to_contain_text("before-tidy")
        await expect(listing).to_contain_text("Staging runs on db-stg-1")
        await expect(listing).to_contain_text("Deploys go out on Mondays")
        await expect(listing).not_to_contain_text("Grafana")
        await expect(page).to_have_url(re.compile(r"as_of=before-tidy"))
        await _shot(page, "15-as-of-snapshot")

        # As of a time picked in the browser: before the first memory, nothing.
        await page.fill("#as_of_time", "2001-01-01T00:00:00")
        await page.click("#filter")
        await expect(listing).to_contain_text("No memories match.")

        # From a memory's history to the memories as they stood right after its first version.
        await page.goto(f"{served}/console/memories/{deploys}")
        versions = page.locator("#history a.as-of")
        await expect(versions).to_have_count(3)
        await _shot(page, "16-history-as-of-links")
        await versions.first.click()
        await expect(page.locator("#as-of-shown")).to_be_visible()
        await expect(listing).to_contain_text("Deploys go out on Mondays")
        await expect(listing).not_to_contain_text("db-stg-1")  # stored after it
        await _shot(page, "17-as-of-a-version")

    assert browser.requests.elsewhere(served) == []
    assert browser.requests.page_errors == []
    assert [e for e in browser.requests.console_errors if "Security Policy" in e] == []
