"""After a rollback, retrieve, search and full-text search answer as they did at snapshot time."""

from __future__ import annotations

from typing import Any

from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.branches import create_branch
from tests.support.http import request_ok
from tests.support.memories import correct, store_batch
from tests.support.snapshots import list_snapshots, roll_back, take_snapshot

Headers = dict[str, str]

FACTS = [
    {"content": "Mia is vegetarian and avoids fish", "memory_type": "profile"},
    {"content": "Mia's favourite restaurant is a Thai place downtown", "session_id": "dinner"},
    {"content": "Mia orders green curry with tofu", "session_id": "dinner"},
    {"content": "Mia runs five kilometres every morning"},
    {"content": "Mia works as a data engineer at a bank", "memory_type": "profile"},
    {"content": "To deploy the pipeline run make deploy-prod", "memory_type": "procedural"},
    {"content": "Mia is allergic to peanuts", "memory_type": "profile"},
    {"content": "Mia visited Lisbon in spring", "session_id": "travel"},
]
QUERIES = [
    ("retrieve", {"query": "what food does Mia eat", "top_k": 5, "session_id": "dinner"}),
    ("retrieve", {"query": "Mia allergies", "top_k": 3}),
    ("search", {"query": "where does Mia like to eat dinner", "top_k": 6}),
    ("search", {"query": "Mia job", "top_k": 4, "memory_types": ["profile"]}),
    ("fulltext-search", {"query": "Mia curry"}),
    ("fulltext-search", {"query": "Mia", "limit": 5}),
]


# Scores depend on the full-text index's statistics over every memory it has held (Lucene
# counts removed entries until it merges segments), so memories that scored nearly the same may
# swap places; any clearer difference keeps its order.
NEAR_TIE = 0.02  # share of the query's best score


Answers = list[list[tuple[str, str, float]]]  # per query: (memory_id, content, score), in order


def _same_answers(mine: Answers, theirs: Answers) -> bool:
    """Every query returns the same memories, in the same order wherever their scores were not
    a near tie."""
    return len(mine) == len(theirs) and all(
        _same_results(one, other) for one, other in zip(mine, theirs, strict=True)
    )


def _same_results(mine: list[tuple[str, str, float]], theirs: list[tuple[str, str, float]]) -> bool:
    if sorted(item[:2] for item in mine) != sorted(item[:2] for item in theirs):
        return False
    place = {memory_id: index for index, (memory_id, _, _) in enumerate(theirs)}
    margin = NEAR_TIE * max((score for _, _, score in mine), default=0.0)
    return all(
        place[first[0]] < place[second[0]]
        for index, first in enumerate(mine)
        for second in mine[index + 1 :]
        if first[2] - second[2] > margin
    )


async def _answers(
    client: TestClientProtocol, headers: Headers, branch: str | None = None
) -> Answers:
    answers: Answers = []
    for mode, body in QUERIES:
        request = {**body, **({"branch": branch} if branch else {})}
        found = await request_ok(client, "POST", f"/v1/memories/{mode}", headers, json=request)
        answers.append(
            [(item["memory_id"], item["content"], item["retrieval_score"]) for item in found]
        )
    return answers


async def _change_everything(
    client: TestClientProtocol, headers: Headers, stored: list[dict[str, Any]], branch: str | None
) -> None:
    """New relevant memories, a correction, a deletion and a purge."""
    extra = {"branch": branch} if branch else {}
    query = {"branch": branch} if branch else {}
    await request_ok(
        client,
        "POST",
        "/v1/memories/batch",
        headers,
        json={
            "memories": [
                {"content": "Mia now eats fish again", "memory_type": "profile"},
                {"content": "Mia's new favourite dinner spot serves curry", "session_id": "dinner"},
                {"content": "Mia quit her job at the bank", "memory_type": "profile"},
            ],
            **extra,
        },
    )
    await correct(
        client, headers, stored[2]["memory_id"], "Mia orders red curry with chicken", **extra
    )
    await request_ok(
        client, "DELETE", f"/v1/memories/{stored[6]['memory_id']}", headers, query_string=query
    )
    await request_ok(
        client,
        "POST",
        "/v1/memories/purge",
        headers,
        json={"session_id": "travel", **extra},
    )


async def test_rollback_brings_back_the_same_answers_in_the_same_order(
    client: TestClientProtocol, user: User
) -> None:
    stored = await store_batch(client, user.headers, FACTS)
    at_snapshot = await _answers(client, user.headers)
    assert all(at_snapshot), at_snapshot  # every query found something
    await take_snapshot(client, user.headers, "before")

    await _change_everything(client, user.headers, stored, None)
    changed = await _answers(client, user.headers)
    pairs = zip(at_snapshot, changed, strict=True)
    differing = [i for i, (then, now) in enumerate(pairs) if not _same_results(then, now)]
    assert len(differing) >= 4, (at_snapshot, changed)

    await roll_back(client, user.headers, "before")
    assert _same_answers(await _answers(client, user.headers), at_snapshot)

    # The rollback is undone through its safety snapshot: the changed answers return.
    listed = await list_snapshots(client, user.headers)
    undo = next(item["name"] for item in listed if item["name"].startswith("pre_rollback_"))
    await roll_back(client, user.headers, undo)
    assert _same_answers(await _answers(client, user.headers), changed)


async def test_rollback_on_a_branch_restores_its_answers_and_leaves_main_alone(
    client: TestClientProtocol, user: User
) -> None:
    stored = await store_batch(client, user.headers, FACTS)
    await create_branch(client, user.headers, "trial")
    on_main = await _answers(client, user.headers)
    at_snapshot = await _answers(client, user.headers, "trial")
    # The branch's copies answer like main (same memories, same ids).
    assert _same_answers(at_snapshot, on_main)
    await take_snapshot(client, user.headers, "trial-0", branch="trial")
    await _change_everything(client, user.headers, stored, "trial")
    assert not _same_answers(await _answers(client, user.headers, "trial"), at_snapshot)
    assert _same_answers(await _answers(client, user.headers), on_main)

    await roll_back(client, user.headers, "trial-0")
    assert _same_answers(await _answers(client, user.headers, "trial"), at_snapshot)
    assert _same_answers(await _answers(client, user.headers), on_main)
