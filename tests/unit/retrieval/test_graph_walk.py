"""graph_walk: what the walk's result does to a first-stage candidate, and where the first walk
starts from (pure)."""

from __future__ import annotations

from app.services.retrieval.graph_stage import GraphHit, GraphPath
from app.services.retrieval.graph_walk import Expansion, Walk
from tests.support.candidates import candidate

PATH = GraphPath(seed="maria", seed_memory=None, steps=("maria", "m-team"), memories=("m-team",))


def test_a_reached_memory_takes_its_graph_score_and_is_never_denied() -> None:
    expansion = Expansion(
        keys=["maria"],
        rows=[],
        hits={"m-team": GraphHit("m-team", 0.4, PATH)},
        denied=frozenset({"m-team", "m-ledger"}),
    )
    team = expansion.scored(candidate("m-team", 0.5))
    assert (team.graph, team.denied) == (0.4, False)
    ledger = expansion.scored(candidate("m-ledger", 0.5))
    assert (ledger.graph, ledger.denied) == (0.0, True)
    assert expansion.scored(candidate("m-other", 0.5)) == candidate("m-other", 0.5)


def test_a_chain_is_a_scored_path_of_two_memories_from_the_questions_own_entity() -> None:
    one = Expansion(keys=["maria"], hits={"m-team": GraphHit("m-team", 0.4, PATH)})
    assert not one.chain and one.summary()["chain"] is False
    two = GraphPath("maria", None, ("maria", "m-team", "billing", "m-owns"), ("m-team", "m-owns"))
    assert Expansion(keys=["maria"], hits={"m-owns": GraphHit("m-owns", 0.3, two)}).chain
    from_a_candidate = GraphPath("billing", "m-team", ("billing", "m-owns"), ("m-team", "m-owns"))
    hits = {"m-owns": GraphHit("m-owns", 0.3, from_a_candidate)}
    assert not Expansion(keys=[], hits=hits).chain


def test_the_first_walk_starts_from_the_questions_entities_only_when_one_is_the_users() -> None:
    walk = Walk(keys=["maria"], residual=None, names=["billing team"])
    assert walk.first_keys(named=["billing team"], seeded=True) == ["maria"]
    # Maria is no entity of the user's (or a hub): the other names the user's entities hold.
    assert walk.first_keys(named=["billing team"], seeded=False) == ["billing team"]
    assert walk.first_keys(named=[], seeded=False) == []
    assert Walk(keys=[], residual=None).first_keys(named=["billing team"], seeded=False) == [
        "billing team"
    ]
