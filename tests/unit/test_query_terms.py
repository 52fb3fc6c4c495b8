"""Query text to full-text index queries: syntax is escaped, the user id is a quoted phrase."""

from __future__ import annotations

import re

import pytest

from app.services.query_text import (
    MAX_QUERY_TERMS,
    NO_MATCH_TERM,
    SYNTAX_CHARACTERS,
    content_words,
    coverage,
    escape,
    lucene_query,
    query_terms,
    seq_text,
)

SYNTAX = ["+", "-", "&&", "||", "!", "(", ")", "{", "}", "[", "]", "^", '"', "~", "*", "?", ":"]
SYNTAX += ["\\", "/"]


def _unescaped_syntax(text: str) -> list[str]:
    """Syntax characters in `text` that no backslash escapes."""
    found = []
    escaped = False
    for char in text:
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
