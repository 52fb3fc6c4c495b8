"""The second retrieval stage as pure functions: word specificity, lexical share, the fusion of
the two halves, feedback, trust, recency, ordering, floor, session."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from app.services.retrieval.config import DEFAULT, Features, Floor, Fusion, RetrievalConfig
from app.services.retrieval.pipeline import text_ranks
from app.services.retrieval.ranking import (
    feedback_multiplier,
    fusion_parts,
    lexical,
    lexical_shares,
    rank,
    recency,
    relevance,
    relevances,
    text_rank_part,
    trust,
    word_weights,
)
from tests.support.candidates import candidate

FUSION = Fusion(vector_weight=0.7, text_rank_share=0.5, text_rank_scale=10.0)


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


def test_a_word_every_candidate_holds_weighs_least() -> None:
    pool = [frozenset({"caroline", "museum"}), frozenset({"caroline"}), frozenset({"caroline"})]
    weights = word_weights({"caroline", "museum", "absent"}, pool)
    assert weights["caroline"] < weights["museum"] < weights["absent"]
    assert weights["caroline"] == pytest.approx(math.log(1 + 0.5 / 3.5))
    assert weights["museum"] == pytest.approx(math.log(1 + 2.5 / 1.5))


def test_the_lexical_share_weighs_each_query_word_by_its_specificity() -> None:
    weights = {"caroline": 0.1, "museum": 0.9}
    assert lexical(weights, frozenset({"caroline", "museum", "went"})) == pytest.approx(1.0)
    assert lexical(weights, frozenset({"museum"})) == pytest.approx(0.9)
    assert lexical(weights, frozenset({"caroline"})) == pytest.approx(0.1)
    assert lexical({}, frozenset({"museum"})) == 0.0
    assert lexical({"the": 0.0}, frozenset({"the"})) == 0.0


def test_a_short_turn_that_repeats_the_speakers_name_gains_nothing_from_it() -> None:
    # Every turn names the speaker; only one says where she went.
    turns = [
        candidate("a-short", 0.30, words=frozenset({"caroline", "cool"})),
        candidate("b-answer", 0.30, words=frozenset({"caroline", "moved", "sweden"})),
        *(candidate(f"c-{i}", 0.1, words=frozenset({"caroline", f"w{i}"})) for i in range(8)),
    ]
    shares = lexical_shares(turns, frozenset({"caroline", "moved"}))
    assert shares["b-answer"] == pytest.approx(1.0)
    assert shares["a-short"] < 0.1
    ranked = rank(turns, frozenset({"caroline", "moved"}), feedback_weight=0.1,
                  session_boost=False, top_k=3)  # fmt: skip
    assert ranked[0].memory_id == "b-answer"


@pytest.mark.parametrize(("position", "expected"), [(None, 0.0), (1, 1.0), (11, 0.5), (31, 0.25)])
def test_a_full_text_rank_is_worth_scale_over_scale_plus_rank(
    position: int | None, expected: float
) -> None:
    assert text_rank_part(position, 10.0) == pytest.approx(expected)


def test_fusion_mixes_cosine_and_the_rank_scaled_lexical_share() -> None:
    assert fusion_parts(0.8, 0.0, None, FUSION) == pytest.approx({"vector": 0.56, "text": 0.0})
    # A lexical share without a full-text hit keeps (1 - text_rank_share) of it.
    assert fusion_parts(0.0, 1.0, None, FUSION)["text"] == pytest.approx(0.3 * 0.5)
    assert fusion_parts(0.0, 1.0, 1, FUSION)["text"] == pytest.approx(0.3)
    assert fusion_parts(0.0, 1.0, 11, FUSION)["text"] == pytest.approx(0.3 * 0.75)
    assert relevance(0.5, 1.0, 1, FUSION) == pytest.approx(0.7 * 0.5 + 0.3)
    assert relevance(-0.4, 0.0, None, FUSION) == 0.0  # opposite meaning counts as unrelated


def test_a_full_text_hit_has_its_cosine_too() -> None:
    # The best full-text hit of a question with a middling cosine beats a vector hit of the
    # same cosine that holds none of its words.
    words = frozenset({"melanie", "museum"})
    text_hit = candidate("b-text", 0.35, words=words, text_rank=1)
    vector_hit = candidate("a-vector", 0.35, words=frozenset({"melanie"}))
    found = relevances([vector_hit, text_hit], frozenset({"melanie", "museum"}), FUSION)
    assert found["b-text"] > found["a-vector"] > FUSION.vector_weight * 0.35


def test_relevance_does_not_depend_on_engine_scores() -> None:
    # Two users' lists with the same ranks and words rank alike whatever the engine scored.
    hits = [
        candidate("a", 0.2, words=frozenset({"tennis"}), text_rank=1),
        candidate("b", 0.3, words=frozenset({"tennis"}), text_rank=2),
    ]
    assert relevances(hits, frozenset({"tennis"})) == relevances(list(hits), frozenset({"tennis"}))


def test_rank_orders_by_score_then_memory_id_and_cuts_top_k() -> None:
    candidates = [
        candidate("c", 0.5),
        candidate("a", 0.9),
        candidate("d", 0.5),
        candidate("b", 0.7),
    ]
    query: frozenset[str] = frozenset()
    ranked = rank(candidates, query, feedback_weight=0.1, session_boost=False, top_k=10)
    assert [item.memory_id for item in ranked] == ["a", "b", "c", "d"]
    assert [item.score for item in ranked] == sorted((item.score for item in ranked), reverse=True)
    top = rank(candidates, query, feedback_weight=0.1, session_boost=False, top_k=2)
    assert [item.memory_id for item in top] == ["a", "b"]
    assert rank([], query, feedback_weight=0.1, session_boost=True, top_k=5) == []


def test_score_is_the_product_of_its_components() -> None:
    fresh = candidate(
        "a", 0.6, words=frozenset({"tennis"}), text_rank=1, useful=3, confidence=0.5, age_days=0.0
    )
    [scored] = rank(
        [fresh], frozenset({"tennis"}), feedback_weight=0.1, session_boost=False, top_k=1
    )
    parts = scored.components
    weight = DEFAULT.fusion.vector_weight  # the best full-text hit holds every query word
    assert parts["relevance"] == pytest.approx(weight * 0.6 + (1 - weight))
    assert parts["feedback"] == pytest.approx(1.3)
    assert parts["confidence"] == pytest.approx(0.75 + 0.25 * 0.5)
    assert parts["recency"] == pytest.approx(1.05)
    assert parts["session"] == 1.0
    assert scored.score == pytest.approx(math.prod(parts.values()))
    assert scored.relevance_parts["vector"] + scored.relevance_parts["text"] == pytest.approx(
        parts["relevance"]
    )
    assert scored.relevance_parts["lexical"] == pytest.approx(1.0)


def test_trust_and_recency_follow_their_features() -> None:
    features = Features(confidence_floor=0.5, recency_bonus=0.2, recency_days=10.0)
    assert trust(0.0, features) == pytest.approx(0.5)
    assert trust(1.0, features) == pytest.approx(1.0)
    assert recency(0.0, features) == pytest.approx(1.2)
    assert recency(10.0, features) == pytest.approx(1.0 + 0.2 / math.e)


def test_top_k_is_filled_by_default_and_min_score_sets_a_floor() -> None:
    candidates = [candidate("strong", 0.8), candidate("close", 0.5), candidate("weak", 0.3)]
    query: frozenset[str] = frozenset()
    filled = rank(candidates, query, feedback_weight=0.1, session_boost=False, top_k=10)
    assert [item.memory_id for item in filled] == ["strong", "close", "weak"]
    strict = rank(
        candidates, query, feedback_weight=0.1, session_boost=False, top_k=10, min_score=0.3
    )
    assert [item.memory_id for item in strict] == ["strong"]
    # A recipe with a relative floor drops what falls under that share of the best score.
    precise = RetrievalConfig(floor=Floor(relative=0.5))
    floored = rank(
        candidates, query, feedback_weight=0.1, session_boost=False, top_k=10, config=precise
    )
    assert [item.memory_id for item in floored] == ["strong", "close"]  # 0.3 < half of 0.8
    # Nothing related at all: no results rather than noise, unless min_score is 0.
    unrelated = [candidate("x", -0.2), candidate("y", 0.0)]
    assert rank(unrelated, query, feedback_weight=0.1, session_boost=False, top_k=5) == []
    kept = rank(unrelated, query, feedback_weight=0.1, session_boost=False, top_k=5, min_score=0)
    assert len(kept) == 2


def test_session_boost_applies_only_when_asked_and_only_to_the_session() -> None:
    other = candidate("a-other", 0.6)
    mine = candidate("b-mine", 0.6, same_session=True)
    query: frozenset[str] = frozenset()
    boosted = rank([other, mine], query, feedback_weight=0.1, session_boost=True, top_k=2)
    assert [item.memory_id for item in boosted] == ["b-mine", "a-other"]
    assert boosted[0].components["session"] == DEFAULT.features.session_boost
    assert boosted[1].components["session"] == 1.0
    assert boosted[0].score == pytest.approx(boosted[1].score * boosted[0].components["session"])

    plain = rank([other, mine], query, feedback_weight=0.1, session_boost=False, top_k=2)
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
        [base, *variants.values()], frozenset(), feedback_weight=0.1, session_boost=False, top_k=5
    )
    order = [item.memory_id for item in ranked]
    assert order == ["useful", "fresh", "m", "wrong", "doubtful"]
    by_id = {item.memory_id: item.score for item in ranked}
    assert by_id["useful"] / by_id["m"] == pytest.approx(1.3)
    assert by_id["wrong"] / by_id["m"] == pytest.approx(0.9)


def test_contradicted_and_denied_memories_fall_behind_equally_relevant_ones() -> None:
    plain = candidate("plain", 0.6)
    denied = replace(plain, memory_id="denied", denied=True)
    contradicted = replace(plain, memory_id="contradicted", contradicted=True)
    features = Features(denied=0.5, contradicted=0.8)
    ranked = rank(
        [denied, contradicted, plain],
        frozenset(),
        feedback_weight=0.1,
        session_boost=False,
        top_k=5,
        config=RetrievalConfig(features=features),
    )
    assert [item.memory_id for item in ranked] == ["plain", "contradicted", "denied"]
    assert ranked[1].components["contradiction"] == 0.8
    assert ranked[2].components["denial"] == 0.5


def test_a_graph_score_above_the_first_stage_sets_the_relevance() -> None:
    reached = candidate("reached", 0.1, graph=0.5)
    [scored] = rank([reached], frozenset(), feedback_weight=0.1, session_boost=False, top_k=1)
    assert scored.components["relevance"] == pytest.approx(0.5)
    assert scored.relevance_parts["graph"] == 0.5


def test_a_chain_from_the_questions_entities_cuts_what_falls_far_below_it() -> None:
    chain = [candidate("a-first", 0.2, graph=0.6), candidate("b-second", 0.1, graph=0.55)]
    padding = [candidate("c-shares-a-word", 0.4), candidate("d-unrelated", 0.1)]
    query: frozenset[str] = frozenset()
    found = rank(
        chain + padding, query, feedback_weight=0.1, session_boost=False, top_k=4, chain=True
    )
    assert [item.memory_id for item in found] == ["a-first", "b-second"]
    # Without a chain (or with the recipe that always fills), top_k is filled.
    filled = rank(chain + padding, query, feedback_weight=0.1, session_boost=False, top_k=4)
    assert len(filled) == 4


def test_full_text_ranks_are_shared_by_equal_scores() -> None:
    rows = [
        {"memory": {"memory_id": memory_id}, "text_score": text_score}
        for memory_id, text_score in (("a", 2.0), ("b", 3.5), ("c", 2.0), ("d", None), ("e", 1.0))
    ]
    assert text_ranks(rows) == {"b": 1, "a": 2, "c": 2, "e": 4}
