"""graph_walk.Expansion: what the walk's result does to a first-stage candidate (pure)."""

from __future__ import annotations

from app.services.graph_stage import GraphHit, GraphPath
from app.services.graph_walk import Expansion
from app.services.ranking import Candidate

PATH = GraphPath(seed="maria", seed_memory=None, steps=("maria", "m-team"), memories=("m-team",))


def _candidate(memory_id: str) -> Candidate:
    return Candidate(
        memory_id=memory_id,
        cosine=0.5,
        text_score=None,
        text_coverage=0.0,
        confidence=1.0,
        age_days=1.0,
        same_session=False,
    )


def test_a_reached_memory_takes_its_graph_score_and_is_never_denied() -> None:
    expansion = Expansion(
        keys=["maria"],
        rows=[],
        hits={"m-team": GraphHit("m-team", 0.4, PATH)},
        denied=frozenset({"m-team", "m-ledger"}),
    )
    team = expansion.scored(_candidate("m-team"))
    assert (team.graph, team.denied) == (0.4, False)
    ledger = expansion.scored(_candidate("m-ledger"))
    assert (ledger.graph, ledger.denied) == (0.0, True)
    assert expansion.scored(_candidate("m-other")) == _candidate("m-other")
