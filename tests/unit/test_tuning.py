"""The automatic tuning rule for feedback_weight (app.services.tuning), and which scheduled run
a firing stands for."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cron import cron_trigger
from app.models.feedback import FEEDBACK_WEIGHT_MAX, FEEDBACK_WEIGHT_MIN
from app.scheduler import due_run
from app.services.tuning import (
    MIN_SIGNALS,
    MemorySignals,
    agreement,
    memory_judgement,
    target_weight,
    tune,
)

USEFUL = MemorySignals(useful=1)
IRRELEVANT = MemorySignals(irrelevant=1)


def test_fewer_than_ten_signals_do_not_tune() -> None:
    assert tune(0.1, [USEFUL] * (MIN_SIGNALS - 1)) is None
    assert tune(0.1, [MemorySignals(useful=5, wrong=4)]) is None
    assert tune(0.1, []) is None
    assert tune(0.1, [USEFUL] * MIN_SIGNALS) is not None


def test_documented_examples() -> None:
    many_on_one = tune(0.1, [MemorySignals(useful=10)])
    assert many_on_one is not None
    assert many_on_one.target == pytest.approx(0.01 + 0.49 * 10 / 11)
    assert many_on_one.weight == 0.2185

    spread = tune(0.1, [USEFUL] * 10)
    assert spread is not None
    assert (spread.agreement, spread.weight) == (0.5, 0.1517)
    assert spread.target == pytest.approx(0.255)

    contradictory = tune(0.1, [MemorySignals(useful=6, wrong=6)])
    assert contradictory is not None
    assert contradictory.agreement == 0.0
    assert contradictory.target == pytest.approx(0.01)
    assert contradictory.weight == 0.0663

    irrelevant = tune(0.1, [IRRELEVANT] * 10)
    assert irrelevant is not None
    assert irrelevant.memory_judgement == 0.5
    assert irrelevant.weight == 0.1108


def test_agreement_within_each_memory() -> None:
    # One signal: half agreement; agreeing signals approach 1; opposed ones cancel out.
    assert agreement([USEFUL]) == 0.5
    assert agreement([MemorySignals(wrong=3)]) == 0.75
    assert agreement([MemorySignals(useful=2, outdated=2)]) == 0.0
    # Agreement is measured per memory: useful on one memory and wrong on another agree.
    assert agreement([MemorySignals(useful=3), MemorySignals(wrong=3)]) == 0.75
    assert agreement([MemorySignals(useful=3, wrong=3)]) == 0.0
    assert agreement([]) == 0.0


def test_irrelevant_counts_as_half_evidence() -> None:
    assert memory_judgement([USEFUL]) == 1.0
    assert memory_judgement([IRRELEVANT]) == 0.5
    assert memory_judgement([MemorySignals(useful=1, irrelevant=1)]) == 0.75
    assert memory_judgement([MemorySignals(wrong=2, outdated=2)]) == 1.0
    assert memory_judgement([]) == 1.0


def test_consistent_feedback_raises_the_weight_and_noise_lowers_it() -> None:
    consistent = tune(0.1, [MemorySignals(useful=4), MemorySignals(wrong=4), USEFUL, USEFUL])
    noisy = tune(0.1, [MemorySignals(useful=5, irrelevant=5)])
    assert consistent is not None and noisy is not None
    assert consistent.weight > 0.1 > noisy.weight


def test_more_evidence_moves_further_toward_the_target() -> None:
    few = tune(0.1, [MemorySignals(wrong=10)])
    many = tune(0.1, [MemorySignals(wrong=100)])
    assert few is not None and many is not None
    assert many.step > few.step
    assert many.weight - 0.1 > few.weight - 0.1 > 0
    assert few.step == pytest.approx(1 / 3)
    assert many.step == pytest.approx(100 / 120)


def test_tuning_twice_on_the_same_feedback_converges_to_the_target() -> None:
    memories = [MemorySignals(useful=8, wrong=1), MemorySignals(irrelevant=3)]
    weight = 0.1
    for _ in range(40):
        outcome = tune(weight, memories)
        assert outcome is not None
        weight = outcome.weight
    assert weight == pytest.approx(target_weight(memories), abs=1e-3)


def test_a_weight_outside_the_range_is_brought_back_into_it() -> None:
    outcome = tune(7.0, [MemorySignals(useful=1, wrong=1)] * 5)
    assert outcome is not None
    assert FEEDBACK_WEIGHT_MIN <= outcome.weight <= FEEDBACK_WEIGHT_MAX


counts = st.builds(
    MemorySignals,
    useful=st.integers(0, 50),
    irrelevant=st.integers(0, 50),
    outdated=st.integers(0, 50),
    wrong=st.integers(0, 50),
)


@given(st.floats(FEEDBACK_WEIGHT_MIN, FEEDBACK_WEIGHT_MAX), st.lists(counts, max_size=30))
def test_the_weight_stays_in_range_and_moves_toward_the_target(
    current: float, memories: list[MemorySignals]
) -> None:
    outcome = tune(current, memories)
    if sum(memory.total for memory in memories) < MIN_SIGNALS:
        assert outcome is None
        return
    assert outcome is not None
    assert FEEDBACK_WEIGHT_MIN <= outcome.weight <= FEEDBACK_WEIGHT_MAX
    assert FEEDBACK_WEIGHT_MIN <= outcome.target <= FEEDBACK_WEIGHT_MAX
    assert 0 <= outcome.agreement < 1
    assert 0.5 <= outcome.memory_judgement <= 1
    low, high = sorted((current, outcome.target))
    assert low - 1e-4 <= outcome.weight <= high + 1e-4


def test_due_run_is_the_latest_fire_time_not_after_now() -> None:
    trigger = cron_trigger("*/2 * * * * *")
    at = datetime(2026, 1, 1, 12, 0, 10, tzinfo=UTC)
    assert due_run(trigger, at) == at
    assert due_run(trigger, at.replace(microsecond=700_000)) == at
    assert due_run(trigger, at.replace(second=11, microsecond=999_999)) == at
    daily = cron_trigger("0 3 * * *")
    three = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    assert due_run(daily, three.replace(second=5)) == three
    assert due_run(daily, three.replace(minute=30), horizon_s=120) is None
