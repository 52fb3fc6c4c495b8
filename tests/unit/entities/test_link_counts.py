"""linking.link_counts: what a manual link made, as Memoria's clients read it (pure)."""

from __future__ import annotations

from app.services.entities.extractor import Mention
from app.services.entities.linking import link_counts


def _mentions(*keys: str) -> list[Mention]:
    return [Mention(key=key, name=key.title(), type="other") for key in keys]


def test_counts_entities_new_and_reused_once_and_only_links_not_there_before() -> None:
    linked = [("m1", _mentions("olga", "airflow")), ("m2", _mentions("olga", "restic"))]
    counts = link_counts(linked, existed={"airflow"}, mentioned={("m1", "airflow")})
    assert counts.model_dump() == {
        "entities_created": 2,  # olga (linked twice) and restic
        "entities_reused": 1,
        "edges_created": 3,  # m1-airflow was there
    }
    assert link_counts([], set(), set()).model_dump() == {
        "entities_created": 0,
        "entities_reused": 0,
        "edges_created": 0,
    }
