"""Reading the project's Markdown as GitHub renders it: headings and their anchors, sections,
and the links a page makes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (code shows links and headings, it makes none)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text, lowercased, punctuation other than - and _
    dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor (a repeated one gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(text):
        match = HEADING.match(line)
        if match is None:
            continue
        anchor = slug(match.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def sections(text: str, level: int) -> dict[str, str]:
    """The text under each heading of `level` (##: 2), up to the next heading of that level or
    higher, keyed by the heading's text."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in prose_lines(text):
        match = HEADING.match(line)
        if match is not None and len(match.group(1)) <= level:
            current = found.setdefault(match.group(2), []) if len(match.group(1)) == level else None
            continue
        if current is not None:
            current.append(line)
    return {heading: "\n".join(lines) for heading, lines in found.items()}


@dataclass(frozen=True)
class Link:
    page: Path
    target: str  # as written: a path relative to the page, with an optional #anchor


def links(page: Path) -> list[Link]:
    """The links and images a page makes outside code (a link's text may run over lines)."""
    prose = "\n".join(CODE_SPAN.sub("", line) for line in prose_lines(page.read_text("utf-8")))
    return [Link(page, match.group(1)) for match in LINK.finditer(prose)]
