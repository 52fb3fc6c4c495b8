"""The console's forms as the use cases' requests: what a person types becomes the value the
API would have received."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from werkzeug.datastructures import MultiDict

from app.console.forms import MEMORY_TYPES, MemoryFilters, metadata_value
from app.errors import Invalid


@pytest.mark.parametrize(
    ("typed", "value"),
    [("2", 2), ("2.5", 2.5), ("true", True), ('"2"', "2"), ("chat", "chat"), ("[1]", "[1]")],
)
def test_a_metadata_value_is_json_when_it_reads_as_a_scalar(typed: str, value: object) -> None:
    found = metadata_value(typed)
    assert found == value and type(found) is type(value)


def test_the_list_keeps_every_filter_and_all_types_when_none_is_chosen() -> None:
    filters = MemoryFilters.of(
        MultiDict(
            [
                ("session_id", " s1 "),
                ("trust_tier", "T2"),
                ("meta", "source=chat"),
                ("meta", "n=2"),
                ("inactive", "on"),
                ("subject_id", ""),
            ]
        )
    )
    listing = filters.listing()
    assert listing.memory_types == list(MEMORY_TYPES)
    assert listing.session_id == "s1" and listing.subject_id is None
    assert listing.trust_tier == "T2" and listing.include_inactive
    assert listing.extra_metadata_filter == {"source": "chat", "n": 2}


def test_a_search_is_an_explained_retrieve_of_the_filters_it_takes() -> None:
    filters = MemoryFilters.of(MultiDict({"q": "who owns billing?", "memory_type": "profile"}))
    search = filters.search()
    assert search.query == "who owns billing?" and search.explain == "verbose"
    assert search.memory_types == ["profile"]


@pytest.mark.parametrize(
    "args",
    [{"memory_type": "nonsense"}, {"trust_tier": "T9"}, {"meta": "no-equals-sign"}],
)
def test_a_value_that_does_not_fit_is_invalid(args: dict[str, str]) -> None:
    with pytest.raises(Invalid):
        MemoryFilters.of(MultiDict(args)).listing()


def test_the_next_page_link_keeps_the_filters() -> None:
    filters = MemoryFilters.of(MultiDict({"memory_type": "profile", "inactive": "on"}))
    assert filters.query_args(cursor="abc") == {
        "memory_type": "profile",
        "inactive": "on",
        "cursor": "abc",
    }


def test_as_of_is_a_snapshot_or_a_time_and_a_time_picked_in_the_browser_wins() -> None:
    snapshot = MemoryFilters.of(MultiDict({"as_of": "before-tidy"}))
    assert snapshot.listing().as_of == "before-tidy" and not snapshot.as_of_time
    picked = MemoryFilters.of(
        MultiDict({"as_of": "before-tidy", "as_of_time": "2024-05-01T12:30:00", "q": "who?"})
    )
    assert picked.as_of_time and picked.query_args()["as_of"] == "2024-05-01T12:30:00"
    assert picked.search().as_of == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)  # no zone: UTC
    with pytest.raises(Invalid):
        MemoryFilters.of(MultiDict({"as_of": "not a moment!"})).listing()
