"""User text turned into full-text index queries that no query syntax can break."""

from __future__ import annotations

import unicodedata

MAX_QUERY_TERMS = 64
# A word is a run of letters, marks (combining accents, vowel signs), digits and connectors
# (`_`), as the full-text analyzer sees one: "e" + U+0301 or Devanagari stay one word.
WORD_CATEGORIES = ("L", "M", "N", "Pc")


def _words(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    for char in text + " ":
        if unicodedata.category(char).startswith(WORD_CATEGORIES):
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    return words


def _searchable(word: str) -> bool:
    """The analyzer indexes nothing for a run without a letter or digit (`_`, a lone accent)."""
    return any(unicodedata.category(char)[0] in "LN" for char in word)


def query_terms(text: str) -> list[str]:
    """The words of a query, lowercased and deduplicated: no query syntax survives.

    Only letters, marks, digits and connectors are kept, none of which the full-text query
    syntax gives a meaning; words the analyzer would index nothing for are dropped, so that an
    empty content clause never leaves the user clause alone to match every memory.
    """
    terms = (word.lower() for word in _words(text) if _searchable(word))
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def _phrase(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lucene_query(text: str, user_id: str) -> str | None:
    """A full-text index query for the words of `text` among one user's memories.

    The user clause only narrows the index scan; Cypher checks user_id exactly afterwards.
    """
    terms = query_terms(text)
    if not terms:
        return None
    return f"content:({' '.join(terms)}) AND user_id:{_phrase(user_id)}"
