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


SNIPPET = """Here is the retry helper for invoice-api:
```python
MAX_RETRIES = {retries}
def call(client):
    for attempt in range(MAX_RETRIES):
        if client.post("/invoices").ok:
            return True
    return False
```
"""
EXPLANATION = """Sure! Let's work through the backoff of invoice-api step by step.
### Step 1: the first delay
The first delay is {first} seconds, so the second attempt starts after \\({first}s\\).
1. Compute the delay: \\(d = {first} \\cdot 2^k\\)
2. If the delay exceeds {cap} seconds, invoice-api caps it.
For example, with {first} seconds the third attempt waits {third} seconds.
Number of attempts (\\(n\\)): {attempts}
"""


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # Two versions of a code snippet: code states nothing.
        (SNIPPET.format(retries=3), SNIPPET.format(retries=5)),
        # A question and its answer.
        (
            "Is the invoice-api rate limit 5000 requests per minute?",
            "The invoice-api rate limit is 9000 requests per minute.",
        ),
        # An explanation and its follow-up that works through other numbers.
        (
            EXPLANATION.format(first=1, cap=30, third=4, attempts=5),
            EXPLANATION.format(first=2, cap=60, third=8, attempts=7),
        ),
        # Hypotheses and proposals say nothing about how things are.
        (
            "If the invoice-api rate limit were 5000, the batch would finish in an hour.",
            "The invoice-api rate limit is 9000 requests per minute.",
        ),
        (
            "Let's set the invoice-api rate limit to 5000 requests per minute.",
            "The invoice-api rate limit is 9000 requests per minute.",
        ),
        # Labels and lead-ins of a long text are not claims about what they name.
        (
            "Plan for the week.\nDay 1: Review and Practice\nDay 2: Deploy the billing-api\n"
            "Day 3: Rest",
            "Plan for next week.\nDay 4: Review and Practice\nDay 5: Deploy the billing-api\n"
            "Day 6: Rest",
        ),
        # A longer text that also states the other's claim does not dispute it.
        (
            "The staging cluster runs in Frankfurt. The production cluster runs in Dublin. "
            "Both use the same images. Deploys go to staging first.",
            "The staging cluster runs in Dublin.",
        ),
    ],
)
def test_similar_texts_of_a_technical_conversation_do_not_disagree(first: str, second: str) -> None:
    assert _between(first, second) is None
    assert _between(second, first) is None


def test_a_longer_text_disagrees_on_a_claim_about_what_it_names() -> None:
    first = (
        "Thanks for the review. I changed the deploy script yesterday.\n"
        "The invoice-api rate limit is 5000 requests per minute.\n"
        "The nightly export still runs at 02:00 and the dashboards look fine."
    )
    second = "UPDATE: the invoice-api rate limit is now 9000 requests per minute."
    found = disagreement(parse(first), parse(second))
    assert found is not None and found.reason == "different number: 5000 vs 9000"
    assert found.clauses == (
        "The invoice-api rate limit is 5000 requests per minute",
        "the invoice-api rate limit is now 9000 requests per minute",
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # Paraphrases: the same fact said in other words.
        (
            "The billing-api stores its invoices in Postgres.",
            "Invoices of the billing-api are kept in Postgres.",
        ),
        (
            "The nightly backup of the ledger-db starts at 03:00.",
            "Every night at 03:00 the ledger-db backup begins.",
        ),
        ("Anna works on the search team.", "Anna is a member of the search team."),
        # The same topic, different facts that can all hold.
        (
            "The billing-api retries a failed payment three times.",
            "The billing-api sends a receipt by email after each payment.",
        ),
        (
            "The ledger-db runs on 4 cores.",
            "The ledger-db keeps 30 days of write-ahead logs.",
        ),
        (
            "Anna reviews pull requests on Mondays.",
            "Anna deploys the search-api on Thursdays.",
        ),
    ],
)
def test_paraphrases_and_other_facts_about_the_same_thing_do_not_disagree(
    first: str, second: str
) -> None:
    assert _between(first, second) is None
    assert _between(second, first) is None


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        (
            "The billing-api stores its invoices in Postgres.",
            "The billing-api no longer stores its invoices in Postgres.",
            "one negates the other",
        ),
        (
            "The ledger-db keeps 30 days of write-ahead logs.",
            "Correction: the ledger-db keeps 14 days of write-ahead logs.",
            "different number",
        ),
        (
            "The search-api is pinned to elasticsearch 7.17.0.",
            "The search-api is now pinned to elasticsearch 8.11.1.",
            "different version",
        ),
    ],
)
def test_a_denial_or_a_changed_value_of_the_same_fact_disagrees(
    first: str, second: str, kind: str
) -> None:
    for one, other in ((first, second), (second, first)):
        found = disagreement(parse(one), parse(other))
        assert found is not None and found.severity == "high"
        assert found.reason.startswith(kind)


def test_records_with_different_identifiers_do_not_disagree() -> None:
    first = "Ticket #4411 from the billing team: a refund of 120 EUR, approved 2025-03-02."
    other_record = "Ticket #5902 from the billing team: a refund of 80 EUR, approved 2025-04-11."
    same_record = "Ticket #4411 from the billing team: a refund of 95 EUR, approved 2025-03-02."
    assert _between(first, other_record) is None
    assert _between(other_record, first) is None
    assert _between(first, same_record) == "high: different number: 120 vs 95"


GUIDE = """Sure, here is how to speed up the {service} exports.
First, open the settings of the {service} in the admin console.
Set the worker pool of export-queue to {workers} to allow {workers} exports at once.
Then restart the {service} and watch its latency for a day.
{closing}"""


def test_two_long_texts_disagree_only_as_versions_of_one_text() -> None:
    # Two guides that each work through their own setting: one step lines up, nothing else.
    guide = GUIDE.format(
        service="report-api", workers=8, closing="Tell me how it goes with the reports."
    )
    other_guide = (
        "Happy to help with the nightly backlog. The ingest-worker reads from export-queue.\n"
        "Set the worker pool of export-queue to 32 to allow 32 exports at once.\n"
        "Keep an eye on the memory of the ingest-worker while the backlog drains.\n"
        "Once it is empty, lower the pool again."
    )
    assert _between(guide, other_guide) is None
    assert _between(other_guide, guide) is None
    # The same guide written again with one setting changed disputes that setting.
    revised = GUIDE.format(
        service="report-api", workers=16, closing="Tell me how it goes with the reports."
    )
    assert _between(guide, revised) == "high: different number: 8, 8 vs 16, 16"
