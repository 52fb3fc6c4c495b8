"""Chinese words and tags: names inside a clause, and long unpunctuated runs read in full."""

from __future__ import annotations

from app.chinese import HMM_RUN_CHARS, tagged_words


def test_a_clause_gives_its_words_with_names_and_places_tagged() -> None:
    assert tagged_words("我的同事李娜在北京工作") == [
        ("我", "r"),
        ("的", "uj"),
        ("同事", "n"),
        ("李娜", "nr"),
        ("在", "p"),
        ("北京", "ns"),
        ("工作", "vn"),
    ]


def test_a_run_longer_than_any_clause_is_still_read_word_by_word() -> None:
    rare = "".join(chr(0x4E00 + i) for i in range(1300))  # characters jieba's HMM does not know
    run = "我的同事李娜在北京工作" * 6 + rare
    assert len(run) > HMM_RUN_CHARS
    tagged = tagged_words(run)
    assert "".join(word for word, _ in tagged) == run
    assert ("北京", "ns") in tagged
