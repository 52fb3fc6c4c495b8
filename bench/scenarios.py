"""Scenarios: does the service answer what a user expects after memories were stored, matured,
corrected, purged and rated?

Scenario files (bench/data/scenarios/<category>.toml, read with tomllib, one file per
category) hold scenarios written by hand: small worlds of memories an agent would keep
(engineering teams, services, preferences, procedures, tool output) in English, in Chinese and
in Chinese with English identifiers (`mixed`). The categories: correction and supersession,
contradiction, decay and quarantine, distractors that negate or deny, stale working memory,
multi-hop questions, session scoping, feedback.

Each scenario runs through the HTTP API of the real service (create_app with the real
embedder, in-process, no LLM) as a fresh user (the master key with X-User-Id):

1. `[[scenario.seed]]`: 3 to 10 memories, each POST /v1/memories with the API's fields
   (`content`, `memory_type`, `session_id`, `subject_id`, `trust_tier`,
   `initial_confidence`, `observed_at`, `extra_metadata`); `observed_at_days_ago` or
   `observed_at_hours_ago` backdate the observation; `label` names the memory for later steps.
2. `[[scenario.step]]`, in order, `op` one of:
   - `governance`, `consolidate`, `reflect`, `extract_entities`: the maturation operations,
     through POST /admin/governance/{user_id}/trigger?op=... as the master key (the last two
     need an LLM, which this runner never configures: the format accepts them, the scenarios
     do not use them);
   - `store` (the seed's fields), `correct` (`target` label, `new_content`, `reason`; the new
     memory takes `label`, or the target's label), `correct_by_query` (`query`,
     `new_content`, `reason`, `label`), `delete` (`target`, `reason`), `purge` (`targets`
     labels, `memory_types`, `session_id`, `topic`, `reason`), `feedback` (`target`,
     `signal`, `times`, `context`).
3. `[[scenario.check]]`: POST /v1/memories/retrieve with `query`, `top_k` (default 5) and
   optionally `session_id` and `min_score`; every substring of `must_include` must occur in
   the content of a returned memory, every substring of `must_exclude` in none. Each
   substring is one assertion. A failed seed or step (a status other than 2xx) fails every
   assertion of its scenario; it is reported with the scenario.

Scenarios and checks may carry a free-text `note`.

Figures: the share of assertions that pass, per category, per language and overall. Targets:
overall >= 0.90 and every category >= 0.80. Figures are reported, not asserted; failing
assertions (scenario, query, substring, what came back, shortened) and failed steps go to
stderr, and each correct_by_query step logs the memory it matched. A warm-up user stores and
retrieves a few memories first, so that no scenario meets a cold server.
`--skip-maturation` leaves the maturation steps out: the baseline that says which assertions
the maturation operations decide (the rest pass or fail without them).

`--check` validates the files without a service: known categories (a file's `category` is
its name), fields and operations, labels defined before they are used, 3 to 10 seeds, every
substring of an assertion present in some text of its scenario (an assertion about text the
scenario never stores would be trivially true or impossible), the language label against the
texts, and the counts: at least 40 scenarios, 5 per category, each category in every language.

    .venv/bin/python bench/scenarios.py                     # own throwaway Neo4j, ~2 min
    .venv/bin/python bench/scenarios.py --category feedback # one category (file name or name)
    .venv/bin/python bench/scenarios.py --check             # validate the files, print counts
    .venv/bin/python bench/scenarios.py --skip-maturation   # baseline without maturation
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/scenarios.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
import tomllib
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import common

SCENARIO_DIR = Path(__file__).resolve().parent / "data" / "scenarios"
CATEGORIES = (
    "correction and supersession",
    "contradiction",
    "decay and quarantine",
    "distractors that negate or deny",
    "stale working memory",
    "multi-hop questions",
    "session scoping",
    "feedback",
)
LANGUAGES = ("en", "zh", "mixed")
TARGET_OVERALL = 0.90
TARGET_CATEGORY = 0.80
MIN_SCENARIOS = 40
MIN_PER_CATEGORY = 5
SEEDS_RANGE = (3, 10)
SHOWN_CHARS = 60
WARM_UP_MEMORIES = (
    "invoice-api depends on postgres-main.",
    "postgres-main runs PostgreSQL 15.",
    "王磊是结算团队的负责人。",
)

MATURATION_OPS = ("governance", "consolidate", "reflect", "extract_entities")
MEMORY_FIELDS = frozenset(
    {
        "content",
        "memory_type",
        "session_id",
        "subject_id",
        "trust_tier",
        "initial_confidence",
        "observed_at",
        "extra_metadata",
    }
)
BACKDATING = frozenset({"observed_at_days_ago", "observed_at_hours_ago"})
SEED_FIELDS = MEMORY_FIELDS | BACKDATING | {"label"}
# Per operation: (required fields, optional fields), besides `op`.
STEP_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    **{op: (frozenset(), frozenset()) for op in MATURATION_OPS},
    "store": (frozenset({"content"}), SEED_FIELDS - {"content"}),
    "correct": (frozenset({"target", "new_content"}), frozenset({"reason", "label"})),
    "correct_by_query": (frozenset({"query", "new_content"}), frozenset({"reason", "label"})),
    "delete": (frozenset({"target"}), frozenset({"reason"})),
    "purge": (
        frozenset(),
        frozenset({"targets", "memory_types", "session_id", "topic", "reason"}),
    ),
    "feedback": (frozenset({"target", "signal"}), frozenset({"times", "context"})),
}
SIGNALS = ("useful", "irrelevant", "outdated", "wrong")
SCENARIO_FIELDS = frozenset({"name", "language", "note", "seed", "step", "check"})
CHECK_FIELDS = frozenset(
    {"query", "top_k", "session_id", "min_score", "must_include", "must_exclude", "note"}
)
CJK = re.compile(r"[\u3400-\u9fff]")
ASCII_LETTER = re.compile(r"[A-Za-z]")


def slug(category: str) -> str:
    """The file name of a category: 'multi-hop questions' -> 'multi_hop_questions'."""
    return re.sub(r"[^a-z0-9]+", "_", category.lower()).strip("_")


# ---------------------------------------------------------------------------------------------
# The files


@dataclass(frozen=True)
class Check:
    query: str
    top_k: int
    session_id: str | None
    min_score: float | None
    must_include: tuple[str, ...]
    must_exclude: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    category: str
    name: str
    language: str
    source: str  # file name and position, for messages
    seeds: tuple[dict[str, Any], ...]
    steps: tuple[dict[str, Any], ...]
    checks: tuple[Check, ...]
    raw: dict[str, Any]  # the TOML table, for --check

    @property
    def assertions(self) -> int:
        return sum(len(c.must_include) + len(c.must_exclude) for c in self.checks)


def _check(table: dict[str, Any]) -> Check:
    session = table.get("session_id")
    min_score = table.get("min_score")
    return Check(
        query=str(table.get("query", "")),
        top_k=int(table.get("top_k", 5)),
        session_id=None if session is None else str(session),
        min_score=None if min_score is None else float(min_score),
        must_include=tuple(table.get("must_include", ())),
        must_exclude=tuple(table.get("must_exclude", ())),
    )


def load_file(path: Path) -> tuple[str, list[Scenario]]:
    """The file's category and its scenarios."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    category = str(data.get("category", ""))
    scenarios = [
        Scenario(
            category=category,
            name=str(table.get("name", "")),
            language=str(table.get("language", "")),
            source=f"{path.name}#{n}",
            seeds=tuple(table.get("seed", ())),
            steps=tuple(table.get("step", ())),
            checks=tuple(_check(check) for check in table.get("check", ())),
            raw=table,
        )
        for n, table in enumerate(data.get("scenario", ()), start=1)
    ]
    return category, scenarios


