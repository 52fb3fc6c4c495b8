"""graph_stage: how memories reached through the entity graph score against the first stage."""

from __future__ import annotations

import pytest

from app.services.retrieval.config import GraphConfig
from app.services.retrieval.graph_stage import GraphPath, score

CONFIG = GraphConfig()
BEST = 0.8  # the best first-stage relevance

# "Does anything Maria owns depend on a library with a known hole?", answered by a chain of four
# memories: Maria leads the billing team, which owns invoice-api, which uses lodash 4.17.15, which
# has CVE-2020-8203. The standup memory shares the billing team and answers nothing.
CHAIN = GraphPath(
    seed="maria",
    seed_memory=None,
    steps=(
        "maria",
        "m-leads",
        "billing team",
        "m-owns",
        "invoice api",
        "m-uses",
        "lodash 4.17.15",
        "m-cve",
        "cve 2020 8203",
    ),
    memories=("m-leads", "m-owns", "m-uses", "m-cve"),
)
DEAD_END = GraphPath(
    seed="maria",
    seed_memory=None,
    steps=("maria", "m-leads", "billing team", "m-standup"),
    memories=("m-leads", "m-standup"),
)
SIMILARITY = {"m-leads": 0.2, "m-owns": 0.2, "m-uses": 0.35, "m-cve": 0.4, "m-standup": 0.05}


def _path(*memories: str, seed_memory: str | None = None) -> GraphPath:
    return GraphPath(seed="maria", seed_memory=seed_memory, steps=("maria",), memories=memories)


def test_a_chain_that_answers_rises_above_a_dead_end() -> None:
    hits = score([CHAIN, DEAD_END], SIMILARITY, {}, BEST, CONFIG)
    assert set(hits) == {"m-leads", "m-owns", "m-uses", "m-cve", "m-standup"}
    for memory_id in CHAIN.memories:
        assert hits[memory_id].score > hits["m-standup"].score
        assert hits[memory_id].path == CHAIN
        assert hits[memory_id].score == pytest.approx(BEST * CONFIG.hop_decay**3)
    assert hits["m-standup"].path == DEAD_END
    assert hits["m-standup"].score < 0.01 * BEST


def test_a_memory_keeps_the_best_path_it_lies_on() -> None:
    hits = score([DEAD_END, CHAIN], SIMILARITY, {}, BEST, CONFIG)
    assert hits["m-leads"].path == CHAIN  # whichever order the paths come in


def test_a_path_to_a_memory_that_denies_a_link_counts_for_nothing() -> None:
    # "lodash 4.17.15 has nothing to do with payment-gateway", reached through lodash.
    denial = GraphPath(
        seed="maria",
        seed_memory=None,
        steps=(*CHAIN.steps[:7], "m-denial"),
        memories=("m-leads", "m-owns", "m-uses", "m-denial"),
    )
    # Closer to the question than the CVE, the denial's path would be the best one.
    similarity = {**SIMILARITY, "m-denial": 0.9}
    hits = score([CHAIN, denial], similarity, {}, BEST, CONFIG, frozenset({"m-denial"}))
    assert set(hits) == set(CHAIN.memories)
    assert hits["m-cve"].score == pytest.approx(BEST * CONFIG.hop_decay**3)


def test_a_memory_that_denies_a_link_still_carries_a_path_beyond_it() -> None:
    # "invoice-api does not use moment-js any more, but pins lodash 4.17.15."
    hits = score([CHAIN], SIMILARITY, {}, BEST, CONFIG, frozenset({"m-uses"}))
    assert set(hits) == set(CHAIN.memories)
    assert hits["m-uses"].score == hits["m-cve"].score


def test_nothing_scores_above_the_best_first_stage_relevance() -> None:
    paths = [
        CHAIN,
        DEAD_END,
        _path("m-cve"),
        _path("m-uses", "m-cve"),
        _path("m-top", "m-cve", seed_memory="m-top"),
    ]
    similarity = {**SIMILARITY, "m-top": 0.9}
    hits = score(paths, similarity, {"m-top": 1.0}, BEST, CONFIG)
    assert hits
    assert all(hit.score <= BEST for hit in hits.values())


