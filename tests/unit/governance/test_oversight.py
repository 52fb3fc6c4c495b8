"""Why consolidate kept one memory of a contradiction, as the console says it."""

from __future__ import annotations

from app.services.governance.oversight import why_kept


def test_the_newer_memory_is_kept_when_trusted_enough() -> None:
    newer = {"memory_id": "b", "trust_tier": "T2"}
    older = {"memory_id": "a", "trust_tier": "T1"}
    said = why_kept(newer, older, kept="b")
    assert said.startswith("the newer memory is kept") and "T2 against T1" in said


def test_the_older_memory_is_kept_against_a_much_less_trusted_newer_one() -> None:
    newer = {"memory_id": "b", "trust_tier": "T4"}
    older = {"memory_id": "a", "trust_tier": "T1"}
    said = why_kept(newer, older, kept="a")
    assert said.startswith("the older memory is kept") and "(T4)" in said and "(T1)" in said
