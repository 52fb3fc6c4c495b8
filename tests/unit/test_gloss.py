# ruff: noqa: RUF001
# (Chinese text is written with full-width punctuation)
"""English glosses of Chinese text: what the English embedding model reads instead of Chinese."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from app.gloss import UNUSED_DAYS, Entry, Glossary, meanings


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return Glossary.load()


def test_text_without_chinese_is_read_as_written(glossary: Glossary) -> None:
    text = "Alice prefers green tea; payment-service 2.4.1 pins lodash@4.17.15."
    assert glossary.english(text) == text


def test_chinese_words_are_read_as_their_english_senses(glossary: Glossary) -> None:
    assert glossary.english("模型每周更新一次") == glossary.english("模型每周更新一次。")
    words = glossary.english("模型每周更新一次").split()
    assert {"model", "renew", "update"} & set(words)
    assert "week" in " ".join(words)
    assert not any("\u4e00" <= char <= "\u9fff" for char in " ".join(words))


def test_identifiers_and_english_inside_chinese_stay_whole(glossary: Glossary) -> None:
    english = glossary.english("pay-gateway 部署在上海的 sh-idc-2 机房，调用invoice-api失败")
    for kept in ("pay-gateway", "sh-idc-2", "invoice-api"):
        assert kept in english.split()
    assert "deploy" in english
    assert "Shanghai" in english


def test_a_persons_name_is_read_in_pinyin(glossary: Glossary) -> None:
    assert glossary.english("黄涛负责支付团队").startswith("Huang Tao ")


def test_particles_and_punctuation_are_not_read(glossary: Glossary) -> None:
    # 的 (a particle), 在 (a preposition) and full-width punctuation carry no meaning alone.
    assert glossary.english("服务的版本？") == glossary.english("服务版本")
    assert "？" not in glossary.english("怎么修好的？")


def test_traditional_characters_are_read_too(glossary: Glossary) -> None:
    assert "rule" in glossary.english("規則").split()


def test_a_word_the_dictionary_lacks_is_read_through_the_words_it_is_made_of() -> None:
    glossary = Glossary.of(
        [
            Entry("風控", "风控", "feng1 kong4", ["risk control"]),
            Entry("團隊", "团队", "tuan2 dui4", ["team", "CL:個|个[ge4]"]),
        ]
    )
    assert glossary._word("风控团队") == "risk control team"


def test_common_meanings_come_before_a_proper_noun_and_cross_references_are_dropped() -> None:
    glossary = Glossary.of(
        [
            Entry("里", "里", "Li3", ["Li (surname)"]),
            Entry("裡", "里", "li3", ["lining", "interior", "also written 裏|里[li3]"]),
            Entry("上海", "上海", "Shang4 hai3", ["Shanghai municipality"]),
        ]
    )
    assert glossary._word("里") == "lining interior"
    assert glossary._word("上海") == "Shanghai municipality"


def test_meanings_are_cleaned_for_a_model_to_read() -> None:
    found = meanings(
        [
            "to renew",
            "(of a web page) to refresh",
            "variant of 新[xin1]",
            "surname Geng",
            "to do sth for sb",
            "a very long explanation of how the word came to be used in this way",
            "renew",
        ],
        limit=5,
    )
    assert found == ["renew", "refresh", "do for"]


def test_a_glossary_kept_in_the_cache_folder_reads_as_the_one_built(
    glossary: Glossary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = "王芳负责计费团队, 计费团队维护 invoice-api。"
    folder = tmp_path / "memory-service"
    folder.mkdir()
    # Kept by an earlier version, unread for longer than UNUSED_DAYS; and by one still in use.
    unused, in_use = folder / "glossary-0000000000000000.json", folder / "glossary-1111.json"
    for other in (unused, in_use):
        other.write_text("[{}, {}]", encoding="utf-8")
    long_ago = time.time() - (UNUSED_DAYS + 1) * 86_400
    os.utime(unused, (long_ago, long_ago))
    built = Glossary.load()  # nothing kept for this dictionary yet: built, then kept
    [kept] = set(folder.glob("glossary-*.json")) - {in_use}  # the unused one is gone
    assert Glossary.load().english(text) == built.english(text) == glossary.english(text)

    kept.write_text("{not json", encoding="utf-8")  # a damaged file is built again
    assert Glossary.load().english(text) == glossary.english(text)
    assert Glossary.load().english(text) == glossary.english(text)
