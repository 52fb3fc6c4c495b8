"""The second retrieval stage as a pure function: feedback multiplier, ordering, floor, session."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.services.retrieval.ranking import feedback_multiplier, rank, relevance
from tests.support.candidates import candidate


@pytest.mark.parametrize(
    ("weight", "useful", "wrong", "expected"),
    [
        (0.1, 3, 0, 1.3),
        (0.1, 0, 2, 0.9),
        (0.3, 3, 0, 1.9),
        (0.3, 0, 2, 0.7),
        (0.1, 0, 0, 1.0),
    ],
)
def test_feedback_multiplier_reproduces_the_spec(
    weight: float, useful: int, wrong: int, expected: float
) -> None:
    assert feedback_multiplier(weight, useful, 0, 0, wrong) == pytest.approx(expected)


def test_irrelevant_outdated_and_wrong_weigh_the_same() -> None:
    assert (
        feedback_multiplier(0.2, 0, 2, 0, 0)
        == feedback_multiplier(0.2, 0, 0, 2, 0)
        == feedback_multiplier(0.2, 0, 0, 0, 2)
        == pytest.approx(0.8)
    )
    assert feedback_multiplier(0.2, 2, 1, 1, 2) == pytest.approx(1.0 + 0.2 * (2 - 2))


@pytest.mark.parametrize(
    ("useful", "negative", "expected"),
    [(100, 0, 2.0), (11, 0, 2.0), (0, 100, 0.5), (0, 5, 0.5), (1000, 1000, 2.0)],
)
def test_feedback_multiplier_is_clamped(useful: int, negative: int, expected: float) -> None:
    assert feedback_multiplier(0.5, useful, negative, 0, 0) == pytest.approx(expected)


def test_relevance_mixes_cosine_and_normalised_text_score() -> None:
    assert relevance(0.8, None, 0.0, 0.0) == pytest.approx(0.7 * 0.8)
    assert relevance(None, 2.0, 4.0, 1.0) == pytest.approx(0.3 * 0.5)
    assert relevance(0.5, 4.0, 4.0, 1.0) == pytest.approx(0.7 * 0.5 + 0.3)
    assert relevance(-0.4, None, 0.0, 0.0) == 0.0  # opposite meaning counts as unrelated


def test_text_share_is_weighed_by_the_query_words_a_memory_covers() -> None:
    assert relevance(None, 4.0, 4.0, 0.25) == pytest.approx(0.3 * 0.25)
    # The best full-text hit matched one word of four; a memory with every word but a lower
    # engine score and a similar meaning comes first.
    one_word = candidate("a-one-word", 0.5, text_score=4.0, text_coverage=0.25)
    every_word = candidate("b-every-word", 0.5, text_score=3.0, text_coverage=1.0)
    ranked = rank([one_word, every_word], feedback_weight=0.1, session_boost=False, top_k=2)
    assert [item.memory_id for item in ranked] == ["b-every-word", "a-one-word"]


def test_rank_orders_by_score_then_memory_id_and_cuts_top_k() -> None:
    candidates = [
        candidate("c", 0.5),
        candidate("a", 0.9),
        candidate("d", 0.5),
        candidate("b", 0.7),
    ]
    ranked = rank(candidates, feedback_weight=0.1, session_boost=False, top_k=10, min_score=0)
    assert [item.memory_id for item in ranked] == ["a", "b", "c", "d"]
    assert [item.score for item in ranked] == sorted((item.score for item in ranked), reverse=True)
    top = rank(candidates, feedback_weight=0.1, session_boost=False, top_k=2, min_score=0)
    assert [item.memory_id for item in top] == ["a", "b"]
    assert rank([], feedback_weight=0.1, session_boost=True, top_k=5) == []


def test_score_is_the_product_of_its_components() -> None:
    fresh = candidate("a", 0.6, text_score=2.0, useful=3, confidence=0.5, age_days=0.0)
    [scored] = rank([fresh], feedback_weight=0.1, session_boost=False, top_k=1)
    parts = scored.components
    assert parts["relevance"] == pytest.approx(0.7 * 0.6 + 0.3)
    assert parts["feedback"] == pytest.approx(1.3)
    assert parts["confidence"] == pytest.approx(0.75 + 0.25 * 0.5)
    assert parts["recency"] == pytest.approx(1.05)
    assert parts["session"] == 1.0
    product = 1.0
    for value in parts.values():
        product *= value
    assert scored.score == pytest.approx(product)


def test_relevance_floor_drops_far_weaker_candidates() -> None:
    candidates = [candidate("strong", 0.8), candidate("close", 0.5), candidate("weak", 0.3)]
    floored = rank(candidates, feedback_weight=0.1, session_boost=False, top_k=10)
    assert [item.memory_id for item in floored] == ["strong", "close"]  # 0.3 < half of 0.8
    kept = rank(candidates, feedback_weight=0.1, session_boost=False, top_k=10, min_score=0)
    assert [item.memory_id for item in kept] == ["strong", "close", "weak"]
    strict = rank(candidates, feedback_weight=0.1, session_boost=False, top_k=10, min_score=0.5)
    assert [item.memory_id for item in strict] == ["strong"]
    # Nothing relevant at all: no results rather than noise, unless min_score is 0.
    unrelated = [candidate("x", -0.2), candidate("y", None)]
    assert rank(unrelated, feedback_weight=0.1, session_boost=False, top_k=5) == []
    assert len(rank(unrelated, feedback_weight=0.1, session_boost=False, top_k=5, min_score=0)) == 2


def test_session_boost_applies_only_when_asked_and_only_to_the_session() -> None:
    other = candidate("a-other", 0.6)
    mine = candidate("b-mine", 0.6, same_session=True)
    boosted = rank([other, mine], feedback_weight=0.1, session_boost=True, top_k=2)
    assert [item.memory_id for item in boosted] == ["b-mine", "a-other"]
    assert boosted[0].components["session"] > 1.0
    assert boosted[1].components["session"] == 1.0
    assert boosted[0].score == pytest.approx(boosted[1].score * boosted[0].components["session"])

    plain = rank([other, mine], feedback_weight=0.1, session_boost=False, top_k=2)
    assert [item.memory_id for item in plain] == ["a-other", "b-mine"]  # tie: memory_id
    assert plain[0].score == plain[1].score


def test_feedback_confidence_and_recency_shift_equal_relevance() -> None:
    base = candidate("m", 0.6)
    variants = {
        "useful": replace(base, memory_id="useful", useful=3),
        "wrong": replace(base, memory_id="wrong", wrong=2),
        "fresh": replace(base, memory_id="fresh", age_days=0.0),
        "doubtful": replace(base, memory_id="doubtful", confidence=0.1),
    }
    ranked = rank(
        [base, *variants.values()], feedback_weight=0.1, session_boost=False, top_k=5, min_score=0
    )
    order = [item.memory_id for item in ranked]
    assert order == ["useful", "fresh", "m", "wrong", "doubtful"]
    by_id = {item.memory_id: item.score for item in ranked}
    assert by_id["useful"] / by_id["m"] == pytest.approx(1.3)
    assert by_id["wrong"] / by_id["m"] == pytest.approx(0.9)


def test_a_denied_memory_falls_behind_an_equally_relevant_one() -> None:
    plain = candidate("plain", 0.6)
    denied = replace(plain, memory_id="denied", denied=True)
    ranked = rank([denied, plain], feedback_weight=0.1, session_boost=False, top_k=5, min_score=0)
    assert [item.memory_id for item in ranked] == ["plain", "denied"]
    assert ranked[1].components["denial"] < 1.0 == ranked[0].components["denial"]