def load(directory: Path = SCENARIO_DIR) -> tuple[list[Scenario], list[str]]:
    """Every scenario of every file, and the errors of the files themselves."""
    scenarios: list[Scenario] = []
    errors: list[str] = []
    for path in sorted(directory.glob("*.toml")):
        try:
            category, found = load_file(path)
        except (tomllib.TOMLDecodeError, TypeError, ValueError) as error:
            errors.append(f"{path.name}: {error}")
            continue
        if category not in CATEGORIES:
            errors.append(f"{path.name}: unknown category {category!r}")
        elif slug(category) != path.stem:
            errors.append(f"{path.name}: category {category!r} belongs in {slug(category)}.toml")
        scenarios += found
    return scenarios, errors


# ---------------------------------------------------------------------------------------------
# Validation (--check, and before every run)


def texts(scenario: Scenario) -> list[str]:
    """Every memory text the scenario stores (seeds, stores, corrections)."""
    found = [str(seed.get("content", "")) for seed in scenario.seeds]
    for step in scenario.steps:
        found += [str(step[key]) for key in ("content", "new_content") if key in step]
    return found


def _memory_fields(where: str, table: dict[str, Any], allowed: frozenset[str]) -> list[str]:
    errors = [f"{where}: unknown field {key!r}" for key in table if key not in allowed]
    if not str(table.get("content", table.get("new_content", ""))).strip():
        errors.append(f"{where}: no content")
    if len(BACKDATING & table.keys()) + ("observed_at" in table) > 1:
        errors.append(f"{where}: more than one observed_at field")
    return errors


