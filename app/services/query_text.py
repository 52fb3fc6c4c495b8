"""User text turned into full-text index queries that no query syntax can break.

The query's words are handed to the index's own analyzer, with every character of the query
syntax escaped: the analyzer then splits a query exactly as it split the memories, so a word
copied from a memory ("tortoise's", "example.com", "3.14", "field:value", "cafe" + U+0301)
finds it, while no operator, wildcard, range, fuzzy, boost or regex can be expressed.
"""

from __future__ import annotations

import re
import unicodedata

from app.services.scope import MAIN

MAX_QUERY_TERMS = 64
# Characters the full-text (Lucene) query syntax gives a meaning: each is escaped.
SYNTAX_CHARACTERS = frozenset('+-&|!(){}[]^"~*?:\\/')
# A token no memory holds. The content clause always carries it, so a query whose words the
# analyzer reduces to nothing ("½", "〆") matches nothing, instead of leaving the user clause
# alone to match every memory of the user.
NO_MATCH_TERM = "zq0nomatch0x7f3a9c1e5b2d84"
# Lucene's default English stop set: words too common to say what a text is about.
_LUCENE_STOP_WORDS_TEXT = """a an and are as at be but by for if in into is it no not of on or
such that the their then there these they this to was will with"""
LUCENE_STOP_WORDS = frozenset(_LUCENE_STOP_WORDS_TEXT.split())
WORD = re.compile(r"\w+")
SEQ_TEXT_WIDTH = 16


def _searchable(chunk: str) -> bool:
    """Whether a chunk has a letter or a digit; without one the analyzer indexes nothing."""
    return any(unicodedata.category(char)[0] in "LN" for char in chunk)


def query_terms(text: str) -> list[str]:
    """The whitespace-separated chunks of a query that hold a letter or digit, lowercased
    (so `AND`, `OR`, `NOT` are plain words) and deduplicated, at most MAX_QUERY_TERMS."""
    terms = (chunk.lower() for chunk in text.split() if _searchable(chunk))
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def escape(term: str) -> str:
    """A term with every query-syntax character backslash-escaped."""
    return "".join("\\" + char if char in SYNTAX_CHARACTERS else char for char in term)


def _phrase(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def seq_text(seq: int) -> str:
    """A change seq as fixed-width text (`created_seq_text`): the full-text index holds text
    only, and fixed width makes its term order the numeric order, so a range can filter it."""
    return f"{seq:0{SEQ_TEXT_WIDTH}d}"


def lucene_query(text: str, user_id: str, branch: str, view_seq: int | None = None) -> str | None:
    """A full-text index query for the words of `text` among the memories of one user's
    branch; None when the text has no searchable word.

    The user and branch clauses narrow the index scan, so that the hits the index returns
    are that branch's; Cypher checks user_id and branch exactly afterwards. A branch that reads
    main up to `view_seq` (copy-on-write) also takes main's nodes created up to then. The
    branch clause is boosted to 0: a scoring clause would add its own weight, which differs
    between branches and changes with their sizes, so the same memory would score differently
    on each.
    """
    terms = query_terms(text)
    if not terms:
        return None
    words = " ".join(escape(term) for term in terms)
    where = f"branch:{_phrase(branch)}"
    if view_seq is not None:
        through_main = f"branch:{_phrase(MAIN)} AND created_seq_text:[0 TO {seq_text(view_seq)}]"
        where = f"{where} OR ({through_main})"
    return f"content:({words} {NO_MATCH_TERM}) AND user_id:{_phrase(user_id)} AND ({where})^0"


def content_words(query: str, stop_words: frozenset[str] = LUCENE_STOP_WORDS) -> frozenset[str]:
    """The query's distinct words, case-folded, stop words aside."""
    return frozenset(WORD.findall(query.casefold())) - stop_words


def coverage(wanted: frozenset[str], content: str) -> float:
    """The share of `wanted` (a query's content_words) that occurs in `content` (0.0 when
    nothing is wanted: a text match on stop words alone says nothing)."""
    if not wanted:
        return 0.0
    return len(wanted.intersection(WORD.findall(content.casefold()))) / len(wanted)
