"""Reading disagreement between two memories without an LLM, in English, Chinese and both."""

from __future__ import annotations

import pytest

from app.services.governance.contradictions import disagreement, parse


def _between(first: str, second: str) -> str | None:
    found = disagreement(parse(first), parse(second))
    return None if found is None else f"{found.severity}: {found.reason}"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (
            "The invoice-api rate limit is 5000 requests per minute.",
            "UPDATE: the invoice-api rate limit is now 9000 requests per minute.",
            "high: different number: 5000 vs 9000",
        ),
        (
            "invoice-api pins lodash 4.17.15",
            "invoice-api pins lodash 4.17.21",
            "high: different version: 4.17.15 vs 4.17.21",
        ),
        (
            "The release is scheduled for 2024-05-01.",
            "The release is scheduled for 2024-06-15.",
            "high: different date: 2024-05-01 vs 2024-06-15",
        ),
        (
            "invoice-api uses Redis.",
            "invoice-api does not use Redis.",
            "high: one negates the other",
        ),
        (
            "The office is in Berlin.",
            "The office is in Munich.",
            "medium: different name: Berlin vs Munich",
        ),
        (
            "Maria prefers tea in the morning.",
            "Maria prefers coffee in the morning.",
            "medium: different value: tea vs coffee",
        ),
        (
            "发票服务的限流是每分钟5000次。",
            "更新\uff1a发票服务的限流现在是每分钟9000次。",
            "high: different number: 5000 vs 9000",
        ),
        ("发票服务使用Redis做缓存", "发票服务不再使用Redis做缓存", "high: one negates the other"),
        (
            "invoice-api 的超时时间是 30 秒",
            "invoice-api 的超时时间改为 60 秒",
            "high: different number: 30 vs 60",
        ),
    ],
)
def test_disagreements_are_found_with_their_kind(first: str, second: str, expected: str) -> None:
    assert _between(first, second) == expected
    assert _between(second, first) is not None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("invoice-api uses Redis.", "invoice-api uses Postgres."),  # both can hold
        ("Maria leads the billing team.", "Chen leads the billing team."),  # another subject
        ("invoice-api has 3 replicas in staging", "invoice-api has 5 replicas in production"),
        ("Deploys to prod need two approvals.", "Deploys to staging need one approval."),
        ("The limit is 5000 requests per minute.", "The limit is 5000 requests per minute."),
        ("发票服务使用Redis做缓存", "发票服务部署在上海机房"),
        ("invoice-api timeout is 30 s", "invoice-api retries 3 times"),
    ],
)
def test_memories_that_can_both_hold_do_not_disagree(first: str, second: str) -> None:
    assert _between(first, second) is None


def test_the_matching_clauses_of_longer_memories_are_compared() -> None:
    first = "Deploys run on weekdays only. The rate limit is 5000 requests per minute."
    assert _between(first, "The rate limit is 9000 requests per minute.") == (
        "high: different number: 5000 vs 9000"
    )
