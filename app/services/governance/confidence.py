"""Trust tiers: the confidence a memory starts with and how fast it decays."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Tier:
    initial_confidence: float
    decay_days: float


TIERS: dict[str, Tier] = {
    "T1": Tier(0.95, 365.0),
    "T2": Tier(0.85, 180.0),
    "T3": Tier(0.65, 60.0),
    "T4": Tier(0.40, 30.0),
}
SECONDS_PER_DAY = 86_400.0


def initial_confidence(tier: str, given: float | None = None) -> float:
    return TIERS[tier].initial_confidence if given is None else given


def timestamp(value: datetime | str) -> datetime:
    """A stored time as a datetime: hot read paths return Cypher's ISO 8601 strings, which may
    carry a zone name after the offset ("...Z[UTC]")."""
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value.split("[", 1)[0])


def age_days(since: datetime | str, now: datetime) -> float:
    return max(0.0, (now - timestamp(since)).total_seconds() / SECONDS_PER_DAY)


def decayed(initial: float, tier: str, days_old: float) -> float:
    """conf · exp(-age_days / τ), with τ the tier's e-folding time."""
    return initial * math.exp(-days_old / TIERS[tier].decay_days)
