"""graph_walk.Expansion: what the walk's result does to a first-stage candidate (pure)."""

from __future__ import annotations

from app.services.retrieval.graph_stage import GraphHit, GraphPath
from app.services.retrieval.graph_walk import Expansion
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
