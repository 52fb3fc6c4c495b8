"""Feedback moves ranking end to end, through the HTTP API, by the spec's factors.

Three memories with identical content (different subjects, so none is a duplicate) are equally
relevant to a query. `useful` signals on one and `wrong` signals on another change their
retrieval scores relative to the untouched one by the spec's factors: 3 useful → 1.3 and
2 wrong → 0.9 at feedback_weight 0.1; 1.9 and 0.7 at 0.3.
"""

from __future__ import annotations

from typing import Any

import pytest
from quart.typing import TestClientProtocol

from tests.conftest import User
from tests.support.feedback import give_feedback
from tests.support.memories import store

CONTENT = "The quarterly report is due on the first Monday of April"
QUERY = "when is the quarterly report due"


async def _search(client: TestClientProtocol, user: User) -> list[dict[str, Any]]:
    response = await client.post(
        "/v1/memories/search", json={"query": QUERY, "min_score": 0}, headers=user.headers
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    results: list[dict[str, Any]] = await response.get_json()
    return results


async def _set_weight(client: TestClientProtocol, user: User, weight: float) -> None:
    response = await client.post(
        "/v1/retrieval-params/tune", json={"feedback_weight": weight}, headers=user.headers
    )
    assert response.status_code == 200, await response.get_data(as_text=True)


async def test_feedback_scales_retrieval_scores_by_the_spec_factors(
    client: TestClientProtocol, user: User
) -> None:
    liked = await store(client, user.headers, CONTENT, subject_id="liked")
    neutral = await store(client, user.headers, CONTENT, subject_id="neutral")
    disliked = await store(client, user.headers, CONTENT, subject_id="disliked")

    # Before any feedback the three are equally relevant.
    before = {m["memory_id"]: m["retrieval_score"] for m in await _search(client, user)}
    assert len(before) == 3
    assert before[liked["memory_id"]] == pytest.approx(before[neutral["memory_id"]], rel=1e-3)
    assert before[disliked["memory_id"]] == pytest.approx(before[neutral["memory_id"]], rel=1e-3)

    await give_feedback(client, user.headers, liked["memory_id"], "useful", 3)
    await give_feedback(client, user.headers, disliked["memory_id"], "wrong", 2)

    for weight, up, down in ((0.1, 1.3, 0.9), (0.3, 1.9, 0.7)):
        await _set_weight(client, user, weight)
        results = await _search(client, user)
        scores = {m["memory_id"]: m["retrieval_score"] for m in results}
        base = scores[neutral["memory_id"]]
        assert scores[liked["memory_id"]] / base == pytest.approx(up, abs=0.01)
        assert scores[disliked["memory_id"]] / base == pytest.approx(down, abs=0.01)
        assert [m["memory_id"] for m in results] == [
            liked["memory_id"],
            neutral["memory_id"],
            disliked["memory_id"],
        ]
        assert results[0]["feedback"]["useful"] == 3
        assert results[2]["feedback"]["wrong"] == 2


async def test_the_useful_one_of_two_equal_memories_ranks_first(
    client: TestClientProtocol, user: User
) -> None:
    first = await store(client, user.headers, CONTENT, subject_id="a")
    second = await store(client, user.headers, CONTENT, subject_id="b")
    # Whichever ranks second now gets the useful signals, so the change cannot be a tie-break.
    order = [m["memory_id"] for m in await _search(client, user)]
    assert set(order) == {first["memory_id"], second["memory_id"]}
    underdog = order[1]
    await give_feedback(client, user.headers, underdog, "useful", 3)
    results = await _search(client, user)
    assert results[0]["memory_id"] == underdog
    assert results[0]["retrieval_score"] / results[1]["retrieval_score"] == pytest.approx(
        1.3, abs=0.01
    )
