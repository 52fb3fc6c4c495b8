"""Memoria's seven scenario sets, run and scored as Memoria's own benchmark runner does.

Memoria (matrixorigin/Memoria, Apache-2.0) ships seven scenario sets with its `memoria benchmark`
command, copied unchanged into bench/data/memoria/ (its README says from which commit and what
each set tests): core-v1, core-v2, forget-v1, graph-entity-v1, graph-entity-v2, large-graph-v1,
large-graph-v2, 57 scenarios in English, Chinese and both. This script sends what that runner
(memoria/crates/memoria-cli/src/benchmark_executor.rs) sends, to the real service (create_app
with the real embedder, in-process, no LLM), each scenario as a fresh user (the master key with
X-User-Id), and scores the answers as its benchmark_scoring.rs does.

Per scenario, as Memoria's executor does, with one session id for all its calls:

1. each seed: POST /v1/memories {content, memory_type, session_id, observed_at (now minus
   age_days), initial_confidence, trust_tier}; a seed marked is_outdated is then purged with
   POST /v1/memories/purge {memory_ids, reason}. Only an answer that is not JSON fails the
   scenario (it then scores 0); a rejected seed is just not there (Memoria reads the missing
   memory_id as "" and goes on).
2. each `maturation` op: POST /admin/governance/{user_id}/trigger?op=<op>, answer ignored
   (extract_entities answers 503 here without an LLM; this service extracts entities at store).
3. each step: `store` (as a seed), `retrieve` {query, top_k (5), session_id}, `search` (POST
   /v1/memories/search {query, top_k (10)}), `correct` (POST /v1/memories/correct {query,
   new_content, reason}), `purge` ({reason, topic}); a step fails when its answer is not 2xx
   (a store only when it is not JSON; a retrieve never); another action succeeds unasked.
4. each assertion: POST /v1/memories/retrieve {query, top_k (5), session_id}: the contents that
   come back, in order (an error reads as nothing).

The user is named as the runner names it, in X-Impersonate-User with the master key, and a
store carries `"source": "benchmark"` as the runner's does.

Scoring (benchmark_scoring.rs, benchmark_taxonomy.rs). Substrings match case-insensitively. Per
assertion: recall, the share of expected_contents found in some returned memory; precision, the
share of returned memories holding an expected substring (0 when nothing came back); noise
rejection, the share of excluded_contents found in none (100 without any); passed when recall
and noise rejection are both >= 80. Per scenario: MQS, the mean of precision, recall and noise
rejection (each averaged over its assertions); AUS, the mean of step success (100 without
steps) and assertions passed, in %; score 0.65 MQS + 0.35 AUS, rounded to 2 decimals; grade S
>= 90, A >= 80, B >= 70, C >= 60, else D. Per set: the mean of its scenarios' scores, also by
difficulty, tag and domain (Memoria's source-family, LongMemEval and BEAM breakdowns are empty
for these sets). Memoria scores one set a run; the macro here is the mean of the sets' scores.

Precision counts every memory returned, so with top_k filled an assertion whose expected
substrings sit in one memory gets at most 100 / top_k of it. The `ceiling` column scores the
best order of the user's active memories (listed after the assertions; top_k filled, the
expected substrings covered first, memories holding an excluded one last) with the same steps:
what better ranking alone could reach.

The figures depend on what else the database holds (the full-text index scores by every user's
word statistics): a set run alone, or on a database with other data, can score several points
apart from the same set in a full run on a fresh database, the default and the reference.

Target (the open issue): macro >= 80 and every set >= 70. Figures are reported, not asserted.
Failed assertions (set, scenario, query, expected and excluded substrings, what came back in
order, which active memories hold the missing ones, the scenario's failed steps) go to stderr,
or as JSON lines to `--failures PATH`.

`run(client, sets)` is the importable entry: an already-built app's test client in, the summary
dict (per set reports, macro, failures) out.

    .venv/bin/python bench/memoria_sets.py                      # own throwaway Neo4j, ~4 min
    .venv/bin/python bench/memoria_sets.py --sets core-v1,forget-v1 --json /tmp/m.json
    .venv/bin/python bench/memoria_sets.py --failures /tmp/memoria-failures.jsonl
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/memoria_sets.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import common

DATA_DIR = Path(__file__).resolve().parent / "data" / "memoria"
SETS = (
    "core-v1",
    "core-v2",
    "forget-v1",
    "graph-entity-v1",
    "graph-entity-v2",
    "large-graph-v1",
    "large-graph-v2",
)
TARGET_MACRO = 80.0
TARGET_SET = 70.0
PASS_THRESHOLD = 80.0  # recall and noise rejection of a passed assertion
MQS_WEIGHT, AUS_WEIGHT = 0.65, 0.35
GRADES = ((90.0, "S"), (80.0, "A"), (70.0, "B"), (60.0, "C"))
CJK = re.compile(r"[\u3400-\u9fff]")
ASCII_LETTER = re.compile(r"[A-Za-z]")
SHOWN_CHARS = 90


# ---------------------------------------------------------------------------------------------
# Scoring (pure): benchmark_scoring.rs and benchmark_taxonomy.rs


def round2(value: float) -> float:
    """Rust's `(x * 100.0).round() / 100.0`: halves away from zero (Python's round() does not)."""
    return math.copysign(math.floor(abs(value) * 100 + 0.5), value) / 100


def grade(score: float) -> str:
    return next((letter for floor, letter in GRADES if score >= floor), "D")


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def holds(content: str, substring: str) -> bool:
    return substring.lower() in content.lower()


def score_contents(
    assertion: dict[str, Any], returned: Sequence[str]
) -> tuple[float, float, float, bool]:
    """(precision, recall, noise rejection, passed) of one assertion, in %."""
    expected = assertion["expected_contents"]
    excluded = assertion.get("excluded_contents", [])
    hits = sum(any(holds(c, e) for c in returned) for e in expected)
    recall = 100.0 * hits / len(expected) if expected else 100.0
    relevant = sum(any(holds(c, e) for e in expected) for c in returned)
    precision = 100.0 * relevant / len(returned) if returned else 0.0
    noise_hits = sum(any(holds(c, x) for c in returned) for x in excluded)
    noise = 100.0 * (len(excluded) - noise_hits) / len(excluded) if excluded else 100.0
    passed = recall >= PASS_THRESHOLD and noise >= PASS_THRESHOLD
    return precision, recall, noise, passed


def score_scenario(
    scenario: dict[str, Any], steps_ok: Sequence[bool], returned: Sequence[Sequence[str]] | None
) -> dict[str, Any]:
    """Memoria's ScenarioResult; `returned` None when seeding failed (the scenario scores 0)."""
    result = {
        key: scenario.get(key, "")
        for key in ("scenario_id", "title", "domain", "difficulty", "horizon")
    } | {"tags": list(scenario.get("tags", []))}
    if returned is None:
        return result | {
            "total_score": 0.0,
            "grade": "D",
            "mqs_precision": 0.0,
            "mqs_recall": 0.0,
            "mqs_noise_rejection": 100.0,
            "aus_step_success": 0.0,
            "aus_assertion_pass": 0.0,
        }
    assertions = scenario["assertions"]
    scores = [
        score_contents(assertion, returned[i] if i < len(returned) else [])
        for i, assertion in enumerate(assertions)
    ]
    precision, recall, noise = (mean([s[k] for s in scores]) for k in range(3))
    assertion_pass = 100.0 * sum(s[3] for s in scores) / len(assertions) if assertions else 0.0
    step_success = 100.0 * sum(steps_ok) / len(steps_ok) if steps_ok else 100.0
    mqs = (precision + recall + noise) / 3
    aus = (step_success + assertion_pass) / 2
    total = MQS_WEIGHT * mqs + AUS_WEIGHT * aus
    return result | {
        "total_score": round2(total),
        "grade": grade(total),
        "mqs_precision": round2(precision),
        "mqs_recall": round2(recall),
        "mqs_noise_rejection": round2(noise),
        "aus_step_success": round2(step_success),
        "aus_assertion_pass": round2(assertion_pass),
    }


