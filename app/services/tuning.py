"""Automatic tuning of a user's feedback_weight from their feedback (a pure function).

The weight says how far feedback counters move a memory's score (see
`ranking.feedback_multiplier`). The counters are kept per memory, so feedback deserves weight
to the degree that it is a stable judgement of the memory itself. The rule measures two things:

- agreement A: whether the signals given to the same memory point the same way.
  A = Σ|useful_m - negative_m| / Σ(signals_m + 1), summed over memories m, where negative is
  irrelevant + outdated + wrong. Every memory adds one pseudo-signal of doubt, so a memory with
  one signal counts as half agreement (0.5), many agreeing signals approach 1, and a memory
  that gets as many `useful` as negative signals counts 0: its signals cancel out, they are
  noise. A is in [0, 1).
- memory judgement Q = 1 - 0.5 · (irrelevant / all signals). `useful`, `outdated` and `wrong`
  judge the memory; `irrelevant` judges a (query, memory) pair, yet it lands on the memory's
  global counter, so it counts as half evidence. Q is in [0.5, 1].

The target weight is `MIN + (MAX - MIN) · A · Q`: consistent, memory-level feedback earns up to
0.5; contradictory feedback, or feedback that is mostly "irrelevant to this query", earns less.
The weight then moves from its current value toward the target by `n / (n + 20)` of the way
(n = all signals): thin evidence moves it a little (10 signals: a third of the way), a long
history nearly all the way. Fewer than 10 signals: no tuning at all. The result stays within
0.01 to 0.5 and is rounded to 4 decimals.

Examples from the default 0.1: 10 `useful` on one memory → target 0.4555, new 0.2185;
10 `useful` on ten memories → target 0.255, new 0.1517; 6 `useful` and 6 `wrong` on one
memory → target 0.01, new 0.0663; 10 `irrelevant` on ten memories → target 0.1325, new 0.1108.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.models.feedback import FEEDBACK_WEIGHT_MAX, FEEDBACK_WEIGHT_MIN

MIN_SIGNALS = 10
EVIDENCE_HALF = 20  # signals at which the weight moves half way to the target
IRRELEVANT_DISCOUNT = 0.5
DECIMALS = 4


@dataclass(frozen=True)
class MemorySignals:
    """The feedback counts one memory received."""

    useful: int = 0
    irrelevant: int = 0
    outdated: int = 0
    wrong: int = 0

    @property
    def negative(self) -> int:
        return self.irrelevant + self.outdated + self.wrong

    @property
    def total(self) -> int:
        return self.useful + self.negative


@dataclass(frozen=True)
class Tuning:
    """The outcome of a tuning and the figures it was computed from."""

    weight: float
    target: float
    agreement: float
    memory_judgement: float
    step: float
    signals: int


def clamp_weight(value: float) -> float:
    return min(FEEDBACK_WEIGHT_MAX, max(FEEDBACK_WEIGHT_MIN, value))


def agreement(memories: Sequence[MemorySignals]) -> float:
    """Σ|useful - negative| / Σ(signals + 1) over memories with feedback; 0 without any."""
    rated = [memory for memory in memories if memory.total > 0]
    if not rated:
        return 0.0
    spread = sum(abs(memory.useful - memory.negative) for memory in rated)
    return spread / sum(memory.total + 1 for memory in rated)


def memory_judgement(memories: Sequence[MemorySignals]) -> float:
    """1 - 0.5 · share of `irrelevant` among all signals; 1 without any signal."""
    total = sum(memory.total for memory in memories)
    if total == 0:
        return 1.0
    irrelevant = sum(memory.irrelevant for memory in memories)
    return 1.0 - IRRELEVANT_DISCOUNT * irrelevant / total


def target_weight(memories: Sequence[MemorySignals]) -> float:
    """MIN + (MAX - MIN) · agreement · memory judgement."""
    span = FEEDBACK_WEIGHT_MAX - FEEDBACK_WEIGHT_MIN
    return FEEDBACK_WEIGHT_MIN + span * agreement(memories) * memory_judgement(memories)


def tune(current: float, memories: Sequence[MemorySignals]) -> Tuning | None:
    """The new weight for a user's feedback, or None with fewer than MIN_SIGNALS signals."""
    signals = sum(memory.total for memory in memories)
    if signals < MIN_SIGNALS:
        return None
    target = target_weight(memories)
    step = signals / (signals + EVIDENCE_HALF)
    start = clamp_weight(current)
    weight = round(clamp_weight(start + (target - start) * step), DECIMALS)
    return Tuning(
        weight=weight,
        target=target,
        agreement=agreement(memories),
        memory_judgement=memory_judgement(memories),
        step=step,
        signals=signals,
    )
