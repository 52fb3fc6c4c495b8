"""Query text to full-text index queries: syntax is escaped, the user id is a quoted phrase."""

from __future__ import annotations

import re

import pytest

from app.services.retrieval.config import DEFAULT
from app.services.retrieval.query_text import (
    MAX_QUERY_TERMS,
    MAX_QUERY_TOKENS,
    NO_MATCH_TERM,
    SYNTAX_CHARACTERS,
    content_words,
    coverage,
    escape,
    lucene_query,
    phrases,
    query_terms,
    seq_text,
    words,
)

SYNTAX = ["+", "-", "&&", "||", "!", "(", ")", "{", "}", "[", "]", "^", '"', "~", "*", "?", ":"]
SYNTAX += ["\\", "/"]


# A quoted phrase standing alone, with the service's boost: no field or slop attached to it.
PHRASE_BOOST = DEFAULT.candidates.phrase_boost
PHRASE = re.compile(rf'(?<!\S)"(?:[^"\\]|\\.)*"\^{PHRASE_BOOST}(?!\S)')


def _unescaped_syntax(text: str) -> list[str]:
    """Syntax characters in `text` that no backslash escapes, outside phrases standing alone."""
    found = []
    escaped = False
    for char in PHRASE.sub(" ", text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in SYNTAX_CHARACTERS:
            found.append(char)
    return found


def _content_clause(query: str) -> str:
    phrase = r'"(?:[^"\\]|\\.)*"'
    match = re.fullmatch(
        rf"content:\((.*)\) AND user_id:{phrase} AND \(branch:{phrase}\)\^0", query, re.DOTALL
    )
    assert match, query
    return match.group(1)


@pytest.mark.parametrize("syntax", SYNTAX)
def test_syntax_alone_is_no_term(syntax: str) -> None:
    assert query_terms(syntax) == []
    assert query_terms(f" {syntax} {syntax}{syntax} ") == []
    assert lucene_query(syntax, "u", "main") is None


@pytest.mark.parametrize("syntax", SYNTAX)
def test_syntax_around_words_is_escaped(syntax: str) -> None:
    query = lucene_query(f"{syntax}cat{syntax} dog {syntax} AND{syntax}fish", "user-1", "b")
    assert query is not None
    content = _content_clause(query)
    assert _unescaped_syntax(content) == []
    assert f"{escape(syntax)}cat{escape(syntax)}" in content
    assert "dog" in content.split()


def test_everything_at_once_yields_only_escaped_words() -> None:
    text = 'title:"x" AND (a OR b) NOT c~2 d^3 [e TO f] {g} h* ?i j\\k /re/ +l -m && n || o !p'
    query = lucene_query(text, "u", "main")
    assert query is not None
    content = _content_clause(query)
    assert _unescaped_syntax(content) == []
    # Operators lose their meaning: they are lowercase words.
    assert not {"AND", "OR", "NOT", "TO"} & set(content.split())
    assert {"and", "or", "not", "to"} <= set(content.split())


def test_terms_are_lowercased_deduplicated_and_capped() -> None:
    assert query_terms("Cat cat CAT dog") == ["cat", "dog"]
    many = " ".join(f"w{i}" for i in range(200))
    assert query_terms(many) == [f"w{i}" for i in range(MAX_QUERY_TERMS)]


@pytest.mark.parametrize(
    "text", ["", "   ", "\t\n", "_", "__ __", "🎉", "\u0301", "... ,,,", "&& || !"]
)
def test_text_without_letters_or_digits_gives_no_query(text: str) -> None:
    assert query_terms(text) == []
    assert lucene_query(text, "u", "main") is None


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("cafe\u0301 au lait", ["cafe\u0301", "au", "lait"]),  # combining mark stays in
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),
        ("東京 の天気", ["東京", "の天気"]),
        ("שלום עולם", ["שלום", "עולם"]),
        ("tortoise's example.com 3.14", ["tortoise's", "example.com", "3.14"]),
        ("snake_case", ["snake_case"]),
    ],
)
def test_words_of_any_script_are_kept_whole(text: str, terms: list[str]) -> None:
    assert query_terms(text) == terms