def test_a_longer_path_decays_per_memory() -> None:
    hits = score(
        [_path("m-one"), _path("m-a", "m-b", "m-c")],
        {"m-one": 0.6, "m-a": 0.2, "m-b": 0.2, "m-c": 0.2},  # equal coverage
        {},
        BEST,
        CONFIG,
    )
    assert hits["m-one"].score == pytest.approx(BEST)
    for memory_id in ("m-a", "m-b", "m-c"):
        assert hits[memory_id].score == pytest.approx(BEST * CONFIG.hop_decay**2)


def test_the_decay_follows_the_configuration() -> None:
    config = GraphConfig(hop_decay=0.5)
    hits = score([_path("m-a", "m-b")], {"m-a": 0.3, "m-b": 0.3}, {}, BEST, config)
    assert hits["m-a"].score == pytest.approx(BEST * 0.5)


def test_a_weaker_path_falls_behind_by_its_share_of_the_best_coverage() -> None:
    similarity = {"m-strong": 0.6, "m-weak": 0.3}
    hits = score([_path("m-strong"), _path("m-weak")], similarity, {}, 1.0, CONFIG)
    assert hits["m-strong"].score == pytest.approx(1.0)
    assert hits["m-weak"].score == pytest.approx(0.5**CONFIG.sharpness)


def test_a_path_seeded_by_a_first_stage_memory_does_not_credit_that_memory() -> None:
    seeded = _path("m-top", "m-reached", seed_memory="m-top")
    hits = score([seeded], {"m-top": 0.5, "m-reached": 0.5}, {"m-top": 0.8}, BEST, CONFIG)
    assert set(hits) == {"m-reached"}
    expected = BEST * CONFIG.memory_seed_weight * 0.8 * CONFIG.hop_decay
    assert hits["m-reached"].score == pytest.approx(expected)
    assert hits["m-reached"].path == seeded


def test_a_seeded_path_follows_the_seed_weight_and_strength() -> None:
    seeded = _path("m-top", "m-reached", seed_memory="m-top")
    similarity = {"m-top": 0.5, "m-reached": 0.5}
    config = GraphConfig(memory_seed_weight=0.25)
    strong = score([seeded], similarity, {"m-top": 1.0}, BEST, config)["m-reached"].score
    weak = score([seeded], similarity, {"m-top": 0.5}, BEST, config)["m-reached"].score
    assert strong == pytest.approx(BEST * 0.25 * CONFIG.hop_decay)
    assert weak == pytest.approx(strong / 2)


def test_the_query_own_seed_outweighs_a_memory_seed_of_equal_coverage() -> None:
    own = _path("m-a", "m-b")
    seeded = _path("m-top", "m-c", seed_memory="m-top")
    similarity = {"m-a": 0.3, "m-b": 0.3, "m-top": 0.3, "m-c": 0.3}
    hits = score([own, seeded], similarity, {"m-top": 1.0}, BEST, CONFIG)
    assert hits["m-a"].score > hits["m-c"].score


def test_no_paths_score_nothing() -> None:
    assert score([], SIMILARITY, {}, BEST, CONFIG) == {}
    assert score([_path()], SIMILARITY, {}, BEST, CONFIG) == {}


def test_paths_that_cover_nothing_score_nothing() -> None:
    negative = {memory_id: -0.3 for memory_id in SIMILARITY}
    assert score([CHAIN, DEAD_END], negative, {}, BEST, CONFIG) == {}
    assert score([CHAIN], {}, {}, BEST, CONFIG) == {}


def test_no_first_stage_relevance_scores_nothing() -> None:
    assert score([CHAIN], SIMILARITY, {}, 0.0, CONFIG) == {}


def test_a_negative_similarity_does_not_lower_its_path() -> None:
    hits = score(
        [_path("m-a", "m-bad"), _path("m-b", "m-neutral")],
        {"m-a": 0.4, "m-bad": -0.9, "m-b": 0.4, "m-neutral": 0.0},
        {},
        BEST,
        CONFIG,
    )
    assert hits["m-a"].score == pytest.approx(hits["m-b"].score)
