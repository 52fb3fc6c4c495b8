"""The documentation holds together: every relative link in the README, docs/ and bench/README.md
reaches a file, and a #anchor a heading of it; the README stays a five-minute read."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.support.markdown import Link, anchors, links

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "bench" / "README.md"]
README_MAX_BYTES = 12_288


def _problem(link: Link) -> str | None:
    """What is wrong with a relative link, or None (links to other sites are not followed)."""
    parts = urlsplit(link.target)
    if parts.scheme or parts.netloc:
        return None
    target = (link.page.parent / unquote(parts.path)).resolve() if parts.path else link.page
    if not target.exists():
        return "no such file"
    if not target.is_relative_to(REPO):
        return "outside the repository"
    headings = anchors(target.read_text(encoding="utf-8")) if target.suffix == ".md" else set()
    if parts.fragment and target.suffix == ".md" and parts.fragment not in headings:
        return f"no heading #{parts.fragment} in {target.relative_to(REPO)}"
    return None


def test_every_relative_link_resolves() -> None:
    broken = [
        f"{link.page.relative_to(REPO)}: ({link.target}) {problem}"
        for page in PAGES
        for link in links(page)
        if (problem := _problem(link)) is not None
    ]
    assert broken == []


def test_the_pages_link_to_something() -> None:
    # The check above proves nothing if the links are not found at all.
    assert len(links(REPO / "README.md")) >= 15
    assert len(links(REPO / "docs" / "api.md")) >= 10


def test_the_readme_is_short() -> None:
    assert (REPO / "README.md").stat().st_size <= README_MAX_BYTES
