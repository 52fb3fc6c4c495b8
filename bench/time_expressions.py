"""Time windows of questions: how often `window` finds one on LoCoMo and BEAM, whether the
evidence lies inside it, and what it costs on questions that name no time.

No database and no model: the questions of the LoCoMo and BEAM development sets
(`../shared/datasets/`, see their READMEs) are read with
`app.services.retrieval.time_window.window`, each as asked at a reference time:

- LoCoMo: its questions carry no time of their own; each is asked at the time of its
  conversation's last session (`session_N_date_time`, read as UTC as bench/locomo.py reads it),
  when the whole conversation has been said. A turn's event time is its session's time, as
  bench/locomo.py stores it (`observed_at`). Categories 1-4, as bench/locomo.py asks them.
- BEAM: each question is asked at the `observed_at` of its conversation's last message; a
  message's event time is its own `observed_at`.

Printed per dataset (and per LoCoMo category or BEAM question type, and for absolute windows,
the same whatever the reference, such as "in May 2023", apart from relative ones such as "last
week"): how many questions get a window; of those, the share of their evidence turns or
messages inside it (averaged per question), how many have all and how many have none of their
evidence inside, the share inside or told up to a week after the window's end ("in +7d":
events are told after they happen, and a turn's time is when it was said), and the share of
the conversation's turns or messages inside ("convo in": how much the window singles out;
evidence inside at a higher share than the conversation is what ranking can use, evidence
outside is where raising the window pushes the answer down). Then every window found,
evidence inside or not, to read for false positives. Last, the cost of `window` per question
(median and p95 of microseconds, the median of 50 calls each) on the questions that name no
time and on those that do, and the first call of the process (dateparser's data loaded).

    .venv/bin/python bench/time_expressions.py            # ~1 min on an idle machine
    .venv/bin/python bench/time_expressions.py --brief    # without the list of windows
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import common
import locomo

from app.services.retrieval.time_window import OPEN_START, TimeWindow, window

BEAM_PATH = Path(
    os.environ.get(
        "BEAM_PATH", common.ROOT.parent / "shared" / "datasets" / "beam" / "beam-500k-dev.json"
    )
)
TIMING_CALLS = 50
# Events are told after they happen: how far past its end a window would also have to reach
# to hold the turn or message telling them.
TOLD_LATER = timedelta(days=7)
# A window that moves with the reference is relative ("last week"); one that stays, absolute.
REFERENCE_SHIFT = timedelta(days=400)


@dataclass(frozen=True)
class Asked:
    """One question as `window` sees it, with the event times it is measured against."""

    dataset: str
    group: str  # LoCoMo category or BEAM question type
    text: str
    reference: datetime
    evidence_times: list[datetime]
    all_times: list[datetime]  # every turn or message of the conversation


def locomo_questions() -> list[Asked]:
    asked = []
    for conversation in locomo.load(locomo.DATA):
        times = {
            turn.dia_id: datetime.fromisoformat(turn.observed_at) for turn in conversation.turns
        }
        reference = max(times.values())
        for question in conversation.questions:
            asked.append(
                Asked(
                    "LoCoMo",
                    locomo.CATEGORIES[question.category],
                    question.text,
                    reference,
                    [times[dia_id] for dia_id in sorted(question.evidence)],
                    list(times.values()),
                )
            )
    return asked


def beam_questions() -> list[Asked]:
    asked = []
    for conversation in json.loads(BEAM_PATH.read_text())["conversations"]:
        times = {
            message["id"]: datetime.fromisoformat(message["observed_at"])
            for message in conversation["messages"]
        }
        reference = max(times.values())
        for question in conversation["questions"]:
            evidence = [times[i] for i in question["evidence"] if i in times]
            if evidence:
                asked.append(
                    Asked(
                        "BEAM",
                        question["type"],
                        question["question"],
                        reference,
                        evidence,
                        list(times.values()),
                    )
                )
    return asked


@dataclass(frozen=True)
class Found:
    asked: Asked
    window: TimeWindow

    @property
    def evidence_inside(self) -> float:
        inside = sum(self.window.holds(t) for t in self.asked.evidence_times)
        return inside / len(self.asked.evidence_times)

    @property
    def evidence_told_later(self) -> float:
        """The share of the evidence inside the window or told up to TOLD_LATER after it."""
        inside = sum(
            self.window.start <= t < self.window.end + TOLD_LATER for t in self.asked.evidence_times
        )
        return inside / len(self.asked.evidence_times)

    @property
    def coverage(self) -> float:
        inside = sum(self.window.holds(t) for t in self.asked.all_times)
        return inside / len(self.asked.all_times)

    @property
    def relative(self) -> bool:
        shifted = window(self.asked.text, self.asked.reference + REFERENCE_SHIFT)
        return shifted is None or (shifted.start, shifted.end) != (
            self.window.start,
            self.window.end,
        )


def summary_row(label: str, asked: int, found: Sequence[Found]) -> list[object]:
    if not found:
        return [label, asked, 0, "-", "-", "-", "-", "-"]

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    return [
        label,
        asked,
        len(found),
        mean([f.evidence_inside for f in found]),
        sum(f.evidence_inside == 1 for f in found),
        sum(f.evidence_inside == 0 for f in found),
        mean([f.evidence_told_later for f in found]),
        mean([f.coverage for f in found]),
    ]


def day(moment: datetime) -> str:
    return "open" if moment == OPEN_START else moment.strftime("%Y-%m-%d %H:%M")


def report_dataset(name: str, asked: list[Asked], found: list[Found], brief: bool) -> None:
    groups: dict[str, list[Asked]] = defaultdict(list)
    for question in asked:
        groups[question.group].append(question)
    relative = [f for f in found if f.relative]
    rows = [summary_row(name, len(asked), found)]
    rows += [
        summary_row(f"  {group}", len(members), [f for f in found if f.asked.group == group])
        for group, members in sorted(groups.items())
    ]
    rows += [
        summary_row("  absolute (May 2023)", len(asked), [f for f in found if not f.relative]),
        summary_row("  relative (last week)", len(asked), relative),
    ]
    headers = ["", "questions", "windows", "evidence in", "all in", "none in", "in +7d"]
    print(common.table(f"{name}: windows found", [*headers, "convo in"], rows))
    if brief:
        return
    print(f"\n{name}: every window (evidence inside / evidence; reference; window; expression)")
    for f in sorted(found, key=lambda f: f.evidence_inside):
        inside = sum(f.window.holds(t) for t in f.asked.evidence_times)
        print(
            f"  {inside}/{len(f.asked.evidence_times)}  asked {f.asked.reference:%Y-%m-%d}  "
            f"[{day(f.window.start)} .. {day(f.window.end)})  {f.window.expression!r}\n"
            f"        {f.asked.group}: {f.asked.text}"
        )


def per_call_microseconds(text: str, reference: datetime) -> float:
    """The median of TIMING_CALLS calls of `window`, in microseconds."""
    durations = []
    for _ in range(TIMING_CALLS):
        began = time.perf_counter_ns()
        window(text, reference)
        durations.append((time.perf_counter_ns() - began) / 1000)
    return common.median(durations)


def report_cost(asked: list[Asked], first_call_us: float) -> None:
    common.wait_for_quiet()
    without, with_window = [], []
    for question in asked:
        cost = per_call_microseconds(question.text, question.reference)
        found = window(question.text, question.reference) is not None
        (with_window if found else without).append(cost)
    rows = [
        ["no window", len(without), common.median(without), common.percentile(without, 95)],
        [
            "a window",
            len(with_window),
            common.median(with_window),
            common.percentile(with_window, 95),
        ],
    ]
    print(
        common.table(
            "cost of window() per question, microseconds", ["", "questions", "median", "p95"], rows
        )
    )
    print(f"first call of the process (dateparser's data loaded): {first_call_us / 1000:.0f} ms")
    print(common.load_line("after timing"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brief", action="store_true", help="leave out the list of windows")
    args = parser.parse_args()
    print(common.code_state())
    asked_locomo, asked_beam = locomo_questions(), beam_questions()
    probe = asked_locomo[0]
    began = time.perf_counter_ns()
    window("what did we do last week", probe.reference)
    first_call_us = (time.perf_counter_ns() - began) / 1000
    for name, asked in (("LoCoMo", asked_locomo), ("BEAM", asked_beam)):
        found = [
            Found(question, found_window)
            for question in asked
            if (found_window := window(question.text, question.reference)) is not None
        ]
        report_dataset(name, asked, found, args.brief)
    report_cost(asked_locomo + asked_beam, first_call_us)


if __name__ == "__main__":
    main()