def grouped_means(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for key, value in pairs:
        groups[key].append(value)
    return {key: round2(mean(values)) for key, values in sorted(groups.items())}


def score_set(dataset: dict[str, Any], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Memoria's BenchmarkReport of one set (the breakdowns these sets have)."""
    overall = mean([r["total_score"] for r in results])
    return {
        "dataset_id": dataset["dataset_id"],
        "version": dataset["version"],
        "scenario_count": len(results),
        "overall_score": round2(overall),
        "overall_grade": grade(overall),
        "by_difficulty": grouped_means((r["difficulty"], r["total_score"]) for r in results),
        "by_tag": grouped_means((tag, r["total_score"]) for r in results for tag in r["tags"]),
        "by_domain": grouped_means((r["domain"], r["total_score"]) for r in results if r["domain"]),
        "results": list(results),
    }


def best_order(assertion: dict[str, Any], active: Sequence[str]) -> list[str]:
    """The top_k of `active` a perfect ranking would give, greedily: memories covering the most
    expected substrings not yet covered, then others holding one, then the rest, and memories
    holding an excluded substring last."""
    expected = assertion["expected_contents"]
    excluded = assertion.get("excluded_contents", [])
    clean = [c for c in active if not any(holds(c, x) for x in excluded)]
    tainted = [c for c in active if any(holds(c, x) for x in excluded)]
    chosen: list[str] = []
    uncovered = list(expected)
    while uncovered and clean:
        best = max(clean, key=lambda c: sum(holds(c, e) for e in uncovered))
        if not any(holds(best, e) for e in uncovered):
            break
        chosen.append(best)
        clean.remove(best)
        uncovered = [e for e in uncovered if not holds(best, e)]
    relevant = [c for c in clean if any(holds(c, e) for e in expected)]
    rest = [c for c in clean if c not in relevant]
    return (chosen + relevant + rest + tainted)[: assertion.get("top_k", 5)]


# ---------------------------------------------------------------------------------------------
# The run: benchmark_executor.rs against this service


@dataclass
class Execution:
    """What Memoria's executor records of a scenario, and what explains it."""

    step_errors: list[str | None] = field(default_factory=list)  # None: the step succeeded
    returned: list[list[str]] = field(default_factory=list)  # per assertion, best first
    error: str | None = None  # seeding failed: the scenario scores 0
    refused: list[str] = field(default_factory=list)  # non-2xx answers the runner passes over
    notes: list[str] = field(default_factory=list)  # what correct and purge steps did
    maturation: list[str] = field(default_factory=list)  # "<op> <status>"
    active: list[str] = field(default_factory=list)  # active memories after the assertions


class NotJson(Exception):
    """A store answered something that is not JSON (Memoria's runner fails the call)."""


class StepFailed(Exception):
    """A checked step answered something other than 2xx (reqwest's error_for_status)."""


@dataclass
class Context:
    client: Any
    user_id: str
    execution: Execution
    contents: dict[str, str] = field(default_factory=dict)  # memory_id -> content

    @property
    def session_id(self) -> str:
        return self.user_id  # Memoria's runner names both alike: bench-<run>-<scenario>


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def detail(data: Any) -> str:
    return shorten(data.get("detail", data) if isinstance(data, dict) else data, 160)


def impersonating(user_id: str) -> dict[str, str]:
    """The runner's headers: the master key acting for the scenario's user."""
    return {"Authorization": f"Bearer {common.MASTER_KEY}", "X-Impersonate-User": user_id}


async def post(
    context: Context, path: str, body: Any, query: dict[str, str] | None = None
) -> tuple[int, Any]:
    """Status and JSON answer (None when the answer is not JSON) of one POST."""
    # No body at all when there is none (the test client would send JSON null).
    payload = {} if body is None else {"json": body}
    response = await context.client.post(
        path, query_string=query, headers=impersonating(context.user_id), **payload
    )
    text = await response.get_data(as_text=True)
    try:
        return response.status_code, json.loads(text)
    except ValueError:
        return response.status_code, None


async def checked(context: Context, path: str, body: dict[str, Any]) -> Any:
    status, data = await post(context, path, body)
    if not 200 <= status < 300:
        raise StepFailed(f"POST {path} -> {status} {detail(data)}")
    return data


def observed_at(age_days: float) -> str:
    """Now minus the age, to the second, as Memoria's chrono_like_iso writes it."""
    return (datetime.now(UTC) - timedelta(days=age_days)).strftime("%Y-%m-%dT%H:%M:%SZ")


async def store(context: Context, item: dict[str, Any]) -> str:
    """POST /v1/memories of a seed or store step; the memory id, "" when none came back."""
    content = item.get("content") or ""
    body: dict[str, Any] = {
        "content": content,
        "memory_type": item.get("memory_type") or "semantic",
        "session_id": context.session_id,
        "source": "benchmark",
    }
    if item.get("age_days") is not None:
        body["observed_at"] = observed_at(float(item["age_days"]))
    for key in ("initial_confidence", "trust_tier"):
        if item.get(key) is not None:
            body[key] = item[key]
    status, data = await post(context, "/v1/memories", body)
    if data is None:
        raise NotJson(f"POST /v1/memories -> {status}, not JSON")
    if not 200 <= status < 300:
        context.execution.refused.append(
            f"store {shorten(content, 60)!r} -> {status} {detail(data)}"
        )
    memory_id = data.get("memory_id") if isinstance(data, dict) else None
    if not isinstance(memory_id, str):
        return ""
    context.contents[memory_id] = content
    return memory_id


async def retrieve(context: Context, query: str, top_k: int) -> list[str]:
    """POST /v1/memories/retrieve as Memoria's runner reads it: contents in order, or []."""
    body = {"query": query, "top_k": top_k, "session_id": context.session_id}
    status, data = await post(context, "/v1/memories/retrieve", body)
    if not 200 <= status < 300:
        context.execution.refused.append(f"retrieve {query!r} -> {status} {detail(data)}")
    items = data.get("results") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return []
    return [
        item["content"]
        for item in items
        if isinstance(item, dict) and isinstance(item.get("content"), str)
    ]


def reason(step: dict[str, Any]) -> str:
    given = step.get("reason")
    return "benchmark" if given is None else str(given)


async def run_step(context: Context, step: dict[str, Any]) -> str | None:
    """One step as Memoria's run_step: None when it succeeded, else why not."""
    action = step.get("action")
    try:
        if action == "store":
            await store(context, step)
        elif action == "retrieve":
            top_k = step.get("top_k")
            await retrieve(context, step.get("query") or "", 5 if top_k is None else top_k)
        elif action == "search":
            top_k = step.get("top_k")
            body = {"query": step.get("query"), "top_k": 10 if top_k is None else top_k}
            await checked(context, "/v1/memories/search", body)
        elif action == "correct":
            body = {
                "query": step.get("query"),
                "new_content": step.get("content"),
                "reason": reason(step),
            }
            data = await checked(context, "/v1/memories/correct", body)
            matched = context.contents.get(str(data.get("matched_memory_id")), "?")
            context.contents[str(data.get("memory_id"))] = str(step.get("content"))
            context.execution.notes.append(
                f"correct {step.get('query')!r} matched {shorten(matched, 70)!r}"
            )
        elif action == "purge":
            body = {"reason": reason(step)}
            if step.get("topic") is not None:
                body["topic"] = step["topic"]
            data = await checked(context, "/v1/memories/purge", body)
            context.execution.notes.append(
                f"purge topic {step.get('topic')!r}: {data.get('purged')} purged"
            )
    except (NotJson, StepFailed) as error:
        return f"{action}: {error}"
    return None


async def active_contents(context: Context) -> list[str]:
    """The user's active memories (GET /v1/memories, every page)."""
    contents: list[str] = []
    cursor = None
    while True:
        query = {"limit": "500"} | ({"cursor": cursor} if cursor else {})
        response = await context.client.get(
            "/v1/memories", query_string=query, headers=impersonating(context.user_id)
        )
        data = await response.get_json()
        contents += [item["content"] for item in data["items"]]
        cursor = data.get("next_cursor")
        if not cursor:
            return contents


async def execute(client: Any, scenario: dict[str, Any], user_id: str) -> Execution:
    execution = Execution()
    context = Context(client, user_id, execution)
    for seed in scenario["seed_memories"]:
        try:
            memory_id = await store(context, seed)
        except NotJson as error:
            execution.error = f"seed failed: {error}"
            return execution
        if seed.get("is_outdated") and memory_id:
            body = {"memory_ids": [memory_id], "reason": "seed is_outdated"}
            status, data = await post(context, "/v1/memories/purge", body)
            if not 200 <= status < 300:
                execution.refused.append(f"purge of an outdated seed -> {status} {detail(data)}")
    for op in scenario.get("maturation", []):
        status, _ = await post(
            context, f"/admin/governance/{user_id}/trigger", None, query={"op": op}
        )
        execution.maturation.append(f"{op} {status}")
    for step in scenario.get("steps", []):
        execution.step_errors.append(await run_step(context, step))
    for assertion in scenario["assertions"]:
        execution.returned.append(
            await retrieve(context, assertion["query"], assertion.get("top_k", 5))
        )
    execution.active = await active_contents(context)
    return execution


# ---------------------------------------------------------------------------------------------
# Failures


def language(text: str) -> str:
    has_cjk, has_ascii = bool(CJK.search(text)), bool(ASCII_LETTER.search(text))
    return "mixed" if has_cjk and has_ascii else "zh" if has_cjk else "en"


def failure(
    set_name: str, scenario: dict[str, Any], execution: Execution, index: int
) -> dict[str, Any] | None:
    """The record of an assertion that did not pass (None when it passed)."""
    assertion = scenario["assertions"][index]
    returned = execution.returned[index] if execution.error is None else []
    precision, recall, noise, passed = score_contents(assertion, returned)
    if passed:
        return None
    expected = assertion["expected_contents"]
    excluded = assertion.get("excluded_contents", [])
    missing = [e for e in expected if not any(holds(c, e) for c in returned)]
    present = [x for x in excluded if any(holds(c, x) for c in returned)]
    holders = {e: [c for c in execution.active if holds(c, e)] for e in missing}
    causes = []
    if execution.error:
        causes.append("seeding failed")
    if any(not found for found in holders.values()):
        causes.append("expected text in no active memory")
    if any(holders.values()):
        causes.append("expected memory not in top_k")
    if present:
        causes.append(excluded_cause(returned, expected, excluded))
    if any(
        found and all(any(holds(c, x) for x in excluded) for c in found)
        for found in [[c for c in execution.active if holds(c, e)] for e in expected]
    ):
        causes.append("an expected text only in memories holding an excluded one")
    step_errors = [f"step {n}: {e}" for n, e in enumerate(execution.step_errors, 1) if e]
    if step_errors:
        causes.append("a step failed")
    return {
        "set": set_name,
        "scenario_id": scenario["scenario_id"],
        "title": scenario.get("title", ""),
        "difficulty": scenario.get("difficulty", ""),
        "tags": scenario.get("tags", []),
        "query": assertion["query"],
        "language": language(assertion["query"]),
        "top_k": assertion.get("top_k", 5),
        "expected": expected,
        "excluded": excluded,
        "returned": returned,
        "missing": missing,
        "excluded_present": present,
        "holders": holders,
        "precision": round2(precision),
        "recall": round2(recall),
        "noise_rejection": round2(noise),
        "causes": causes,
        "step_errors": step_errors,
        "notes": execution.refused + execution.notes,
        "error": execution.error,
    }


def excluded_cause(
    returned: Sequence[str], expected: Sequence[str], excluded: Sequence[str]
) -> str:
    """Where the excluded memories came: with no answer, before one, or only in slots after
    every answer (a relevance cut-off would have left them out)."""
    answers = [n for n, c in enumerate(returned) if any(holds(c, e) for e in expected)]
    intruders = [n for n, c in enumerate(returned) if any(holds(c, x) for x in excluded)]
    if not answers:
        return "excluded memory in top_k, no answer"
    if min(intruders) > max(answers):
        return "excluded memory in top_k, after every answer"
    return "excluded memory in top_k, before an answer"


def describe(record: dict[str, Any]) -> str:
    lines = [
        f"[{record['set']} {record['scenario_id']}] {record['query']} "
        f"({record['language']}, top_k {record['top_k']}): P {record['precision']:.0f} "
        f"R {record['recall']:.0f} N {record['noise_rejection']:.0f}; "
        + ", ".join(record["causes"]),
        f"    missing {record['missing']}; excluded present {record['excluded_present']}",
    ]
    lines += [f"    {n}. {shorten(c)}" for n, c in enumerate(record["returned"], 1)]
    for substring, found in record["holders"].items():
        where = shorten(found[0], 70) if found else "no active memory"
        lines.append(f"    {substring!r} is in: {where}")
    lines += [f"    {line}" for line in record["step_errors"] + record["notes"]]
    if record["error"]:
        lines.append(f"    {record['error']}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Entry points


def load_set(name: str) -> dict[str, Any]:
    with (DATA_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        dataset: dict[str, Any] = json.load(handle)
    return dataset


async def run(client: Any, sets: Sequence[str] = SETS) -> dict[str, Any]:
    """Runs the named sets against an app's test client; the summary (JSON-ready): per set
    Memoria's report plus its ceiling, the macro, and the failed assertions."""
    run_id = uuid.uuid4().hex[:8]
    reports: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    maturation: Counter[str] = Counter()
    refused: list[str] = []
    executions: dict[str, dict[str, Any]] = {}
    for name in sets:
        dataset = load_set(name)
        started = time.perf_counter()
        results, ceilings = [], []
        for scenario in dataset["scenarios"]:
            user_id = f"bench-memoria-{run_id}-{scenario['scenario_id'].lower()}"
            execution = await execute(client, scenario, user_id)
            maturation.update(execution.maturation)
            where = f"{name} {scenario['scenario_id']}"
            refused += [f"{where}: {line}" for line in execution.refused]
            for line in execution.notes:
                common.log(f"{where}: {line}")
            steps_ok = [error is None for error in execution.step_errors]
            executions[scenario["scenario_id"]] = {
                "set": name,
                "user_id": user_id,
                "steps_ok": steps_ok,
                "error": execution.error,
            }
            returned = None if execution.error else execution.returned
            result = score_scenario(scenario, steps_ok, returned)
            best = [best_order(a, execution.active) for a in scenario["assertions"]]
            ceiling = score_scenario(scenario, steps_ok, None if execution.error else best)
            result["ceiling_score"] = ceiling["total_score"]
            results.append(result)
            ceilings.append(ceiling)
            for index in range(len(scenario["assertions"])):
                if (record := failure(name, scenario, execution, index)) is not None:
                    failures.append(record)
            common.log(
                f"{name} {scenario['scenario_id']}: {result['total_score']:.1f} "
                f"({result['grade']}), ceiling {ceiling['total_score']:.1f}"
            )
        report = score_set(dataset, results)
        report["ceiling_score"] = score_set(dataset, ceilings)["overall_score"]
        reports[name] = report
        common.log(
            f"{name}: {report['overall_score']:.2f} ({report['overall_grade']}) in "
            f"{time.perf_counter() - started:.1f}s"
        )
    scores = [report["overall_score"] for report in reports.values()]
    every = [r["total_score"] for report in reports.values() for r in report["results"]]
    macro = mean(scores)
    return {
        "sets": reports,
        "macro": round2(macro),
        "macro_grade": grade(macro),
        "macro_ceiling": round2(mean([report["ceiling_score"] for report in reports.values()])),
        "scenario_mean": round2(mean(every)),
        "maturation_answers": dict(sorted(maturation.items())),
        "refused_calls": refused,
        "failures": failures,
        "executions": executions,
    }


def print_report(summary: dict[str, Any]) -> None:
    reports = summary["sets"]
    for name, report in reports.items():
        results = report["results"]
        print(
            f"\n== {name} ({report['dataset_id']} {report['version']}): "
            f"{report['scenario_count']} scenarios, score {report['overall_score']:.2f} "
            f"({report['overall_grade']}), ceiling {report['ceiling_score']:.2f}"
        )
        for title, key in (
            ("By difficulty", "by_difficulty"),
            ("By tag", "by_tag"),
            ("By domain", "by_domain"),
        ):
            counts = Counter(
                value
                for r in results
                for value in (r["tags"] if key == "by_tag" else [r[key.removeprefix("by_")]])
            )
            rows = [[group, counts[group], score] for group, score in report[key].items()]
            print(common.table(f"{name}: {title.lower()}", [title.split()[-1], "n", "score"], rows))
        rows = [
            [
                f"{r['scenario_id']} {shorten(r['title'], 44)}",
                r["difficulty"],
                r["mqs_precision"],
                r["mqs_recall"],
                r["mqs_noise_rejection"],
                r["aus_step_success"],
                r["aus_assertion_pass"],
                r["total_score"],
                r["grade"],
                r["ceiling_score"],
            ]
            for r in results
        ]
        headers = ["scenario", "diff", "prec", "recall", "noise", "steps", "passed", "score"]
        print(common.table(f"{name}: scenarios", [*headers, "grade", "ceiling"], rows))
    rows = []
    for name, report in reports.items():
        results = report["results"]
        rows.append(
            [
                name,
                len(results),
                mean([r["mqs_precision"] for r in results]),
                mean([r["mqs_recall"] for r in results]),
                mean([r["mqs_noise_rejection"] for r in results]),
                mean([r["aus_assertion_pass"] for r in results]),
                report["overall_score"],
                report["overall_grade"],
                report["ceiling_score"],
                common.verdict(report["overall_score"], TARGET_SET),
            ]
        )
    rows.append(
        [
            "macro (mean of sets)",
            sum(len(report["results"]) for report in reports.values()),
            "",
            "",
            "",
            "",
            summary["macro"],
            summary["macro_grade"],
            summary["macro_ceiling"],
            common.verdict(summary["macro"], TARGET_MACRO),
        ]
    )
    headers = ["set", "n", "prec", "recall", "noise", "passed", "score", "grade", "ceiling"]
    print(
        common.table(
            f"Memoria's sets (scenario means; target: each set >= {TARGET_SET:.0f}, "
            f"macro >= {TARGET_MACRO:.0f})",
            [*headers, "target"],
            rows,
        )
    )
    print(f"mean over all scenarios: {summary['scenario_mean']:.2f}")
    answers = ", ".join(f"{key}: {n}" for key, n in summary["maturation_answers"].items())
    print(f"maturation answers (op status: scenarios): {answers}")
    refused = summary["refused_calls"]
    print(f"calls refused that Memoria's runner passes over: {len(refused)}")
    print("\n".join(f"  {line}" for line in refused))
    print(common.code_state())


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated set names")
    parser.add_argument("--json", type=Path, help="write the figures (JSON) to this file")
    parser.add_argument(
        "--failures", type=Path, help="write the failed assertions (JSON lines) here"
    )
    args = parser.parse_args()
    args.sets = [name.strip() for name in args.sets.split(",") if name.strip()]
    if unknown := [name for name in args.sets if name not in SETS]:
        parser.error(f"unknown sets {unknown}; the sets are {', '.join(SETS)}")
    return args


def main() -> None:
    args = arguments()
    if os.environ.pop("LLM_API_KEY", None):
        common.log("LLM_API_KEY ignored: the sets run without an LLM")

    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database(heap="1g", pagecache="512m") as database:

        async def with_client() -> dict[str, Any]:
            async with common.in_process_client(database.uri, embedder) as client:
                return await run(client, args.sets)

        summary = asyncio.run(with_client())
    failures = summary.pop("failures")
    print_report(summary)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        common.log(f"figures written to {args.json}")
    if args.failures:
        lines = [json.dumps(record, ensure_ascii=False) for record in failures]
        args.failures.write_text("".join(line + "\n" for line in lines))
        common.log(f"{len(failures)} failed assertions written to {args.failures}")
    else:
        print(f"\n{len(failures)} failed assertions:", file=sys.stderr)
        print("\n".join(describe(record) for record in failures), file=sys.stderr)


if __name__ == "__main__":
    main()
