"""Fusion and the second stage as pure functions: word specificity, the two readings of the
query's words, the cosine on the pool's scale, the mix of the halves, feedback, trust, recency,
the time window, ordering, the floor and the session."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from app.services.retrieval.config import DEFAULT, Features, Floor, Fusion, RetrievalConfig
from app.services.retrieval.fusion import Scorer, lexical, text_rank_part, word_weights
from app.services.retrieval.pipeline import text_ranks
from app.services.retrieval.ranking import (
    Candidate,
    Scored,
    feedback_multiplier,
    in_window,
    rank,
    recency,
    trust,
)
from app.services.retrieval.time_window import TimeWindow
from tests.support.candidates import candidate

NO_WORDS: frozenset[str] = frozenset()
# The pool's scale from any number of candidates: these tests' pools are small on purpose.
FUSION = Fusion(scale_from=1)
CONFIG = RetrievalConfig(fusion=FUSION)


def ranked(
    candidates: list[Candidate],
    query_words: frozenset[str] = NO_WORDS,
    config: RetrievalConfig = CONFIG,
    **options: object,
) -> list[Scored]:
    """rank() as the pipeline calls it: the fusion's statistics from the same candidates."""
    scorer = Scorer(candidates, query_words, config.fusion)
    arguments: dict[str, object] = {"feedback_weight": 0.1, "session_boost": False, "top_k": 10}
    arguments.update(options)
    return rank(candidates, scorer, config=config, **arguments)  # type: ignore[arg-type]


def ids(items: list[Scored]) -> list[str]:
    return [item.memory_id for item in items]


# --- feedback, trust, recency, time ---------------------------------------------------------


