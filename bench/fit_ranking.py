"""Ranking settings chosen on data they are not judged on: every captured dataset replayed with
each candidate setting, and for each dataset held out in turn, the setting that does best on
the others, judged on the one left out.

It reads what `bench/quality.py --capture DIR` kept (one DIR per embedding model): LoCoMo and
BEAM (recall@10 of the evidence), the reference system's scenario sets (its macro, / 100),
graph_retrieval (fully right) and scenarios (assertions that hold). Each figure is in 0..1; a
setting's worth on a group of datasets is the mean of its figures there, every dataset and
model counting alike. The settings tried are a grid over named fields of RetrievalConfig
(`--grid fusion.vector_weight=0.4,0.5,0.6 features.in_window=1,1.2`); the walk of the graph
stage is replayed as captured, so only fusion and second-stage fields replay exactly.

    .venv/bin/python bench/fit_ranking.py var/capture-minilm var/capture-e5 \
        --grid fusion.vector_weight=0.4,0.5,0.6
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import common
import replay

from app.services.retrieval.config import DEFAULT, RetrievalConfig, overridden

Judge = Callable[[RetrievalConfig], float]


def conversational(cases: Sequence[replay.Case]) -> Judge:
    def judge(config: RetrievalConfig) -> float:
        return sum(case.recall(replay.replayed(case, config)) for case in cases) / len(cases)

    return judge


def memoria(captured: dict[str, Any]) -> Judge:
    import memoria_sets

    calls = replay.Tap(captured["calls"])
    datasets = {name: memoria_sets.load_set(name) for name in memoria_sets.SETS}

    def judge(config: RetrievalConfig) -> float:
        scores = []
        for dataset in datasets.values():
            results = []
            for scenario in dataset["scenarios"]:
                run = captured["executions"][scenario["scenario_id"]]
                if run["error"]:
                    results.append(memoria_sets.score_scenario(scenario, run["steps_ok"], None))
                    continue
                returned = []
                for assertion in scenario["assertions"]:
                    call = calls.last(run["user_id"], assertion["query"])
                    returned.append(call.contents_in(replay.replayed(call, config)))
                results.append(memoria_sets.score_scenario(scenario, run["steps_ok"], returned))
            scores.append(memoria_sets.score_set(dataset, results)["overall_score"])
        return sum(scores) / len(scores) / 100

    return judge


def graph(captured: dict[str, Any]) -> Judge:
    tap = replay.Tap(captured["calls"])
    outcomes = captured["outcomes"]

    def judge(config: RetrievalConfig) -> float:
        right = 0
        for outcome in outcomes:
            call = tap.last(outcome.user_id, outcome.question.text)
            got = [
                outcome.labels.get(c, "?") for c in call.contents_in(replay.replayed(call, config))
            ]
            right += dataclasses.replace(outcome, got=got).fully_right
        return right / len(outcomes)

    return judge


def scenarios(captured: dict[str, Any]) -> Judge:
    tap = replay.Tap(captured["calls"])
    assertions = captured["assertions"]

    def judge(config: RetrievalConfig) -> float:
        held = 0
        orders: dict[tuple[str, str, str | None], list[str]] = {}
        for assertion in assertions:
            if assertion.error is not None:
                continue
            key = (assertion.user_id, assertion.query, assertion.session_id)
            if key not in orders:
                call = tap.last(assertion.user_id, assertion.query, True, assertion.session_id)
                orders[key] = call.contents_in(replay.replayed(call, config))
            found = any(assertion.substring in content for content in orders[key])
            held += found == (assertion.kind == "include")
        return held / len(assertions)

    return judge


def judges(directory: Path) -> dict[str, Judge]:
    """Every dataset captured in `directory`, by name."""
    found: dict[str, Judge] = {}
    for name in ("locomo", "beam"):
        if (directory / f"{name}.pkl").exists():
            found[name] = conversational(replay.load(directory / f"{name}.pkl"))
    for name, make in (("memoria", memoria), ("graph", graph), ("scenarios", scenarios)):
        if (directory / f"{name}.pkl").exists():
            found[name] = make(replay.load_any(directory / f"{name}.pkl"))
    return found


def _axes(specs: Sequence[str]) -> list[list[tuple[str, str, Any]]]:
    axes: list[list[tuple[str, str, Any]]] = []
    for spec in specs:
        name, _, values = spec.partition("=")
        section, _, field = name.partition(".")
        axes.append([(section, field, _value(v)) for v in values.split(",")])
    return axes


def alone(specs: Sequence[str]) -> list[dict[str, dict[str, Any]]]:
    """The default, then each value given per field on its own (an ablation: a factor's
    neutral value, a stage switched off)."""
    return [{}] + [
        {section: {field: value}} for axis in _axes(specs) for section, field, value in axis
    ]


def grid(specs: Sequence[str]) -> list[dict[str, dict[str, Any]]]:
    """Every combination of the values given per field ("section.field=v1,v2")."""
    axes = _axes(specs)
    points = []
    for combination in itertools.product(*axes):
        overrides: dict[str, dict[str, Any]] = defaultdict(dict)
        for section, field, value in combination:
            overrides[section][field] = value
        points.append(dict(overrides))
    return points


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def label(point: dict[str, dict[str, Any]]) -> str:
    return " ".join(f"{s}.{f}={v}" for s, fields in point.items() for f, v in fields.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("captures", nargs="+", help="directories bench/quality.py --capture made")
    parser.add_argument("--grid", nargs="*", default=[], help="section.field=v1,v2 ...")
    parser.add_argument(
        "--one-at-a-time",
        action="store_true",
        help="the default, then each grid value alone (an ablation) rather than every combination",
    )
    args = parser.parse_args()
    scored: dict[str, dict[str, float]] = {}  # point label -> "dataset/model" -> figure
    points = (alone(args.grid) if args.one_at_a_time else grid(args.grid)) or [{}]
    for directory in map(Path, args.captures):
        model = directory.name
        for dataset, judge in judges(directory).items():
            common.log(f"{model} {dataset}: {len(points)} settings")
            for point in points:
                config = overridden(DEFAULT, point)
                scored.setdefault(label(point), {})[f"{dataset}/{model}"] = judge(config)
    columns = sorted({column for row in scored.values() for column in row})
    rows = [[name or "(default)", *(row.get(c) for c in columns)] for name, row in scored.items()]
    print(common.table("Every setting on every dataset", ["setting", *columns], rows))
    datasets = sorted({column.split("/")[0] for column in columns})
    held_rows = []
    for held in datasets:
        others = [c for c in columns if not c.startswith(f"{held}/")]
        mine = [c for c in columns if c.startswith(f"{held}/")]
        best = max(scored, key=lambda name: sum(scored[name][c] for c in others) / len(others))
        figures = ", ".join(f"{c.split('/')[1]} {scored[best][c]:.3f}" for c in mine)
        held_rows.append([held, best or "(default)", figures])
    print(
        common.table(
            "Held out: each dataset judged at the setting best on the others",
            ["held out", "setting chosen on the others", "figures (per model)"],
            held_rows,
        )
    )


if __name__ == "__main__":
    main()
