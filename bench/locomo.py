"""LoCoMo: evidence recall of retrieve on long real conversations no one here wrote.

The development half of LoCoMo (Maharana et al., ACL 2024; `../shared/datasets/locomo/`, see
its README): five long conversations between two people, about 2,760 turns, and questions
labelled with the turns that hold their answer. Each turn is stored through the API as one
memory, `"<session date>: <speaker>: <text>"` plus `[shares image: <caption>]` when the turn
shares one, with one session id per session, `observed_at` the session's time and the turn's
`dia_id` in `extra_metadata` (to map results back); one user per conversation, stored with
`POST /v1/memories/batch` (100 turns a call).

Every question of categories 1-4 (multi-hop, temporal, open-domain, single-hop; 5, the
adversarial ones, have no evidence) is asked with `POST /v1/memories/retrieve`
`{"query", "top_k": 10}`, and, in the same run on the same turn texts, by three baselines:
Okapi BM25 (k1 1.2, b 0.75, over the conversation's turns, split into words as the full-text
index splits them, Lucene's English stop words left out), dense cosine with the service's own
embeddings (read from the memory nodes; the query encoded by the service's embedder) and their
reciprocal-rank fusion (k 60). Figures per category and overall: recall@5 and recall@10 (the
share of a question's evidence turns in the top 5 / 10, averaged), all@10 (every evidence
turn in the top 10) and MRR@10 (of the first evidence turn); retrieve's p50 and p95 (one
request at a time, in-process app, so HTTP but no network).

Then other users add data (the labelled set of bench/retrieval_quality.py, 1,018 memories in
four users, a fresh set each run) and every question is asked again: the number of top-10
lists that changed says how much one user's ranking depends on other users' data (it should
be none).

Targets (issue 42): the service's recall@10 at least 0.05 above the fusion overall and at
least the fusion's in every category; MRR above the fusion's. Figures are reported, not
asserted.

    .venv/bin/python bench/locomo.py                 # own throwaway Neo4j, ~10 min
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/locomo.py --reuse
        # keeps its users (bench-locomo-<conversation>) between runs: stored once, asked again
    LOCOMO_PATH=/path/to/locomo10.json ...           # another file in the same format
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common
import datasets

DATA = Path(
    os.environ.get(
        "LOCOMO_PATH", common.ROOT.parent / "shared" / "datasets" / "locomo" / "locomo-dev.json"
    )
)
CATEGORIES = datasets.LOCOMO_CATEGORIES
TOP_K = 10
BATCH = 100
BM25_K1, BM25_B = 1.2, 0.75
RRF_K = 60
METHODS = ("service", "bm25", "dense", "rrf")
TARGET_GAIN = 0.05


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    content: str
    observed_at: str


@dataclass(frozen=True)
class Question:
    conversation: str
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    key: str
    turns: list[Turn]
    questions: list[Question]


def session_time(text: str) -> str:
    """ISO 8601 (UTC) of a LoCoMo session time such as '1:56 pm on 8 May, 2023'."""
    return datasets.session_time(text).isoformat()


def load(path: Path) -> list[Conversation]:
    conversations = []
    for sample in json.loads(path.read_text()):
        conversation = sample["conversation"]
        turns = []
        session = 1
        while f"session_{session}" in conversation:
            when = conversation[f"session_{session}_date_time"]
            for turn in conversation[f"session_{session}"]:
                content = f"{when}: {turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    content += f" [shares image: {turn['blip_caption']}]"
                turns.append(Turn(turn["dia_id"], session, content, session_time(when)))
            session += 1
        known = {turn.dia_id for turn in turns}
        questions = []
        for qa in sample["qa"]:
            if qa["category"] not in CATEGORIES:
                continue
            # A few labels hold two ids in one string ("D8:6; D9:17").
            evidence = (
                frozenset(part for label in qa["evidence"] for part in re.split(r"[;,\s]+", label))
                & known
            )
            if evidence:
                questions.append(
                    Question(sample["sample_id"], str(qa["question"]), qa["category"], evidence)
                )
        conversations.append(Conversation(sample["sample_id"], turns, questions))
    return conversations


# ---------------------------------------------------------------------------------------------
# Baselines (pure)


def bm25_ranking(
    documents: dict[str, list[str]], query: list[str], k1: float = BM25_K1, b: float = BM25_B
) -> list[str]:
    """Okapi BM25 (Robertson's idf with +1 inside the log, as Lucene's) of every document
    holding a query word, best first (ties by id)."""
    count = len(documents)
    average = sum(len(words) for words in documents.values()) / max(count, 1)
    frequency: Counter[str] = Counter()
    for words in documents.values():
        frequency.update(set(words))
    wanted = set(query)
    scores: dict[str, float] = {}
    for doc_id, words in documents.items():
        counts = Counter(word for word in words if word in wanted)
        if not counts:
            continue
        norm = k1 * (1 - b + b * len(words) / average)
        scores[doc_id] = sum(
            math.log(1 + (count - frequency[word] + 0.5) / (frequency[word] + 0.5))
            * tf
            * (k1 + 1)
            / (tf + norm)
            for word, tf in counts.items()
        )
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def dense_ranking(vectors: dict[str, list[float]], query: Sequence[float]) -> list[str]:
    """Every document by cosine similarity to the query (the vectors are unit length)."""
    scores = {
        doc_id: sum(a * b for a, b in zip(vector, query, strict=True))
        for doc_id, vector in vectors.items()
    }
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def rrf_ranking(rankings: Iterable[Sequence[str]], k: int = RRF_K) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] += 1.0 / (k + rank)
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


# ---------------------------------------------------------------------------------------------
# Figures (pure)


@dataclass(frozen=True)
class Answer:
    question: Question
    method: str
    ranked: list[str]  # dia_ids, best first, at most TOP_K

    def recall(self, k: int) -> float:
        return len(self.question.evidence & set(self.ranked[:k])) / len(self.question.evidence)

    @property
    def all_found(self) -> bool:
        return self.question.evidence <= set(self.ranked[:TOP_K])

    @property
    def reciprocal_rank(self) -> float:
        for rank, dia_id in enumerate(self.ranked[:TOP_K], start=1):
            if dia_id in self.question.evidence:
                return 1.0 / rank
        return 0.0


def figures(answers: Sequence[Answer]) -> tuple[float, float, float, float]:
    """recall@5, recall@10, all@10, MRR@10, averaged."""
    if not answers:
        return (math.nan,) * 4
    count = len(answers)
    return (
        sum(a.recall(5) for a in answers) / count,
        sum(a.recall(10) for a in answers) / count,
        sum(a.all_found for a in answers) / count,
        sum(a.reciprocal_rank for a in answers) / count,
    )


# ---------------------------------------------------------------------------------------------
# The service


def stored_list(body: Any) -> list[dict[str, Any]]:
    """The memories a batch store answered: a plain array, or {"memories": [...]}."""
    return body if isinstance(body, list) else body["memories"]


async def store(client: Any, user_id: str, turns: Sequence[Turn]) -> None:
    for start in range(0, len(turns), BATCH):
        chunk = turns[start : start + BATCH]
        body = {
            "memories": [
                {
                    "content": turn.content,
                    "session_id": f"session-{turn.session}",
                    "observed_at": turn.observed_at,
                    "extra_metadata": {"dia_id": turn.dia_id},
                }
                for turn in chunk
            ]
        }
        response = await client.post(
            "/v1/memories/batch", json=body, headers=common.master_headers(user_id)
        )
        assert response.status_code == 201, await response.get_data(as_text=True)
        assert len(stored_list(await response.get_json())) == len(chunk)


async def ask(client: Any, user_id: str, question: Question) -> tuple[list[str], float]:
    started = time.perf_counter()
    response = await client.post(
        "/v1/memories/retrieve",
        json={"query": question.text, "top_k": TOP_K},
        headers=common.master_headers(user_id),
    )
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, await response.get_data(as_text=True)
    rows = await response.get_json()
    return [str(row["extra_metadata"].get("dia_id", "?")) for row in rows], elapsed


def embeddings(db: Any, user_id: str) -> dict[str, list[float]]:
    """The user's memories' embeddings as the service stored them, by dia_id."""
    records, _, _ = db.execute_query(
        "MATCH (m:Memory {user_id: $user_id}) WHERE m.is_active AND m.branch = 'main' "
        "RETURN m.meta_dia_id AS dia_id, toFloatList(m.embedding) AS vector",
        user_id=user_id,
    )
    return {record["dia_id"]: record["vector"] for record in records}


async def other_users_add_data(client: Any, run_id: str) -> int:
    """Stores the labelled set of retrieval_quality.py as four fresh users; how many memories."""
    from data.quality_set import build

    dataset = build()
    stored = 0
    for world in dataset.worlds:
        user_id = f"bench-locomo-others-{world}-{run_id}"
        memories = [m for m in dataset.memories if m.world == world]
        for start in range(0, len(memories), BATCH):
            chunk = memories[start : start + BATCH]
            items = [{"content": m.content, "memory_type": m.memory_type} for m in chunk]
            body = {"memories": items}
            response = await client.post(
                "/v1/memories/batch", json=body, headers=common.master_headers(user_id)
            )
            assert response.status_code == 201, await response.get_data(as_text=True)
            stored += len(chunk)
    return stored


async def run(
    uri: str, embedder: Any, conversations: list[Conversation], reuse: bool
) -> tuple[list[Answer], list[float], int, int]:
    from app.services.retrieval.query_text import LUCENE_STOP_WORDS, words

    run_id = "reuse" if reuse else uuid.uuid4().hex[:8]
    db = common.driver(uri)
    answers: list[Answer] = []
    latencies: list[float] = []
    first: dict[tuple[str, str], list[str]] = {}
    async with common.in_process_client(uri, embedder) as client:
        users = {c.key: f"bench-locomo-{c.key}-{run_id}" for c in conversations}
        started = time.perf_counter()
        for conversation in conversations:
            user_id = users[conversation.key]
            have = len(embeddings(db, user_id)) if reuse else 0
            if have == len(conversation.turns):
                common.log(f"{conversation.key}: {have} turns stored before (--reuse)")
                continue
            if have:
                raise SystemExit(f"{user_id} holds {have} memories, not {len(conversation.turns)}")
            await store(client, user_id, conversation.turns)
            common.log(f"{conversation.key}: stored {len(conversation.turns)} turns")
        turns = sum(len(c.turns) for c in conversations)
        common.log(f"{turns} turns ready in {time.perf_counter() - started:.1f}s")

        # Warm-up: the first retrieves of a fresh app plan their queries.
        for conversation in conversations[:1]:
            for question in conversation.questions[:5]:
                await ask(client, users[conversation.key], question)

        started = time.perf_counter()
        for conversation in conversations:
            user_id = users[conversation.key]
            texts = {turn.dia_id: turn.content for turn in conversation.turns}
            tokens = {
                dia_id: [w for w in words(text) if w not in LUCENE_STOP_WORDS]
                for dia_id, text in texts.items()
            }
            vectors = embeddings(db, user_id)
            for question in conversation.questions:
                ranked, elapsed = await ask(client, user_id, question)
                latencies.append(elapsed)
                first[(conversation.key, question.text)] = ranked
                query_words = [w for w in words(question.text) if w not in LUCENE_STOP_WORDS]
                bm25 = bm25_ranking(tokens, query_words)
                dense = dense_ranking(vectors, await embedder.encode_query(question.text))
                rankings = {
                    "service": ranked,
                    "bm25": bm25,
                    "dense": dense,
                    "rrf": rrf_ranking([bm25, dense]),
                }
                answers.extend(
                    Answer(question, method, ranking[:TOP_K])
                    for method, ranking in rankings.items()
                )
        common.log(f"asked {len(first)} questions in {time.perf_counter() - started:.1f}s")

        added = await other_users_add_data(client, uuid.uuid4().hex[:8])
        common.log(f"other users stored {added} memories; asking again")
        changed = 0
        for conversation in conversations:
            for question in conversation.questions:
                ranked, _ = await ask(client, users[conversation.key], question)
                changed += ranked != first[(conversation.key, question.text)]
    db.close()
    return answers, latencies, changed, added


def report(answers: list[Answer], latencies: list[float], changed: int, added: int) -> None:
    by_method: dict[str, list[Answer]] = defaultdict(list)
    for answer in answers:
        by_method[answer.method].append(answer)
    questions = len(by_method["service"])
    counts = Counter(a.question.category for a in by_method["service"])
    for index, name in enumerate(("recall@5", "recall@10", "all@10", "MRR@10")):
        rows = []
        for method in METHODS:
            row: list[Any] = [method, figures(by_method[method])[index]]
            for category in CATEGORIES:
                chosen = [a for a in by_method[method] if a.question.category == category]
                row.append(figures(chosen)[index])
            rows.append(row)
        headers = ["method", "overall", *(f"{CATEGORIES[c]} ({counts[c]})" for c in CATEGORIES)]
        print(common.table(f"{name}, {questions} questions (categories 1-4)", headers, rows))

    service, rrf = by_method["service"], by_method["rrf"]
    rows = [
        [
            "recall@10 overall - rrf",
            figures(service)[1] - figures(rrf)[1],
            TARGET_GAIN,
            common.verdict(figures(service)[1] - figures(rrf)[1], TARGET_GAIN),
        ],
        [
            "MRR@10 overall - rrf",
            figures(service)[3] - figures(rrf)[3],
            "> 0",
            common.verdict(figures(service)[3] - figures(rrf)[3], 1e-9),
        ],
    ]
    for category, name in CATEGORIES.items():
        mine = figures([a for a in service if a.question.category == category])[1]
        theirs = figures([a for a in rrf if a.question.category == category])[1]
        gain = mine - theirs
        rows.append([f"recall@10 {name} - rrf", gain, ">= 0", common.verdict(gain, 0)])
    print(common.table("Targets", ["figure", "value", "target", "verdict"], rows))
    print(
        common.table(
            "Retrieve latency (ms, one request at a time, in-process)",
            ["requests", "p50", "p95"],
            [
                [
                    len(latencies),
                    common.percentile(latencies, 50) * 1000,
                    common.percentile(latencies, 95) * 1000,
                ]
            ],
        )
    )
    print(
        f"\nother users added {added} memories: {changed} of {questions} top-10 lists changed "
        f"({questions - changed} unchanged)"
    )
    print(common.code_state())
    print(common.load_line("at the end"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", action="store_true", help="keep the users between runs")
    args = parser.parse_args()
    conversations = load(DATA)
    common.log(
        f"{len(conversations)} conversations, {sum(len(c.turns) for c in conversations)} turns, "
        f"{sum(len(c.questions) for c in conversations)} questions (categories 1-4)"
    )

    common.log("loading the embedding model")
    embedder = common.embedder()
    with common.neo4j_database(heap="1g", pagecache="512m") as database:
        if args.reuse and database.owned:
            common.log("--reuse needs NEO4J_URI: a throwaway database keeps nothing")
        answers, latencies, changed, added = asyncio.run(
            run(database.uri, embedder, conversations, args.reuse)
        )
    report(answers, latencies, changed, added)


if __name__ == "__main__":
    main()
