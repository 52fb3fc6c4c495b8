# ruff: noqa: RUF001
"""entity_names: the normalised key of a name, and which keys spell one entity (pure)."""

from __future__ import annotations

import pytest

from app.services.entities.names import canonical_keys, entity_key, name_keys, near_duplicates


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Payment-Service", "payment service"),
        ("payment_service", "payment service"),
        ("ｐａｙｍｅｎｔ－ｓｅｒｖｉｃｅ", "payment service"),
        ("  invoice -- api!! ", "invoice api"),
        ("db.pool.size", "db.pool.size"),
        ("DB.Pool.Size", "db.pool.size"),
        ("lodash@4.17.15", "lodash 4.17.15"),
        ("CVE-2020-8203", "cve 2020 8203"),
        ("Straße", "strasse"),
        ("王芳", "王芳"),
    ],
)
def test_entity_key(name: str, key: str) -> None:
    assert entity_key(name) == key


def test_dots_only_stay_inside_words() -> None:
    assert entity_key("end.") == "end"
    assert entity_key("..x..") == "x"
    assert entity_key("a. b") == "a b"


def test_a_name_of_punctuation_only_has_an_empty_key() -> None:
    assert entity_key("---") == ""
    assert entity_key("") == ""


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("payment service", "payment services"),
        ("payment service", "paymentservice"),
        ("payment services", "paymentservice"),
        ("billing team", "billing teams"),
        ("invoice api", "invoce api"),
        ("db", "d b"),
    ],
)
def test_spellings_of_one_name_are_near_duplicates(a: str, b: str) -> None:
    assert near_duplicates(a, b)
    assert near_duplicates(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("auth service", "oauth service"),
        ("lodash 4.17.15", "lodash 4.17.21"),
        ("payment service", "payment server"),
        ("api", "apis"),
        ("abc", "abd"),
        ("r12", "r13"),
    ],
)
def test_different_names_are_not_near_duplicates(a: str, b: str) -> None:
    assert not near_duplicates(a, b)
    assert not near_duplicates(b, a)


def test_a_key_is_mapped_to_a_known_near_duplicate() -> None:
    mapping = canonical_keys(["payment services"], ["payment service", "oauth service"])
    assert mapping == {"payment services": "payment service"}


def test_a_known_key_maps_to_itself() -> None:
    assert canonical_keys(["payment service"], ["payment service"]) == {
        "payment service": "payment service"
    }


def test_two_spellings_in_one_batch_meet_on_the_first() -> None:
    mapping = canonical_keys(["payment service", "payment services", "paymentservice"], [])
    assert set(mapping.values()) == {"payment service"}


def test_unrelated_keys_stay_themselves() -> None:
    mapping = canonical_keys(
        ["auth service", "lodash 4.17.21", "billing team"],
        ["oauth service", "lodash 4.17.15"],
    )
    assert mapping == {
        "auth service": "auth service",
        "lodash 4.17.21": "lodash 4.17.21",
        "billing team": "billing team",
    }


def test_every_key_is_mapped_once() -> None:
    mapping = canonical_keys(["x", "x", "payment service"], ["payment service"])
    assert mapping == {"x": "x", "payment service": "payment service"}
    assert canonical_keys([], ["payment service"]) == {}


def test_name_keys_offers_every_name_a_question_could_hold() -> None:
    keys = name_keys("Who should I talk to before switching off Old Faithful?")
    assert "old faithful" in keys and "faithful" in keys
    assert "to" not in keys and "who should" in keys  # function words alone are not looked up
    chinese = name_keys("小蓝在苹果手机上的更新节奏是怎样的？")
    assert "小蓝" in chinese and "苹果手机" in chinese
    assert all(2 <= len(key) <= 8 for key in chinese)
    mixed = name_keys("动过 db.pool.size 之后出过什么事吗？调用invoice-api失败")
    assert {"db.pool.size", "invoice api", "动过"} <= set(mixed)
    assert "db.pool.size invoice" not in mixed  # Chinese text ends a run of words