def test_a_term_the_analyzer_may_drop_cannot_match_everything() -> None:
    # "½" is a digit to Unicode but the analyzer indexes nothing for it; the content clause
    # keeps a term no memory holds, so it is never empty.
    query = lucene_query("½", "u", "main")
    assert query is not None
    assert NO_MATCH_TERM in _content_clause(query).split()


@pytest.mark.parametrize(
    ("user_id", "phrase"),
    [
        ("plain", '"plain"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ('a\\"b', '"a\\\\\\"b"'),
        ("x) OR user_id:(*", '"x) OR user_id:(*"'),
    ],
)
def test_user_id_is_an_escaped_phrase(user_id: str, phrase: str) -> None:
    query = lucene_query("word", user_id, "main")
    assert query == f'content:(word {NO_MATCH_TERM}) AND user_id:{phrase} AND (branch:"main")^0'


@pytest.mark.parametrize(
    ("query", "content", "expected"),
    [
        ("Which database does the ledger use?", "The ledger runs on PostgreSQL", 1 / 5),
        ("ledger database", "The ledger's database is PostgreSQL 16", 1.0),
        ("LEDGER Database", "ledger database", 1.0),  # case does not matter
        ("the ledger, the ledger", "ledger", 1.0),  # words count once; stop words not at all
        ("Café prices", "prices at the café", 1.0),
        ("kubernetes upgrade", "Alice prefers green tea", 0.0),
        ("is it on the", "it is on the table", 0.0),  # stop words only: nothing to go on
    ],
)
def test_coverage_is_the_share_of_query_words_a_text_holds(
    query: str, content: str, expected: float
) -> None:
    assert coverage(content_words(query), content) == pytest.approx(expected)


def test_a_copy_on_write_branch_also_reads_main_up_to_its_fork() -> None:
    query = lucene_query("word", "u", "side", 42)
    assert query is not None
    assert query.endswith(
        'AND (branch:"side" OR (branch:"main" AND created_seq_text:[0 TO 0000000000000042]))^0'
    )
    assert seq_text(42) < seq_text(100) < seq_text(10**15)  # term order is numeric order


@pytest.mark.parametrize(
    ("term", "whole"),
    [
        ("invoice-api", ["invoice-api"]),
        ("cve-2020-8203", ["cve-2020-8203"]),
        ("lodash@4.17.15", ["lodash@4.17.15"]),
        ("2026-12-01", ["2026-12-01"]),
        # One token to the analyzer already: no phrase needed.
        ("db.pool.size", []),
        ("payment_service", []),
        ("example.com", []),
        ("mode:strict", []),
        ("tortoise's", []),
        ("v1.2.3", []),
        ("to-do", []),  # "to" is a stop word: one token is left
        ("(invoice)", []),
        # Chinese: a word of two characters is one bigram; longer runs are asked for whole.
        ("支付", []),
        ("支付服务", ["支付服务"]),
        ("支付服务的invoice-api在cve-2020", ["支付服务的", "invoice-api", "cve-2020"]),
        ("连接池db.pool.size调到50", ["连接池"]),
    ],
)
def test_parts_the_analyzer_cuts_are_also_asked_for_whole(term: str, whole: list[str]) -> None:
    assert phrases(term) == whole


def test_an_identifier_is_a_word_and_a_phrase() -> None:
    query = lucene_query("Invoice-API 超时", "u", "main")
    assert query == (
        f'content:(invoice\\-api "invoice-api"^{PHRASE_BOOST} 超时 {NO_MATCH_TERM}) '
        'AND user_id:"u" AND (branch:"main")^0'
    )
    # A phrase is quoted text: nothing in it is syntax, and nothing is attached to it.
    query = lucene_query('a"b-c\\d~2 x-y^3', "u", "main")
    assert query is not None
    content = _content_clause(query)
    assert f'"a\\"b-c\\\\d~2"^{PHRASE_BOOST}' in content.split()
    assert f'"x-y^3"^{PHRASE_BOOST}' in content.split()
    assert _unescaped_syntax(content) == []


def _estimated_tokens(content: str) -> int:
    """What the analyzer makes of a content clause, counted high: a CJK bigram per character,
    a token per other word, one per phrase."""
    bare = PHRASE.sub(" ", content)
    return len(PHRASE.findall(content)) + len(re.findall(r"[\u4e00-\u9fff]|[a-z0-9]+", bare))


@pytest.mark.parametrize(
    "text",
    [
        "".join(chr(0x4E00 + i) for i in range(1365)),  # 4095 bytes of Chinese, one chunk
        "-".join(f"w{i}" for i in range(1300)),
        " ".join("-".join(f"w{i}x{j}" for j in range(20)) for i in range(64)),
        "支付" + "".join(chr(0x4E00 + i) for i in range(1300)) + " invoice-api",
    ],
)
def test_long_queries_stay_under_lucenes_clause_limit(text: str) -> None:
    query = lucene_query(text, "u", "main")
    assert query is not None
    content = _content_clause(query)
    assert _estimated_tokens(content) <= MAX_QUERY_TOKENS + 2 < 1024
    assert content.split()[0].replace("\\", "") in text.lower()  # kept from the start
    assert content.split()[-1] == NO_MATCH_TERM


@pytest.mark.parametrize(
    "value", ["plain", "user-1a2b", "Alice.Smith_2", "ops@example.org", "张三", "to-do", "it1"]
)
def test_a_user_or_branch_the_analyzer_keeps_is_a_phrase(value: str) -> None:
    query = lucene_query("word", value, value)
    phrase = '"' + value + '"'
    assert query == f"content:(word {NO_MATCH_TERM}) AND user_id:{phrase} AND (branch:{phrase})^0"


@pytest.mark.parametrize("value", ["it", "The", "a-s", "www", "it's", "½", "---", "\uff29\uff34"])
def test_a_user_or_branch_the_analyzer_may_drop_still_selects_its_nodes(value: str) -> None:
    # The analyzer keeps no token of a stop word: the phrase alone would vanish from the query
    # (a branch would lose its own memories), so nodes whose field holds no token come too.
    query = lucene_query("word", value, value, 7)
    phrase = '"' + value + '"'
    assert query == (
        f"content:(word {NO_MATCH_TERM}) "
        f"AND (user_id:{phrase} OR (*:* -user_id:*)^0) "
        f"AND ((branch:{phrase} OR (*:* -branch:*)^0) "
        'OR (branch:"main" AND created_seq_text:[0 TO 0000000000000007]))^0'
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("支付服务", ["支付", "付服", "服务"]),
        ("猫", ["猫"]),
        ("支付 服务", ["支付", "服务"]),  # no pair across a space
        ("支付\uff0c服务。", ["支付", "服务"]),  # nor across punctuation
        ("支付服务的invoice-api", ["支付", "付服", "服务", "务的", "invoice", "api"]),
        ("连接池db.pool.size调到50", ["连接", "接池", "db", "pool", "size", "调到", "50"]),
        ("東京の天気", ["東京", "京の", "の天", "天気"]),
        ("\uff24\uff22 Pool ｶﾀｶﾅ", ["db", "pool", "カタ", "タカ", "カナ"]),  # widths folded
        # ASCII text (most memories) takes a shorter path to the same cut.
        (
            "Set DB_POOL to 50, it's db.size",
            ["set", "db_pool", "to", "50", "it", "s", "db", "size"],
        ),
        ("Café DB_POOL", ["café", "db_pool"]),
    ],
)
def test_words_cut_cjk_into_bigrams_as_the_analyzer_does(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("query", "content", "expected"),
    [
        ("支付服务", "我们决定支付服务使用PostgreSQL数据库", 1.0),
        ("支付", "支持多种付款方式", 0.0),  # the characters only apart
        ("数据库连接池", "连接池db.pool.size调到50", 2 / 5),  # 连接 接池 of 5 bigrams
        ("invoice-api 超时", "invoice-api的超时是30秒", 1.0),
        ("invoice-api 超时", "billing-api 的重试", 1 / 3),
        ("我们的支付服务用什么数据库\uff1f", "支付服务使用PostgreSQL数据库", 5 / 12),  # of 12 pairs
    ],
)
def test_coverage_of_chinese_and_mixed_queries(query: str, content: str, expected: float) -> None:
    assert coverage(content_words(query), content) == pytest.approx(expected)