def _step_errors(where: str, step: dict[str, Any], labels: set[str]) -> list[str]:
    op = step.get("op")
    if op not in STEP_FIELDS:
        return [f"{where}: unknown op {op!r}"]
    required, optional = STEP_FIELDS[op]
    errors = [f"{where}: {op} needs {key!r}" for key in required if key not in step]
    errors += [
        f"{where}: {op} takes no {key!r}"
        for key in step
        if key != "op" and key not in required | optional
    ]
    if op == "store":
        errors += _memory_fields(where, step, SEED_FIELDS | {"op"})
    targets = [step["target"]] if "target" in step else list(step.get("targets", ()))
    errors += [f"{where}: unknown label {label!r}" for label in targets if label not in labels]
    if op == "feedback" and step.get("signal") not in SIGNALS:
        errors.append(f"{where}: signal {step.get('signal')!r}")
    if op == "purge" and not {"targets", "memory_types", "session_id", "topic"} & step.keys():
        errors.append(f"{where}: purge without a selector purges nothing")
    if op in ("store", "correct", "correct_by_query") and "label" in step:
        if step["label"] in labels and op == "store":
            errors.append(f"{where}: label {step['label']!r} is taken")
        labels.add(str(step["label"]))
    return errors


def _language_errors(scenario: Scenario) -> list[str]:
    where = f"{scenario.source} {scenario.name!r}"
    if scenario.language not in LANGUAGES:
        return [f"{where}: language {scenario.language!r}"]
    written = texts(scenario) + [check.query for check in scenario.checks]
    written += [str(step["query"]) for step in scenario.steps if "query" in step]
    has_cjk = [bool(CJK.search(text)) for text in written]
    has_ascii = [bool(ASCII_LETTER.search(text)) for text in written]
    wrong = {
        "en": any(has_cjk) or not all(has_ascii),
        "zh": any(has_ascii) or not all(has_cjk),
        "mixed": not (all(has_cjk) and any(has_ascii)),
    }[scenario.language]
    return [f"{where}: texts do not read as {scenario.language!r}"] if wrong else []


def _check_errors(where: str, check: Check, table: dict[str, Any], stored: list[str]) -> list[str]:
    errors = [f"{where}: unknown field {key!r}" for key in table if key not in CHECK_FIELDS]
    if not check.query.strip():
        errors.append(f"{where}: no query")
    if not 1 <= check.top_k <= 100:
        errors.append(f"{where}: top_k {check.top_k}")
    if not check.must_include and not check.must_exclude:
        errors.append(f"{where}: no assertion")
    for substring in (*check.must_include, *check.must_exclude):
        if not any(substring in text for text in stored):
            errors.append(f"{where}: {substring!r} occurs in no memory of the scenario")
    for substring in check.must_include:
        holders = [text for text in stored if substring in text]
        if holders and all(any(ex in text for ex in check.must_exclude) for text in holders):
            errors.append(f"{where}: every memory with {substring!r} holds an excluded string")
    return errors


