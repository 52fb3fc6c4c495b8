"""graph_walk: what the walk gathers for the ranking, and where the first walk starts from
(pure)."""

from __future__ import annotations

import pytest

from app.services.retrieval.config import DEFAULT
from app.services.retrieval.graph_stage import GraphHit, GraphPath
from app.services.retrieval.graph_walk import Expansion, Walk
from tests.support.candidates import candidate

PATH = GraphPath(seed="maria", seed_memory=None, steps=("maria", "m-team"), memories=("m-team",))


def test_only_a_memory_no_path_reached_is_marked_denied() -> None:
    expansion = Expansion(keys=["maria"], denied=frozenset({"m-team", "m-ledger"}))
    assert not expansion.marked(candidate("m-team", 0.5), reached=True).denied
    assert expansion.marked(candidate("m-ledger", 0.5), reached=False).denied
    assert expansion.marked(candidate("m-other", 0.5), reached=False) == candidate("m-other", 0.5)


def test_the_walks_paths_are_worth_what_the_graph_stage_scores() -> None:
    two = GraphPath("maria", None, ("maria", "m-team", "billing", "m-owns"), ("m-team", "m-owns"))
    expansion = Expansion(
        keys=["maria"],
        paths=[PATH, two],
        query_cosine={"m-team": 0.4, "m-owns": 0.5},
    )
    hits = expansion.hits(DEFAULT.graph, lambda cosine: cosine)
    assert set(hits) == {"m-team", "m-owns"}
    assert hits["m-owns"].path == two  # the chain covers more of the question than one memory
    assert 0 < hits["m-owns"].score <= 1


def test_a_models_cosine_range_does_not_change_what_the_walk_finds_worth() -> None:
    # The same cosines as a model whose unrelated texts sit near 0.8 (0.8 + 0.2 c) sees them,
    # read on the first stage's scale (its lowest candidate at 0.1, or at 0.82).
    two = GraphPath("maria", None, ("maria", "m-team", "billing", "m-owns"), ("m-team", "m-owns"))
    cosines = {"m-team": 0.4, "m-owns": 0.5}
    worth = []
    for scale in (lambda c: c, lambda c: 0.8 + 0.2 * c):
        expansion = Expansion(
            keys=["maria"],
            paths=[PATH, two],
            query_cosine={k: scale(c) for k, c in cosines.items()},
        )
        lowest = scale(0.1)
        hits = expansion.hits(DEFAULT.graph, lambda c, lowest=lowest: (c - lowest) / (1 - lowest))
        worth.append({key: hit.score for key, hit in hits.items()})
    assert worth[0] == pytest.approx(worth[1])


def test_a_chain_is_a_scored_path_of_two_memories_from_the_questions_own_entity() -> None:
    one = {"m-team": GraphHit("m-team", 0.4, PATH)}
    assert not Expansion.chain(one) and Expansion(keys=["maria"]).summary(one)["chain"] is False
    two = GraphPath("maria", None, ("maria", "m-team", "billing", "m-owns"), ("m-team", "m-owns"))
    assert Expansion.chain({"m-owns": GraphHit("m-owns", 0.3, two)})
    from_a_candidate = GraphPath("billing", "m-team", ("billing", "m-owns"), ("m-team", "m-owns"))
    assert not Expansion.chain({"m-owns": GraphHit("m-owns", 0.3, from_a_candidate)})


def _named(key: str, *aliases: str) -> dict[str, object]:
    return {"key": key, "aliases": list(aliases)}


def test_the_first_walk_starts_from_the_questions_entities_only_when_one_is_the_users() -> None:
    query = "What does the billing team own?"
    walk = Walk(keys=["maria"], names=["billing team"], query=query)
    billing = _named("billing team", "billing team")
    assert walk.first_keys(named=[billing], seeded=True) == ["maria"]
    # Maria is no entity of the user's (or a hub): the other names the user's entities hold.
    assert walk.first_keys(named=[billing], seeded=False) == ["billing team"]
    assert walk.first_keys(named=[], seeded=False) == []
    alone = Walk(keys=[], query=query)
    assert alone.first_keys(named=[billing], seeded=False) == ["billing team"]


def test_plain_words_name_an_entity_only_where_the_question_writes_them_so() -> None:
    """Memories' headings and sentence starts ("Asynchronous Operations", "Given") are entities
    too: ordinary words in a question must not walk from them."""
    walk = Walk(keys=[], query="How do I handle asynchronous operations with Redis?")
    named = [
        _named("asynchronous operations", "Asynchronous Operations"),
        _named("redis", "Redis"),
        _named("invoice api", "invoice-api"),
    ]
    assert walk.others(named) == ["redis"]
    identifiers = Walk(keys=[], query="is invoice-api down? 支付服务呢")
    assert identifiers.others([_named("invoice-api", "invoice-api"), _named("支付服务")]) == [
        "invoice-api",
        "支付服务",
    ]
