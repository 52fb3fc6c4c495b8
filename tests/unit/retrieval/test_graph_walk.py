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