def scenario_errors(scenario: Scenario) -> list[str]:
    where = f"{scenario.source} {scenario.name!r}"
    errors = [f"{where}: unknown field {key!r}" for key in scenario.raw.keys() - SCENARIO_FIELDS]
    if not scenario.name:
        errors.append(f"{where}: no name")
    if not SEEDS_RANGE[0] <= len(scenario.seeds) <= SEEDS_RANGE[1]:
        errors.append(f"{where}: {len(scenario.seeds)} seeds")
    labels: set[str] = set()
    for n, seed in enumerate(scenario.seeds, start=1):
        errors += _memory_fields(f"{where} seed {n}", seed, SEED_FIELDS)
        label = seed.get("label")
        if label is not None and label in labels:
            errors.append(f"{where} seed {n}: label {label!r} is taken")
        if label is not None:
            labels.add(str(label))
    for n, step in enumerate(scenario.steps, start=1):
        errors += _step_errors(f"{where} step {n}", step, labels)
    if not scenario.checks:
        errors.append(f"{where}: no check")
    stored = texts(scenario)
    tables = scenario.raw.get("check", [])
    for n, (check, table) in enumerate(zip(scenario.checks, tables, strict=True), start=1):
        errors += _check_errors(f"{where} check {n}", check, table, stored)
    return errors + _language_errors(scenario)


def count_errors(scenarios: Sequence[Scenario]) -> list[str]:
    errors = []
    if len(scenarios) < MIN_SCENARIOS:
        errors.append(f"{len(scenarios)} scenarios, fewer than {MIN_SCENARIOS}")
    names = Counter(scenario.name for scenario in scenarios)
    errors += [f"duplicate scenario name {name!r}" for name, n in names.items() if n > 1]
    for category in CATEGORIES:
        group = [scenario for scenario in scenarios if scenario.category == category]
        if len(group) < MIN_PER_CATEGORY:
            errors.append(f"{category}: {len(group)} scenarios, fewer than {MIN_PER_CATEGORY}")
        missing = set(LANGUAGES) - {scenario.language for scenario in group}
        if missing:
            errors.append(f"{category}: no scenario in {sorted(missing)}")
    return errors


def validate(scenarios: Sequence[Scenario], whole_set: bool) -> list[str]:
    errors = [error for scenario in scenarios for error in scenario_errors(scenario)]
    return errors + (count_errors(scenarios) if whole_set else [])


def summary(scenarios: Sequence[Scenario]) -> str:
    rows = []
    for category in CATEGORIES:
        group = [scenario for scenario in scenarios if scenario.category == category]
        if not group:
            continue
        languages = Counter(scenario.language for scenario in group)
        rows.append(
            [
                category,
                len(group),
                *(languages[language] for language in LANGUAGES),
                sum(len(scenario.seeds) for scenario in group),
                sum(scenario.assertions for scenario in group),
            ]
        )
    rows.append(
        [
            "all",
            len(scenarios),
            *(sum(s.language == language for s in scenarios) for language in LANGUAGES),
            sum(len(scenario.seeds) for scenario in scenarios),
            sum(scenario.assertions for scenario in scenarios),
        ]
    )
    headers = ["category", "scenarios", *LANGUAGES, "seeds", "assertions"]
    return common.table("Scenario files", headers, rows)


# ---------------------------------------------------------------------------------------------
# The run


@dataclass(frozen=True)
class Assertion:
    scenario: Scenario
    query: str
    top_k: int
    kind: str  # "include" | "exclude"
    substring: str
    passed: bool
    got: tuple[str, ...]  # contents returned, best first
    error: str | None = None  # why it failed without being asked (a failed step)
    user_id: str = ""
    session_id: str | None = None  # the check's


@dataclass
class Context:
    client: Any
    scenario: Scenario
    user_id: str
    skip_maturation: bool = False
    labels: dict[str, str] = field(default_factory=dict)  # label -> memory_id
    contents: dict[str, str] = field(default_factory=dict)  # memory_id -> content

    @property
    def headers(self) -> dict[str, str]:
        return common.master_headers(self.user_id)