@pytest.mark.parametrize(
    ("weight", "useful", "wrong", "expected"),
    [(0.1, 3, 0, 1.3), (0.1, 0, 2, 0.9), (0.3, 3, 0, 1.9), (0.3, 0, 2, 0.7), (0.1, 0, 0, 1.0)],
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


@pytest.mark.parametrize(
    ("useful", "negative", "expected"),
    [(100, 0, 2.0), (11, 0, 2.0), (0, 100, 0.5), (0, 5, 0.5), (1000, 1000, 2.0)],
)
def test_feedback_multiplier_is_clamped(useful: int, negative: int, expected: float) -> None:
    assert feedback_multiplier(0.5, useful, negative, 0, 0) == pytest.approx(expected)


def test_trust_and_recency_follow_their_features() -> None:
    features = Features(confidence_floor=0.5, recency_bonus=0.2, recency_days=10.0)
    assert trust(0.0, features) == pytest.approx(0.5)
    assert trust(1.0, features) == pytest.approx(1.0)
    assert recency(0.0, features) == pytest.approx(1.2)
    assert recency(10.0, features) == pytest.approx(1.0 + 0.2 / math.e)


def test_a_memory_observed_in_the_window_or_just_after_it_is_favoured() -> None:
    start = datetime(2023, 5, 1, tzinfo=UTC)
    window = TimeWindow(start, start + timedelta(days=31), "in May 2023")
    features = Features(in_window=1.2, window_lag_days=7.0)
    assert in_window(start + timedelta(days=3), window, features) == 1.2
    assert in_window(start + timedelta(days=36), window, features) == 1.2  # told days later
    assert in_window(start + timedelta(days=40), window, features) == 1.0
    assert in_window(start - timedelta(days=1), window, features) == 1.0
    assert in_window(None, window, features) == 1.0  # no event time: neutral
    assert in_window(start, None, features) == 1.0  # no window named: neutral


# --- the query's words ----------------------------------------------------------------------


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


def test_bm25_saturates_with_repetition_and_favours_the_shorter_memory() -> None:
    query = frozenset({"visa"})

    def memory(key: str, times: int, length: int) -> Candidate:
        return candidate(key, 0.2, words=query, frequencies={"visa": times}, length=length)

    pool = [
        memory("once-short", 1, 5),
        memory("once-long", 1, 50),
        memory("twice", 2, 5),
        memory("ten-times", 10, 5),
        candidate("none", 0.2, length=5),
    ]
    scorer = Scorer(pool, query, FUSION)
    bm25 = {c.memory_id: scorer.bm25(c) for c in pool}
    assert bm25["once-short"] > bm25["once-long"] > bm25["none"] == 0.0
    assert bm25["ten-times"] > bm25["twice"] > bm25["once-short"]
    assert bm25["ten-times"] - bm25["twice"] < bm25["twice"] - 0.0  # saturates


def test_a_short_turn_that_repeats_the_speakers_name_gains_nothing_from_it() -> None:
    # Every turn names the speaker; only one says where she went.
    query = frozenset({"caroline", "moved"})
    turns = [
        candidate(
            "a-short",
            0.30,
            words=frozenset({"caroline", "cool"}),
            length=2,
            frequencies={"caroline": 3},
        ),
        candidate(
            "b-answer",
            0.30,
            words=frozenset({"caroline", "moved", "sweden"}),
            length=3,
            frequencies={"caroline": 1, "moved": 1},
        ),
        *(
            candidate(
                f"c-{i}",
                0.1,
                words=frozenset({"caroline", f"w{i}"}),
                length=2,
                frequencies={"caroline": 1},
            )
            for i in range(8)
        ),
    ]
    scorer = Scorer(turns, query, FUSION)
    assert scorer.parts(turns[1])["lexical"] == pytest.approx(1.0)
    assert scorer.parts(turns[0])["lexical"] < 0.1
    assert ids(ranked(turns, query, top_k=3))[0] == "b-answer"


# --- meaning on the pool's scale and the mix ----------------------------------------------


def test_a_models_cosine_range_does_not_change_the_meaning_part() -> None:
    # The same neighbourhood as a model whose unrelated texts sit near 0 sees it, and as one
    # whose unrelated texts sit near 0.8 (each cosine c read as 0.8 + 0.2 c).
    near_zero = [0.2, 0.45, 0.6]
    near_high = [0.8 + 0.2 * c for c in near_zero]
    for cosines in (near_zero, near_high):
        pool = [candidate(f"m{i}", c) for i, c in enumerate(cosines)]
        scorer = Scorer(pool, NO_WORDS, FUSION)
        assert [scorer.meaning(c) for c in pool] == pytest.approx([0.0, 0.3125, 0.5])


def test_a_perfect_match_keeps_the_whole_meaning_part_and_weak_matches_stay_weak() -> None:
    weak = [candidate("a", 0.1), candidate("b", 0.3)]
    scorer = Scorer(weak, NO_WORDS, FUSION)
    assert scorer.meaning(weak[1]) == pytest.approx(0.2 / 0.9)  # not 1, as min-max would make it
    exact = candidate("c", 1.0)
    assert Scorer([*weak, exact], NO_WORDS, FUSION).meaning(exact) == 1.0


def test_a_few_candidates_keep_their_cosines() -> None:
    # A new user's two memories: neither is unrelated nor perfect for being the only ones.
    pool = [candidate("a", 0.62), candidate("b", 0.60)]
    scorer = Scorer(pool, NO_WORDS, Fusion(scale_from=10))
    assert [scorer.meaning(c) for c in pool] == pytest.approx([0.62, 0.60])
    assert Scorer(pool, NO_WORDS, FUSION).meaning(pool[1]) == 0.0  # on the pool's scale


@pytest.mark.parametrize(("position", "expected"), [(None, 0.0), (1, 1.0), (11, 0.5), (31, 0.25)])
def test_a_full_text_rank_is_worth_scale_over_scale_plus_rank(
    position: int | None, expected: float
) -> None:
    assert text_rank_part(position, 10.0) == pytest.approx(expected)


def test_fusion_mixes_meaning_and_the_rank_scaled_words_part() -> None:
    fusion = Fusion(vector_weight=0.7, text_rank_share=0.5, text_rank_scale=10.0, scale_from=1)
    query = frozenset({"tennis"})
    holder = candidate("holder", 0.6, words=query, frequencies={"tennis": 1}, length=3)
    pool = [candidate("low", 0.2), holder]
    scorer = Scorer(pool, query, fusion)
    meaning = (0.6 - 0.2) / 0.8
    # The only holder: both readings of its words are whole; without a full-text hit it keeps
    # (1 - text_rank_share) of them, at rank 1 all, at rank 11 three quarters.
    assert scorer.parts(holder) == pytest.approx(
        {"vector": 0.7 * meaning, "text": 0.3 * 0.5, "lexical": 1.0}
    )
    assert scorer.parts(replace(holder, text_rank=1))["text"] == pytest.approx(0.3)
    assert scorer.parts(replace(holder, text_rank=11))["text"] == pytest.approx(0.3 * 0.75)
    assert scorer.relevance(holder) == pytest.approx(0.7 * meaning + 0.15)
    assert scorer.parts(pool[0]) == {"vector": 0.0, "text": 0.0, "lexical": 0.0}


def test_a_query_whose_words_no_memory_holds_leans_on_meaning() -> None:
    pool = [candidate("near", 0.7), candidate("far", 0.3)]
    found = ranked(pool, frozenset({"unheard"}))
    assert ids(found) == ["near", "far"]
    assert all(item.relevance_parts["text"] == 0.0 for item in found)


def test_relevance_does_not_depend_on_engine_scores_or_candidate_order() -> None:
    hits = [
        candidate("a", 0.2, words=frozenset({"tennis"}), text_rank=1),
        candidate("b", 0.3, words=frozenset({"tennis"}), text_rank=2),
    ]
    query = frozenset({"tennis"})
    assert [(s.memory_id, s.score) for s in ranked(hits, query)] == [
        (s.memory_id, s.score) for s in ranked(hits[::-1], query)
    ]


# --- the second stage -------------------------------------------------------------------------


def test_rank_orders_by_score_then_memory_id_and_cuts_top_k() -> None:
    candidates = [
        candidate("c", 0.5),
        candidate("a", 0.9),
        candidate("d", 0.5),
        candidate("b", 0.7),
    ]
    found = ranked(candidates)
    assert ids(found) == ["a", "b", "c", "d"]
    assert [item.score for item in found] == sorted((item.score for item in found), reverse=True)
    assert ids(ranked(candidates, top_k=2)) == ["a", "b"]
    assert ranked([], session_boost=True, top_k=5) == []


def test_score_is_the_product_of_its_components() -> None:
    query = frozenset({"tennis"})
    fresh = candidate(
        "a",
        0.6,
        words=query,
        text_rank=1,
        useful=3,
        confidence=0.5,
        age_days=0.0,
        frequencies={"tennis": 1},
        length=4,
    )
    [scored, _] = ranked([fresh, candidate("z", 0.2)], query)
    parts = scored.components
    weight = DEFAULT.fusion.vector_weight  # the best full-text hit, the only one holding it
    assert parts["relevance"] == pytest.approx(weight * 0.5 + (1 - weight))
    assert parts["feedback"] == pytest.approx(1.3)
    assert parts["confidence"] == pytest.approx(0.75 + 0.25 * 0.5)
    assert parts["recency"] == pytest.approx(1.05)
    assert parts["session"] == parts["contradiction"] == parts["denial"] == parts["time"] == 1.0
    assert scored.score == pytest.approx(math.prod(parts.values()))
    made_of = scored.relevance_parts
    assert made_of["vector"] + made_of["text"] == pytest.approx(parts["relevance"])
    assert made_of["lexical"] == pytest.approx(1.0)


def test_top_k_is_filled_by_default_and_min_score_sets_a_floor() -> None:
    candidates = [candidate("strong", 0.8), candidate("close", 0.6), candidate("weak", 0.2)]
    # Every candidate relates to the query (a positive cosine), the weakest one too.
    assert ids(ranked(candidates)) == ["strong", "close", "weak"]
    assert ids(ranked(candidates, min_score=0.3)) == ["strong"]  # 0.55 * 0.75, 0.55 * 0.5
    # A recipe with a relative floor drops what falls under that share of the best score.
    precise = RetrievalConfig(fusion=FUSION, floor=Floor(relative=0.5))
    assert ids(ranked(candidates, config=precise)) == ["strong", "close"]
    # Nothing related at all: no results rather than noise, unless min_score is 0.
    unrelated = [candidate("x", -0.2), candidate("y", 0.0)]
    assert ranked(unrelated, top_k=5) == []
    assert len(ranked(unrelated, top_k=5, min_score=0)) == 2


def test_session_boost_applies_only_when_asked_and_only_to_the_session() -> None:
    pool = [
        candidate("a-other", 0.6),
        candidate("b-mine", 0.6, same_session=True),
        candidate("z", 0.1),
    ]
    boosted = ranked(pool, session_boost=True, top_k=2)
    assert ids(boosted) == ["b-mine", "a-other"]
    assert boosted[0].components["session"] == DEFAULT.features.session_boost
    assert boosted[1].components["session"] == 1.0
    assert boosted[0].score == pytest.approx(boosted[1].score * DEFAULT.features.session_boost)
    plain = ranked(pool, top_k=2)
    assert ids(plain) == ["a-other", "b-mine"]  # a tie: memory_id
    assert plain[0].score == plain[1].score


def test_feedback_confidence_and_recency_shift_equal_relevance() -> None:
    base = candidate("m", 0.6)
    variants = [
        replace(base, memory_id="useful", useful=3),
        replace(base, memory_id="wrong", wrong=2),
        replace(base, memory_id="fresh", age_days=0.0),
        replace(base, memory_id="doubtful", confidence=0.1),
    ]
    found = ranked([base, *variants, candidate("z", 0.1)], top_k=5)
    assert ids(found) == ["useful", "fresh", "m", "wrong", "doubtful"]
    by_id = {item.memory_id: item.score for item in found}
    assert by_id["useful"] / by_id["m"] == pytest.approx(1.3)
    assert by_id["wrong"] / by_id["m"] == pytest.approx(0.9)


def test_contradicted_and_denied_memories_fall_behind_equally_relevant_ones() -> None:
    plain = candidate("plain", 0.6)
    pool = [
        replace(plain, memory_id="denied", denied=True),
        replace(plain, memory_id="contradicted", contradicted=True),
        plain,
        candidate("z", 0.1),
    ]
    config = RetrievalConfig(fusion=FUSION, features=Features(denied=0.5, contradicted=0.8))
    found = ranked(pool, config=config, top_k=3)
    assert ids(found) == ["plain", "contradicted", "denied"]
    assert found[1].components["contradiction"] == 0.8
    assert found[2].components["denial"] == 0.5


def test_a_graph_worth_above_the_fused_relevance_sets_it() -> None:
    best = candidate("best", 0.9)
    reached = candidate("reached", 0.1, graph=0.5, first_stage=False)
    found = {item.memory_id: item for item in ranked([best, reached, candidate("z", 0.1)])}
    best_relevance = found["best"].components["relevance"]
    expected = 0.5 * DEFAULT.graph.weight * best_relevance
    assert found["reached"].components["relevance"] == pytest.approx(expected)
    assert found["reached"].relevance_parts["graph"] == pytest.approx(expected)


def test_what_the_graph_brings_in_never_outranks_the_first_stages_best() -> None:
    best = candidate("best", 0.9)
    reached = candidate("reached", 0.0, graph=1.0, first_stage=False)
    assert ids(ranked([best, reached, candidate("z", 0.1)]))[0] == "best"


def test_a_chain_from_the_questions_entities_cuts_what_falls_far_below_it() -> None:
    chain = [candidate("a-first", 0.7, graph=1.0), candidate("b-second", 0.65, graph=0.95)]
    padding = [candidate("c-near", 0.3), candidate("d-unrelated", 0.1)]
    assert ids(ranked(chain + padding, top_k=4, chain=True)) == ["a-first", "b-second"]
    # Without a chain (or with the recipe that always fills), top_k is filled.
    assert len(ranked(chain + padding, top_k=4)) == 4


def test_full_text_ranks_are_shared_by_equal_scores() -> None:
    rows = [
        {"memory": {"memory_id": memory_id}, "text_score": text_score}
        for memory_id, text_score in (("a", 2.0), ("b", 3.5), ("c", 2.0), ("d", None), ("e", 1.0))
    ]
    assert text_ranks(rows) == {"b": 1, "a": 2, "c": 2, "e": 4}
