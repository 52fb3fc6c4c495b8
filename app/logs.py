"""Logs as one JSON object per line, carrying the id, route and user of the request being served.

Nothing a user wrote, no raw key and no embedding goes into a log: messages name ids and counts.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime

# Fields a log line adds with `extra=`: an access line's (app/api/access.py), an LLM failure's
# (app/llm.py).
EXTRA_FIELDS = ("method", "status", "duration_ms", "feature", "attempts", "reason")


@dataclass
class RequestContext:
    """The request a task is serving; authentication fills in the user."""

    request_id: str
    route: str = "unmatched"  # until routing names it
    user_id: str | None = None


# Set by the access layer for the whole request; the handler's tasks share the same object.
CURRENT: ContextVar[RequestContext | None] = ContextVar("request", default=None)


def note_route(route: str) -> None:
    """Records the route (URL rule) the current request was matched to."""
    context = CURRENT.get()
    if context is not None:
        context.route = route


def note_user(user_id: str | None) -> None:
    """Records the authenticated user of the current request for its log lines."""
    context = CURRENT.get()
    if context is not None:
        context.user_id = user_id


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        context = CURRENT.get()
        if context is not None:
            entry.update(
                request_id=context.request_id, route=context.route, user_id=context.user_id
            )
        for name in EXTRA_FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure(level: int = logging.INFO) -> None:
    """JSON lines on stderr for every logger (warnings included); once per process."""
    root = logging.getLogger()
    if any(isinstance(handler.formatter, JsonLines) for handler in root.handlers):
        return
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines())
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
