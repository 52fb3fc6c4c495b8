"""Trust tiers: initial confidence and e-folding decay per tier."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from app.services.governance.confidence import TIERS, age_days, decayed, initial_confidence

EXPECTED = {"T1": (0.95, 365.0), "T2": (0.85, 180.0), "T3": (0.65, 60.0), "T4": (0.40, 30.0)}


@pytest.mark.parametrize("tier", sorted(EXPECTED))
def test_tier_table(tier: str) -> None:
    initial, tau = EXPECTED[tier]
    assert TIERS[tier].initial_confidence == pytest.approx(initial)
    assert TIERS[tier].decay_days == pytest.approx(tau)
    assert initial_confidence(tier) == pytest.approx(initial)
    assert initial_confidence(tier, 0.3) == pytest.approx(0.3)


@pytest.mark.parametrize("tier", sorted(EXPECTED))
def test_decay_is_exponential_with_the_tier_time(tier: str) -> None:
    initial, tau = EXPECTED[tier]
    assert decayed(initial, tier, 0.0) == pytest.approx(initial)
    assert decayed(initial, tier, tau) == pytest.approx(initial / math.e)
    assert decayed(initial, tier, 2 * tau) == pytest.approx(initial / math.e**2)
    assert decayed(0.5, tier, tau / 2) == pytest.approx(0.5 * math.exp(-0.5))


def test_lower_tiers_decay_faster() -> None:
    after_30_days = [decayed(1.0, tier, 30.0) for tier in ("T1", "T2", "T3", "T4")]
    assert after_30_days == sorted(after_30_days, reverse=True)
    assert decayed(1.0, "T4", 30.0) == pytest.approx(math.exp(-1))
    assert decayed(1.0, "T1", 30.0) == pytest.approx(math.exp(-30 / 365))


def test_age_in_days_never_negative() -> None:
    now = datetime(2026, 1, 10, tzinfo=UTC)
    assert age_days(now - timedelta(days=2, hours=12), now) == pytest.approx(2.5)
    assert age_days(now + timedelta(days=3), now) == 0.0  # observed "in the future"
    assert decayed(0.9, "T2", age_days(now + timedelta(days=3), now)) == pytest.approx(0.9)
