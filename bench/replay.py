"""What the ranking saw, kept per question, to try ranking settings offline in seconds.

bench/quality.py --capture records, for every LoCoMo and BEAM question, the service's own
gathered candidates (app.services.retrieval.pipeline.gather: the first stage's candidates with
their signals, the graph stage's reached memories, the request) beside the question's evidence;
`replayed` ranks them again with another configuration or scorer through the service's own pure
functions. The graph stage's walk is kept as it was (its seeds came from the captured
configuration), so settings of the fusion and the second stage replay exactly and those of the
walk do not.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common

from app.models.memories import RetrieveRequest
from app.registry import Registry
from app.services.retrieval import fusion, pipeline
from app.services.retrieval.config import RetrievalConfig
from app.services.scope import Caller

TOP_K = 10
ANY = "\x00any session"


@dataclass
class Case:
    dataset: str
    question: str
    category: str
    evidence: frozenset[str]
    keys: dict[str, str]  # memory_id -> the dataset's key
    gathered: pipeline.Gathered
    text_scores: dict[str, float]  # the full-text index's own scores of its hits

    def recall(self, order: Sequence[str], k: int = TOP_K) -> float:
        found = {self.keys.get(memory_id) for memory_id in order[:k]}
        return len(self.evidence & found) / len(self.evidence)


def _slim(gathered: pipeline.Gathered) -> pipeline.Gathered:
    expansion = gathered.expansion
    if expansion is not None:
        expansion = dataclasses.replace(expansion, rows=[])
    return dataclasses.replace(gathered, rows=[], profile=None, expansion=expansion)


class Recorder:
    def __init__(self, path: Path, dataset: str, registry: Registry) -> None:
        self.path = path
        self.dataset = dataset
        self.registry = registry
        self.cases: list[Case] = []
        self.same = 0  # questions whose replayed order is the service's own

    async def record(
        self, user_id: str, text: str, category: str, evidence: frozenset[str], served: list[str]
    ) -> None:
        request = RetrieveRequest(query=text, top_k=TOP_K)
        gathered = await pipeline.gather(self.registry, Caller(user_id), request, mode="retrieve")
        keys = {
            row["memory"]["memory_id"]: str(dict(row["memory"]["metadata"]).get("meta_key"))
            for row in gathered.rows
        }
        scores = {
            row["memory"]["memory_id"]: row["text_score"]
            for row in gathered.rows
            if row.get("text_score") is not None
        }
        case = Case(self.dataset, text, category, evidence, keys, _slim(gathered), scores)
        self.same += [keys[item.memory_id] for item in gathered.ranked()] == served
        self.cases.append(case)

    def save(self) -> None:
        with self.path.open("wb") as file:
            pickle.dump(self.cases, file)
        common.log(
            f"{self.path}: {len(self.cases)} questions kept; {self.same} replay the service's "
            "order exactly"
        )


@dataclass
class Call:
    """One retrieve some benchmark made through the app, as the ranking saw it."""

    user_id: str
    query: str
    graph: bool
    session_id: str | None
    gathered: pipeline.Gathered
    contents: dict[str, str]  # memory_id -> content, to judge a replayed order by

    def contents_in(self, order: Sequence[str]) -> list[str]:
        return [self.contents[memory_id] for memory_id in order]


class Tap:
    """Records every retrieve and search the in-process app makes while installed (the
    pipeline's gather wrapped), for benchmarks judged by what came back (their own runs are
    not changed)."""

    def __init__(self, calls: list[Call] | None = None) -> None:
        """A tap to install, or (with `calls`) one holding what a capture recorded."""
        self.calls: list[Call] = calls if calls is not None else []
        self._original: Any = None

    def __enter__(self) -> Tap:
        self._original = original = pipeline.gather

        async def recording(
            registry: Registry, caller: Caller, request: RetrieveRequest, *, mode: str
        ) -> pipeline.Gathered:
            gathered: pipeline.Gathered = await original(registry, caller, request, mode=mode)
            contents = {
                row["memory"]["memory_id"]: row["memory"]["content"] for row in gathered.rows
            }
            self.calls.append(
                Call(
                    caller.user_id,
                    request.query,
                    request.graph,
                    request.session_id,
                    _slim(gathered),
                    contents,
                )
            )
            return gathered

        pipeline.gather = recording  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        pipeline.gather = self._original

    def last(
        self, user_id: str, query: str, graph: bool = True, session_id: str | None = ANY
    ) -> Call:
        """The last call of the user with that query (and session, unless ANY): what a check
        read."""
        for call in reversed(self.calls):
            if (call.user_id, call.query, call.graph) == (user_id, query, graph) and (
                session_id == ANY or call.session_id == session_id
            ):
                return call
        raise KeyError((user_id, query, graph, session_id))


def save(path: Path, value: object) -> None:
    with path.open("wb") as file:
        pickle.dump(value, file)


def load_any(path: Path) -> Any:
    with path.open("rb") as file:
        return pickle.load(file)


def load(path: Path) -> list[Case]:
    with path.open("rb") as file:
        cases: list[Case] = pickle.load(file)
    return cases


def replayed(
    case: Case,
    config: RetrievalConfig | None = None,
    scorer: Callable[[pipeline.Gathered], Any] | None = None,
) -> list[str]:
    """The memory ids the ranking gives with another configuration (fusion and second stage)
    or another scorer (a callable making one from the gathered candidates)."""
    gathered = (
        case.gathered if config is None else dataclasses.replace(case.gathered, config=config)
    )
    made: fusion.Scorer | None = scorer(gathered) if scorer is not None else None
    return [item.memory_id for item in gathered.ranked(made)]
