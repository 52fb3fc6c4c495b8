"""Cursors and pages: what encode_cursor() issues decodes to the same key, anything else is
Unparseable; a page holds its limit and a cursor when more follow."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.errors import Unparseable, status_of
from app.pagination import Paging, decode_cursor, encode_cursor

URL_SAFE = re.compile(r"^[A-Za-z0-9_-]+$")


@pytest.mark.parametrize(
    "key",
    [
        "user-1",
        "a",
        "0190a1b2c3d4e5f60718293a4b5c6d7e",
        "name with spaces/and+signs?&=",
        "ünïcødé ✓",
        "x" * 500,
    ],
)
def test_round_trip(key: str) -> None:
    cursor = encode_cursor(key)
    assert URL_SAFE.match(cursor), cursor
    assert decode_cursor(cursor) == key


@given(st.text(min_size=1, max_size=200))
def test_round_trip_of_any_text(key: str) -> None:
    cursor = encode_cursor(key)
    assert URL_SAFE.match(cursor)
    assert decode_cursor(cursor) == key


def test_cursors_are_opaque_not_the_key_itself() -> None:
    assert encode_cursor("user-1") != "user-1"


def test_cursors_keep_key_order_distinct() -> None:
    keys = [f"user-{n:03d}" for n in range(50)]
    assert len({encode_cursor(key) for key in keys}) == len(keys)


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "a",
        "%%%",
        "!!!!",
        "not a cursor",
        "_w",
        "abc+",
        "dXNlci0x/",
        encode_cursor("user-1") + "=",
        encode_cursor("user-1") + "====",
        "é",
        "\x00\x01",
    ],
)
def test_garbage_cursor_is_unparseable(cursor: str) -> None:
    with pytest.raises(Unparseable) as caught:
        decode_cursor(cursor)
    assert status_of(caught.value) == 400
    assert caught.value.detail


def test_a_page_holds_the_limit_and_a_cursor_only_when_more_follow() -> None:
    paging = Paging.of(None, 2)
    assert (paging.after, paging.fetch) == (None, 3)
    page, cursor = paging.page(["a", "b", "c"], str.upper)
    assert (page, cursor) == (["a", "b"], encode_cursor("B"))
    assert paging.page(["a", "b"], str.upper) == (["a", "b"], None)
    assert paging.page([], str.upper) == ([], None)


def test_the_next_page_starts_after_the_key_its_cursor_holds() -> None:
    assert Paging.of(encode_cursor("B"), 2).after == "B"
    assert Paging.of("", 2).after is None
    with pytest.raises(Unparseable):
        Paging.of("not a cursor", 2)