class StepFailed(Exception):
    """A seed or step answered something other than 2xx."""


async def call(
    context: Context,
    method: str,
    path: str,
    body: Any = None,
    query: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> Any:
    """The JSON answer of one request; StepFailed unless it is 2xx."""
    response = await context.client.open(
        path,
        method=method,
        json=body,
        query_string=query,
        headers=headers or context.headers,
    )
    text = await response.get_data(as_text=True)
    if not 200 <= response.status_code < 300:
        raise StepFailed(f"{method} {path} -> {response.status_code} {text[:200]}")
    return await response.get_json()


def memory_body(fields: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The POST /v1/memories body of a seed or store step (backdating resolved)."""
    body = {key: value for key, value in fields.items() if key in MEMORY_FIELDS}
    days = fields.get("observed_at_days_ago")
    hours = fields.get("observed_at_hours_ago")
    if days is not None or hours is not None:
        ago = timedelta(days=float(days or 0), hours=float(hours or 0))
        body["observed_at"] = (now - ago).strftime("%Y-%m-%dT%H:%M:%SZ")
    return body


async def store(context: Context, fields: dict[str, Any], now: datetime) -> None:
    memory = await call(context, "POST", "/v1/memories", memory_body(fields, now))
    context.contents[memory["memory_id"]] = memory["content"]
    if "label" in fields:
        context.labels[str(fields["label"])] = memory["memory_id"]


async def maturation(context: Context, op: str) -> None:
    await call(
        context,
        "POST",
        f"/admin/governance/{context.user_id}/trigger",
        query={"op": op},
        headers={"Authorization": f"Bearer {common.MASTER_KEY}"},
    )


def _edit(step: dict[str, Any]) -> dict[str, Any]:
    return {"new_content": step["new_content"], "reason": step.get("reason", "")}


async def apply_step(context: Context, step: dict[str, Any], now: datetime) -> None:
    op = step["op"]
    labels = context.labels
    if op in MATURATION_OPS:
        if not context.skip_maturation:
            await maturation(context, op)
    elif op == "store":
        await store(context, step, now)
    elif op == "correct":
        path = f"/v1/memories/{labels[step['target']]}/correct"
        memory = await call(context, "PUT", path, _edit(step))
        context.contents[memory["memory_id"]] = memory["content"]
        labels[str(step.get("label", step["target"]))] = memory["memory_id"]
    elif op == "correct_by_query":
        body = {"query": step["query"], **_edit(step)}
        memory = await call(context, "POST", "/v1/memories/correct", body)
        context.contents[memory["memory_id"]] = memory["content"]
        matched = context.contents.get(memory["matched_memory_id"], "?")
        common.log(f"{context.scenario.name}: correct_by_query matched {shorten(matched)!r}")
        if "label" in step:
            labels[str(step["label"])] = memory["memory_id"]
    elif op == "delete":
        query = {"reason": step.get("reason", "")}
        await call(context, "DELETE", f"/v1/memories/{labels[step['target']]}", query=query)
    elif op == "purge":
        body = {key: step[key] for key in ("memory_types", "session_id", "topic") if key in step}
        if "targets" in step:
            body["memory_ids"] = [labels[label] for label in step["targets"]]
        await call(
            context, "POST", "/v1/memories/purge", {**body, "reason": step.get("reason", "")}
        )
    elif op == "feedback":
        body = {"signal": step["signal"], "context": step.get("context", "")}
        for _ in range(int(step.get("times", 1))):
            await call(context, "POST", f"/v1/memories/{labels[step['target']]}/feedback", body)


async def retrieve(context: Context, check: Check) -> list[str]:
    body: dict[str, Any] = {"query": check.query, "top_k": check.top_k}
    if check.session_id is not None:
        body["session_id"] = check.session_id
    if check.min_score is not None:
        body["min_score"] = check.min_score
    rows = await call(context, "POST", "/v1/memories/retrieve", body)
    return [str(row["content"]) for row in rows]


def judge(
    scenario: Scenario, check: Check, got: Sequence[str], user_id: str = ""
) -> list[Assertion]:
    def found(substring: str) -> bool:
        return any(substring in content for content in got)

    return [
        Assertion(
            scenario,
            check.query,
            check.top_k,
            kind,
            s,
            found(s) == (kind == "include"),
            tuple(got),
            user_id=user_id,
            session_id=check.session_id,
        )
        for kind, s in expectations(check)
    ]


def expectations(check: Check) -> Iterable[tuple[str, str]]:
    yield from (("include", substring) for substring in check.must_include)
    yield from (("exclude", substring) for substring in check.must_exclude)


def failed_all(scenario: Scenario, error: str) -> list[Assertion]:
    return [
        Assertion(scenario, check.query, check.top_k, kind, substring, False, (), error)
        for check in scenario.checks
        for kind, substring in expectations(check)
    ]


async def run_scenario(
    client: Any, scenario: Scenario, user_id: str, skip_maturation: bool = False
) -> list[Assertion]:
    context = Context(client, scenario, user_id, skip_maturation)
    now = datetime.now(UTC)
    try:
        for n, seed in enumerate(scenario.seeds, start=1):
            try:
                await store(context, seed, now)
            except StepFailed as error:
                raise StepFailed(f"seed {n}: {error}") from None
        for n, step in enumerate(scenario.steps, start=1):
            try:
                await apply_step(context, step, now)
            except StepFailed as error:
                raise StepFailed(f"step {n} ({step['op']}): {error}") from None
        assertions = []
        for check in scenario.checks:
            assertions += judge(scenario, check, await retrieve(context, check), user_id)
        return assertions
    except StepFailed as error:
        return failed_all(scenario, str(error))


async def warm_up(client: Any, user_id: str) -> None:
    """A few stores and retrieves first, so that no scenario meets a cold server (the first
    graph walks and full-text queries on a fresh database are the slow ones)."""
    headers = common.master_headers(user_id)
    for content in WARM_UP_MEMORIES:
        await client.post("/v1/memories", json={"content": content}, headers=headers)
    for content in WARM_UP_MEMORIES:
        await client.post("/v1/memories/retrieve", json={"query": content}, headers=headers)


async def run(
    uri: str, embedder: Any, scenarios: Sequence[Scenario], skip_maturation: bool
) -> list[Assertion]:
    run_id = uuid.uuid4().hex[:8]
    assertions: list[Assertion] = []
    async with common.in_process_client(uri, embedder) as client:
        await warm_up(client, f"bench-scenario-{run_id}-warm-up")
        for category in CATEGORIES:
            group = [scenario for scenario in scenarios if scenario.category == category]
            if not group:
                continue
            started = time.perf_counter()
            for n, scenario in enumerate(group, start=1):
                user_id = f"bench-scenario-{run_id}-{slug(category)}-{n:02d}"
                assertions += await run_scenario(client, scenario, user_id, skip_maturation)
            elapsed = time.perf_counter() - started
            common.log(f"{category}: {len(group)} scenarios in {elapsed:.1f}s")
    return assertions


# ---------------------------------------------------------------------------------------------
# Report


def rate(group: Sequence[Assertion]) -> float:
    return sum(a.passed for a in group) / len(group) if group else float("nan")


def category_rows(assertions: Sequence[Assertion]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for category in CATEGORIES:
        group = [a for a in assertions if a.scenario.category == category]
        if not group:
            continue
        value = rate(group)
        scenarios = {a.scenario.name for a in group}
        failed_steps = {a.scenario.name for a in group if a.error}
        rows.append(
            [
                category,
                len(scenarios),
                len(failed_steps),
                len(group),
                sum(a.passed for a in group),
                value,
                f">= {TARGET_CATEGORY}",
                common.verdict(value, TARGET_CATEGORY),
            ]
        )
    value = rate(assertions)
    rows.append(
        [
            "overall",
            len({a.scenario.name for a in assertions}),
            len({a.scenario.name for a in assertions if a.error}),
            len(assertions),
            sum(a.passed for a in assertions),
            value,
            f">= {TARGET_OVERALL}",
            common.verdict(value, TARGET_OVERALL),
        ]
    )
    return rows


def breakdown_rows(assertions: Sequence[Assertion]) -> list[list[Any]]:
    """Pass rates by language and by kind of assertion."""
    rows: list[list[Any]] = []
    for language in LANGUAGES:
        group = [a for a in assertions if a.scenario.language == language]
        if group:
            rows.append([f"language {language}", len(group), rate(group)])
    for kind in ("include", "exclude"):
        group = [a for a in assertions if a.kind == kind]
        if group:
            rows.append([f"must_{kind}", len(group), rate(group)])
    return rows


def shorten(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def describe(assertion: Assertion) -> str:
    scenario = assertion.scenario
    what = "missing" if assertion.kind == "include" else "present"
    got = " | ".join(shorten(content) for content in assertion.got) or "(nothing)"
    return (
        f"  [{scenario.category} / {scenario.name} ({scenario.language})] "
        f"{assertion.query!r} top_k {assertion.top_k}: {what} {assertion.substring!r}\n"
        f"      got: {got}"
    )


def report(
    scenarios: Sequence[Scenario], assertions: Sequence[Assertion], skip_maturation: bool
) -> None:
    print(
        f"\nScenarios: {len(scenarios)} scenarios (one fresh user each), "
        f"{sum(len(s.seeds) for s in scenarios)} seed memories, {len(assertions)} assertions"
    )
    if skip_maturation:
        print("BASELINE: maturation steps (governance, consolidate, ...) left out")
    print(common.code_state())
    headers = ["category", "scenarios", "step failed", "assertions", "passed", "rate"]
    print(
        common.table(
            "Assertion pass rate (POST /v1/memories/retrieve after seeds and steps)",
            [*headers, "target", "status"],
            category_rows(assertions),
        )
    )
    print(common.table("Breakdown", ["group", "assertions", "rate"], breakdown_rows(assertions)))
    step_errors = {a.scenario.name: a for a in assertions if a.error}
    if step_errors:
        lines = [f"\n{len(step_errors)} scenarios with a failed seed or step:"]
        lines += [
            f"  [{a.scenario.category} / {name}] {a.error}" for name, a in step_errors.items()
        ]
        print("\n".join(lines), file=sys.stderr)
    failures = [a for a in assertions if not a.passed and not a.error]
    if failures:
        lines = [f"\n{len(failures)} failing assertions (steps succeeded):"]
        print("\n".join(lines + [describe(a) for a in failures]), file=sys.stderr)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="validate the files, no service")
    parser.add_argument("--category", help="one category, by name or file name")
    parser.add_argument("--scenario", help="only scenarios whose name contains this")
    parser.add_argument(
        "--skip-maturation",
        action="store_true",
        help="leave out the maturation steps: what passes without them (a baseline)",
    )
    return parser.parse_args()


def select(scenarios: Sequence[Scenario], args: argparse.Namespace) -> list[Scenario]:
    chosen = list(scenarios)
    if args.category:
        wanted = slug(args.category.removesuffix(".toml"))
        if wanted not in {slug(category) for category in CATEGORIES}:
            sys.exit(f"unknown category {args.category!r}; known: {', '.join(CATEGORIES)}")
        chosen = [s for s in chosen if slug(s.category) == wanted]
    if args.scenario:
        chosen = [s for s in chosen if args.scenario.lower() in s.name.lower()]
    return chosen


def main() -> None:
    args = arguments()
    everything, file_errors = load()
    scenarios = select(everything, args)
    whole = len(scenarios) == len(everything)
    errors = file_errors + validate(scenarios, whole_set=whole)
    if args.check:
        print(summary(scenarios))
        print("\n".join(errors) if errors else "checks: ok")
        sys.exit(1 if errors else 0)
    if errors:
        sys.exit("the scenario files have errors:\n" + "\n".join(errors))
    if not scenarios:
        sys.exit("no scenario selected")
    if os.environ.pop("LLM_API_KEY", None):
        common.log("LLM_API_KEY ignored: scenarios run without an LLM")
    common.log(summary(scenarios))

    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database(heap="1g", pagecache="512m") as database:
        assertions = asyncio.run(run(database.uri, embedder, scenarios, args.skip_maturation))
    report(scenarios, assertions, args.skip_maturation)


if __name__ == "__main__":
    main()
