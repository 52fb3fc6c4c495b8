"""Multi-hop graph retrieval: does the graph stage find answers only a chain of memories leads to?

The labelled set (bench/data/graph_set.py) holds 18 small worlds, one user each: memories an
agent would store (one-sentence facts), 12 unrelated background memories, and four questions
per world, 72 in all, in English, Chinese and Chinese with English identifiers inside. A
question names only the start of a chain of 2 to 4 memories (person -> team -> service ->
dependency -> vulnerability; symptom -> cause -> fix; alias -> canonical name -> ...; config
key -> change -> incident -> ...) and asks about its end, with (almost) no word in common with
the answer memory. Each question lists the chain's memories, which must all be in its top_k,
and distractors that must not be: memories that share an entity with the chain but do not
answer, among them negated links ("auth-service has nothing to do with invoice-api") that the
expansion must not follow.

Every world is stored through the real service (create_app with the real embedder,
POST /v1/memories/batch as the master key with X-User-Id, a fresh user per world), then each
question is asked with POST /v1/memories/retrieve {"query", "top_k", "graph": false} (hybrid
retrieval alone) and again with "graph": true (hybrid plus the graph stage). Returned memories
are mapped back to labels by content.

Figures, per mode, overall and by language, hops and kind:

- recall@k: the share of a question's chain memories found in its top_k, averaged;
- fully right: the share of questions whose top_k holds every chain memory and no excluded one;
- excluded hit: the share of questions with an excluded memory in the top_k.

Targets: fully right with the graph >= 0.85; fully right with - without >= 0.30. Figures are
reported, not asserted; a few failing questions per mode go to stderr to help tuning.

    .venv/bin/python bench/graph_retrieval.py            # own throwaway Neo4j
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/graph_retrieval.py
    .venv/bin/python bench/graph_retrieval.py --check    # check the set and print a summary
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import common
from data.graph_set import KINDS, LANGUAGES, SCENARIOS, Question, Scenario

MODES = ("without graph", "with graph")
TARGET_FULLY_RIGHT = 0.85
TARGET_GAIN = 0.30
FAILURES_SHOWN = 8

# ---------------------------------------------------------------------------------------------
# Checks of the set (the same rules its docstring states)

CJK = re.compile(r"[\u3400-\u9fff]")
ASCII_LETTER = re.compile(r"[A-Za-z]")
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@/-]*[A-Za-z0-9]|[A-Za-z0-9]")
PACKAGE_VERSION = re.compile(r"\b([a-z][\w.-]*) (\d+(?:\.\w+)+)")
TEAM = re.compile(r"\b([a-z]+) team\b", re.IGNORECASE)
# Chinese nouns too common to name anything (the check ignores them).
GENERIC_NOUNS_TEXT = """团队 数据 上线 记录 模型 集群 医生 问题 系统 服务 版本 时间 方案"""
GENERIC_NOUNS = frozenset(GENERIC_NOUNS_TEXT.split())
# Words that start English sentences or questions: capitalised, but not names.
SENTENCE_WORDS_TEXT = """the a an when everyone error rack is does did do what how who will was
any dr whom which where why should"""
SENTENCE_WORDS = frozenset(SENTENCE_WORDS_TEXT.split())
STOP_WORDS_TEXT = """a an and are as at be but by for if in into is it no not of on or such that
the their then there these they this to was will with what who whom which when where why how does
did do any anything ever about its it's our we us i me my should before after last time
got get has have had up out off from so"""
STOP_WORDS = frozenset(STOP_WORDS_TEXT.split())


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def shared_words(question: str, memory: str) -> set[str]:
    """English content words (crudely stemmed) and CJK bigrams the two texts share."""

    def units(text: str) -> set[str]:
        words = {_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP_WORDS}
        runs = re.findall(r"[\u3400-\u9fff]+", text)
        bigrams = {run[i : i + 2] for run in runs for i in range(len(run) - 1)}
        return words | bigrams

    return units(question) & units(memory)


_jieba: Any = None


def _chinese_nouns(text: str) -> set[str]:
    """Nouns of two or more characters by jieba (the service's Chinese segmenter), and
    team names."""
    global _jieba
    if _jieba is None:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(logging.WARNING)
        _jieba = jieba.posseg
    words = list(_jieba.cut(text))
    nouns = {
        word
        for word, flag in words
        if flag.startswith("n")
        and len(word) >= 2
        and CJK.search(word)
        and word not in GENERIC_NOUNS
    }
    # Team names: the word before 团队 or 组 with it ("结算团队", "算力组").
    for (before, _), (word, _) in itertools.pairwise(words):
        if word in ("团队", "组") and CJK.search(before):
            nouns.add(before + word)
    return nouns


def entities(text: str) -> set[str]:
    """A crude stand-in for a deterministic extractor, to check the set's chains: identifiers
    (with a digit, '-', '_', '.' or '@'), capitalised names, 'package version', 'X team',
    and jieba's Chinese nouns; lowercased, '-' and '_' read as spaces."""
    found = set()
    for token in TOKEN.findall(text):
        token = token.rstrip(".")
        if not ASCII_LETTER.search(token):
            continue  # numbers, times and versions alone (versions count with their package)
        if any(ch.isdigit() or ch in "-_.@" for ch in token) or (
            token[0].isupper() and token.lower() not in SENTENCE_WORDS
        ):
            found.add(token)
    found.update(" ".join(match) for match in PACKAGE_VERSION.findall(text))
    found.update(f"{match} team" for match in TEAM.findall(text) if match.lower() != "the")
    found.update(_chinese_nouns(text))
    return {re.sub(r"[-_]", " ", item.lower()) for item in found}


def check(scenarios: Sequence[Scenario]) -> list[str]:
    """Errors in the set's labels and chains (empty when it is sound)."""
    errors: list[str] = []
    keys = Counter(scenario.key for scenario in scenarios)
    errors += [f"duplicate scenario key {key}" for key, n in keys.items() if n > 1]
    for scenario in scenarios:
        memories = scenario.all_memories()
        where = scenario.key
        if len(memories) != len(scenario.memories) + len(scenario.background):
            errors.append(f"{where}: a memory label is reused")
        contents = Counter(memories.values())
        errors += [f"{where}: duplicate content {c!r}" for c, n in contents.items() if n > 1]
        if not 10 <= len(scenario.background) <= 20:
            errors.append(f"{where}: {len(scenario.background)} background memories")
        chain_entities: set[str] = set()
        for question in scenario.questions:
            for label in question.expected:
                chain_entities |= entities(memories.get(label, ""))
        for n, text in enumerate(scenario.background, start=1):
            if shared := entities(text) & chain_entities:
                errors.append(f"{where}/bg{n:02d}: background shares {shared} with a chain")
        for question in scenario.questions:
            errors += check_question(where, question, memories)
    return errors


def check_question(where: str, question: Question, memories: dict[str, str]) -> list[str]:
    errors = []
    here = f"{where}: {question.text!r}"
    labels = (*question.expected, *question.excluded)
    if missing := [label for label in labels if label not in memories]:
        return [f"{here}: unknown labels {missing}"]
    if question.kind not in KINDS or question.language not in LANGUAGES:
        errors.append(f"{here}: kind {question.kind!r} / language {question.language!r}")
    if not 2 <= question.hops <= 4 or question.hops != len(question.expected):
        errors.append(f"{here}: hops {question.hops} for {len(question.expected)} memories")
    if question.top_k < len(question.expected) + 1:
        errors.append(f"{here}: top_k {question.top_k} too small")
    if not question.excluded or set(question.excluded) & set(question.expected):
        errors.append(f"{here}: excluded must be non-empty and apart from expected")
    has_cjk = bool(CJK.search(question.text))
    has_ascii = bool(ASCII_LETTER.search(question.text))
    language = {(False, True): "en", (True, False): "zh", (True, True): "mixed"}.get(
        (has_cjk, has_ascii)
    )
    if language != question.language:
        errors.append(f"{here}: language is {language}, labelled {question.language}")
    answer = memories[question.expected[-1]]
    if len(shared := shared_words(question.text, answer)) > 1:
        errors.append(f"{here}: shares {shared} with the answer memory")
    asked = entities(question.text)
    if not asked & entities(memories[question.expected[0]]):
        errors.append(f"{here}: names no entity of the chain's first memory")
    if shared := asked & entities(answer):
        errors.append(f"{here}: names the answer's entities {shared}")
    chain = [entities(memories[label]) for label in question.expected]
    for (a, b), (left, right) in zip(
        itertools.pairwise(question.expected), itertools.pairwise(chain), strict=True
    ):
        if not left & right:
            errors.append(f"{here}: no shared entity between {a} and {b}")
    linked = set().union(*chain)
    pending = list(question.excluded)
    for _ in range(len(pending)):  # an excluded memory may hang off another excluded one
        for label in list(pending):
            found = entities(memories[label])
            if found & linked:
                linked |= found
                pending.remove(label)
    errors += [f"{here}: distractor {label} shares no entity with the chain" for label in pending]
    for label in question.excluded:
        if shared := asked & entities(memories[label]):
            errors.append(f"{here}: distractor {label} names the start entity {shared}")
    return errors


def negated(question: Question) -> bool:
    return any(label.endswith("_neg") for label in question.excluded)


def summary(scenarios: Sequence[Scenario]) -> str:
    questions = [question for scenario in scenarios for question in scenario.questions]
    stored = sum(len(scenario.all_memories()) for scenario in scenarios)
    with_negation = sum(negated(question) for question in questions)

    def counts(values: Iterable[object]) -> str:
        return ", ".join(f"{key}: {n}" for key, n in sorted(Counter(values).items()))

    return "\n".join(
        [
            f"{len(scenarios)} scenarios, {stored} memories, {len(questions)} questions",
            f"  by language: {counts(q.language for q in questions)}",
            f"  by hops: {counts(q.hops for q in questions)}",
            f"  by kind: {counts(q.kind for q in questions)}",
            f"  with a negated distractor: {with_negation}",
            f"  excluded per question: {counts(len(q.excluded) for q in questions)}",
        ]
    )


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class Outcome:
    scenario: str
    question: Question
    mode: str
    got: list[str]  # labels, best first
    user_id: str = ""
    labels: dict[str, str] | None = None  # content -> label, for judging another order

    @property
    def recall(self) -> float:
        return len(set(self.question.expected) & set(self.got)) / len(self.question.expected)

    @property
    def excluded_hit(self) -> bool:
        return bool(set(self.question.excluded) & set(self.got))

    @property
    def fully_right(self) -> bool:
        return set(self.question.expected) <= set(self.got) and not self.excluded_hit


async def store(client: Any, scenario: Scenario, user_id: str) -> dict[str, str]:
    """Stores the scenario's memories in one POST /v1/memories/batch; content -> label."""
    memories = scenario.all_memories()
    body = {"memories": [{"content": content} for content in memories.values()]}
    response = await client.post(
        "/v1/memories/batch", json=body, headers=common.master_headers(user_id)
    )
    assert response.status_code == 201, await response.get_data(as_text=True)
    stored = await response.get_json()
    assert [row["content"] for row in stored] == list(memories.values())
    return {content: label for label, content in memories.items()}


async def ask(client: Any, user_id: str, question: Question, graph: bool) -> list[dict[str, Any]]:
    body = {"query": question.text, "top_k": question.top_k, "graph": graph}
    response = await client.post(
        "/v1/memories/retrieve", json=body, headers=common.master_headers(user_id)
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    rows: list[dict[str, Any]] = await response.get_json()
    return rows


async def run(uri: str, embedder: Any) -> list[Outcome]:
    run_id = uuid.uuid4().hex[:8]
    outcomes: list[Outcome] = []
    async with common.in_process_client(uri, embedder) as client:
        started = time.perf_counter()
        users = {}
        labels: dict[str, dict[str, str]] = {}
        for scenario in SCENARIOS:
            users[scenario.key] = f"bench-graph-{scenario.key}-{run_id}"
            labels[scenario.key] = await store(client, scenario, users[scenario.key])
        stored = sum(len(by_content) for by_content in labels.values())
        common.log(f"stored {stored} memories in {time.perf_counter() - started:.1f}s")
        started = time.perf_counter()
        for scenario in SCENARIOS:
            for question in scenario.questions:
                for mode, graph in zip(MODES, (False, True), strict=True):
                    rows = await ask(client, users[scenario.key], question, graph)
                    got = [labels[scenario.key].get(row["content"], "?") for row in rows]
                    outcomes.append(
                        Outcome(
                            scenario.key,
                            question,
                            mode,
                            got,
                            users[scenario.key],
                            labels[scenario.key],
                        )
                    )
        asked = len(outcomes)
        common.log(f"asked {asked} retrieves in {time.perf_counter() - started:.1f}s")
    return outcomes


# ---------------------------------------------------------------------------------------------
# Report


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def figures(outcomes: Sequence[Outcome]) -> tuple[float, float, float]:
    """recall@k, fully right, excluded hit."""
    return (
        mean([o.recall for o in outcomes]),
        mean([float(o.fully_right) for o in outcomes]),
        mean([float(o.excluded_hit) for o in outcomes]),
    )


def breakdown(outcomes: Sequence[Outcome], key: str, order: Sequence[object]) -> list[list[Any]]:
    rows = []
    for value in order:
        group = {
            mode: [o for o in outcomes if o.mode == mode and getattr(o.question, key) == value]
            for mode in MODES
        }
        if not group[MODES[0]]:
            continue
        without, with_graph = (figures(group[mode]) for mode in MODES)
        rows.append(
            [
                value,
                len(group[MODES[0]]),
                without[0],
                with_graph[0],
                without[1],
                with_graph[1],
                with_graph[1] - without[1],
            ]
        )
    return rows


def describe_failure(outcome: Outcome) -> str:
    question = outcome.question
    missing = [label for label in question.expected if label not in outcome.got]
    intruders = [label for label in question.excluded if label in outcome.got]
    return (
        f"  [{outcome.scenario}] {question.text} ({question.language}, {question.hops} hops, "
        f"{question.kind}, top_k {question.top_k})\n"
        f"    expected {list(question.expected)}\n"
        f"    got      {outcome.got}\n"
        f"    missing  {missing}; excluded present {intruders}"
    )


def report(outcomes: Sequence[Outcome]) -> None:
    questions = [q for scenario in SCENARIOS for q in scenario.questions]
    print(
        f"\nGraph retrieval: {len(SCENARIOS)} scenarios (one user each), "
        f"{sum(len(s.all_memories()) for s in SCENARIOS)} memories, {len(questions)} questions"
    )
    print(common.code_state())
    by_mode = {mode: [o for o in outcomes if o.mode == mode] for mode in MODES}
    overall = {mode: figures(by_mode[mode]) for mode in MODES}
    changed = sum(a.got != b.got for a, b in zip(by_mode[MODES[0]], by_mode[MODES[1]], strict=True))
    print(
        common.table(
            "Overall (POST /v1/memories/retrieve, top_k 5, or 6 for 4-hop chains)",
            ["mode", "n", "recall@k", "fully right", "excluded hit"],
            [[mode, len(by_mode[mode]), *overall[mode]] for mode in MODES],
        )
    )
    print(f"graph: true changed the top_k of {changed} of {len(questions)} questions")
    headers = ["R@k w/o", "R@k with", "full w/o", "full with", "full +/-"]
    for title, key, order in (
        ("By language", "language", LANGUAGES),
        ("By hops", "hops", (2, 3, 4)),
        ("By kind", "kind", KINDS),
    ):
        print(common.table(title, [key, "n", *headers], breakdown(outcomes, key, order)))
    scenario_rows = []
    for scenario in SCENARIOS:
        row: list[Any] = [scenario.key, len(scenario.questions)]
        for mode in MODES:
            group = [o for o in by_mode[mode] if o.scenario == scenario.key]
            row.append(sum(o.fully_right for o in group))
        scenario_rows.append(row)
    print(
        common.table("Fully right questions per scenario", ["scenario", "n", *MODES], scenario_rows)
    )
    with_graph = overall[MODES[1]][1]
    gain = with_graph - overall[MODES[0]][1]
    print(
        common.table(
            "Targets",
            ["figure", "value", "target", "status"],
            [
                [
                    "fully right, with graph",
                    with_graph,
                    f">= {TARGET_FULLY_RIGHT}",
                    common.verdict(with_graph, TARGET_FULLY_RIGHT),
                ],
                [
                    "fully right, with - without",
                    gain,
                    f">= {TARGET_GAIN}",
                    common.verdict(gain, TARGET_GAIN),
                ],
            ],
        )
    )
    for mode in MODES:
        failures = [o for o in by_mode[mode] if not o.fully_right]
        if failures:
            # Taken in turn from each language, so that the few shown are not all English.
            groups = [[o for o in failures if o.question.language == lang] for lang in LANGUAGES]
            ordered = [o for row in itertools.zip_longest(*groups) for o in row if o]
            shown = ordered[:FAILURES_SHOWN]
            lines = [f"\n{mode}: {len(failures)} questions not fully right; first {len(shown)}:"]
            print("\n".join(lines + [describe_failure(o) for o in shown]), file=sys.stderr)


def main() -> None:
    errors = check(SCENARIOS)
    if "--check" in sys.argv[1:]:
        print(summary(SCENARIOS))
        print("\n".join(errors) if errors else "checks: ok")
        sys.exit(1 if errors else 0)
    assert not errors, "the graph set has errors:\n" + "\n".join(errors)
    common.log(summary(SCENARIOS))

    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database(heap="1g", pagecache="512m") as database:
        outcomes = asyncio.run(run(database.uri, embedder))
    report(outcomes)


if __name__ == "__main__":
    main()
