"""The metrics response."""

from __future__ import annotations

from typing import ClassVar

from pydantic import RootModel


class MetricsText(RootModel[str]):
    """The Prometheus text exposition format."""

    media_type: ClassVar[str] = "text/plain; version=0.0.4"
