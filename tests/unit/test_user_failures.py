"""A scheduled job over every user goes on past one user's failure, and stops when the database
stays unavailable user after user."""

from __future__ import annotations

import pytest

from app.errors import NotFound, Unavailable
from app.services.user_failures import UNAVAILABLE_IN_A_ROW, UserFailures


def test_failures_of_single_users_are_counted_and_the_job_goes_on() -> None:
    failures = UserFailures("governance")
    failures.failed("alice", NotFound("branch 'gone' not found"))
    failures.failed("bob", RuntimeError("a bug in one user's data"))
    failures.succeeded()
    failures.failed("carol", Unavailable("the database did not answer"))
    assert failures.count == 3


def test_the_job_stops_when_the_database_stays_unavailable() -> None:
    failures = UserFailures("governance")
    for n in range(UNAVAILABLE_IN_A_ROW - 1):
        failures.failed(f"user-{n}", Unavailable("the database did not answer"))
    with pytest.raises(Unavailable):
        failures.failed("last", Unavailable("the database did not answer"))


def test_a_user_processed_in_between_shows_the_database_is_back() -> None:
    failures = UserFailures("governance")
    for round_ in range(3):
        for n in range(UNAVAILABLE_IN_A_ROW - 1):
            failures.failed(f"user-{round_}-{n}", Unavailable("the database did not answer"))
        failures.succeeded()
    failures.failed("other", RuntimeError("a bug"))
    failures.failed("last", Unavailable("the database did not answer"))
    assert failures.count == 3 * (UNAVAILABLE_IN_A_ROW - 1) + 2
