"""User text turned into full-text index queries that no query syntax can break.

The query's words are handed to the index's own analyzer, with every character of the query
syntax escaped: the analyzer then splits a query exactly as it split the memories, so a word
copied from a memory ("tortoise's", "example.com", "3.14", "field:value", "cafe" + U+0301)
finds it, while no operator, wildcard, range, fuzzy, boost or regex can be expressed.

The analyzer is Lucene's CJKAnalyzer (`cjk`, migrations/V0008): Chinese, Japanese and Korean
runs become overlapping pairs of characters ("支付服务" -> 支付 付服 服务), other words stay
whole as the standard tokenizer cuts them, lowercased, English stop words dropped. The
tokenizer cuts identifiers at '-', '@', '/' ("invoice-api" -> invoice, api), so each part of a
query that the analyzer cuts into several tokens is also asked for as a quoted phrase (its
tokens adjacent and in order), boosted: the memory that holds the whole identifier, or the
whole Chinese word, scores above those that hold only pieces of it, which still match as they
did. Ranking's coverage splits text the same way.
"""

from __future__ import annotations

import re
import unicodedata

from app.services.retrieval.config import DEFAULT
from app.services.scope import MAIN

MAX_QUERY_TERMS = 64
# Lucene refuses a query of more than 1024 clauses, and a 4096-byte query can analyze into
# more tokens than that (a paragraph of Chinese, "a-b-c-..."). The query's words are cut once a
# generous estimate of their tokens, plus one per phrase, reaches this.
MAX_QUERY_TOKENS = 512
# Characters the full-text (Lucene) query syntax gives a meaning: each is escaped.
SYNTAX_CHARACTERS = frozenset('+-&|!(){}[]^"~*?:\\/')
# A token no memory holds. The content clause always carries it, so a query whose words the
# analyzer reduces to nothing ("½", "〆", "the") matches nothing, instead of leaving the user
# clause alone to match every memory of the user.
NO_MATCH_TERM = "zq0nomatch0x7f3a9c1e5b2d84"
# Lucene's default English stop set: words too common to say what a text is about (coverage).
_LUCENE_STOP_WORDS_TEXT = """a an and are as at be but by for if in into is it no not of on or
such that the their then there these they this to was will with"""
LUCENE_STOP_WORDS = frozenset(_LUCENE_STOP_WORDS_TEXT.split())
# The stop set of the index's analyzer (CJKAnalyzer's: the English set without "an", with "s",
# "t", "www"): the index holds none of these words.
INDEX_STOP_WORDS = (LUCENE_STOP_WORDS - {"an"}) | {"s", "t", "www"}
SEQ_TEXT_WIDTH = 16
# Characters the analyzer pairs into bigrams: Han, Hiragana, Katakana (halfwidth too), Hangul.
_CJK = (
    "\u1100-\u11ff\u3041-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
CJK_RUN = re.compile(f"[{_CJK}]+")
# A run of CJK characters (group 1), or a word of other word characters (group 2).
WORD = re.compile(f"([{_CJK}]+)|([^\\W{_CJK}]+)")
ASCII_WORD = re.compile(r"\w+")  # WORD's words in ASCII text, where it finds no run
# Characters certainly kept by the analyzer (never a stop word, never dropped).
_ALWAYS_INDEXED = re.compile("[\u3041-\u3096\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]")
# One token of the standard tokenizer in text without CJK (Unicode word boundaries): word
# characters, joined across '.', ':', "'" between letters and '.', ',', ';', "'" between digits.
_TOKEN = re.compile(
    r"\w+(?:(?:(?<=[^\W\d_])[.:'\u2019\u00b7](?=[^\W\d_])|(?<=\d)[.,;'\u2019](?=\d))\w+)*"
)
# What may become a token, for the estimate: a CJK character, a word, any other visible mark.
_TOKEN_ESTIMATE = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+|[^\\w\\s]")
_MAX_TOKEN_LENGTH = 255  # the standard tokenizer cuts longer words
_WIDE = re.compile("[\uff01-\uff5e\uff61-\uff9f]+")


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
    """A change seq as fixed-width text (`created_seq_text`, `ended_seq_text`): the full-text
    index holds text only, and fixed width makes its term order the numeric order, so a range
    can filter it."""
    return f"{seq:0{SEQ_TEXT_WIDTH}d}"


def phrases(term: str) -> list[str]:
    """The parts of a query term that the analyzer cuts into several tokens, to be asked for
    whole as phrases: a CJK run of three characters or more (two bigrams or more), and a run of
    other characters holding two tokens or more that are not stop words ("invoice-api",
    "CVE-2020-8203", "lodash@4.17.15"; not "db.pool.size" or "payment_service", which the
    analyzer keeps whole, nor "to-do", of which it keeps "do" only)."""
    found: list[str] = []
    for part in re.finditer(f"[{_CJK}]+|[^{_CJK}]+", term):
        text = part.group()
        if CJK_RUN.fullmatch(text):
            if len(text) >= 3:
                found.append(text)
        elif sum(token not in INDEX_STOP_WORDS for token in _TOKEN.findall(text)) >= 2:
            found.append(text)
    return found


def _within_budget(term: str, budget: int) -> tuple[str, int]:
    """The longest start of `term` whose estimated token count fits `budget`, and that count
    (an over-estimate: every CJK character and every mark counts, long words count per cut)."""
    used = 0
    for match in _TOKEN_ESTIMATE.finditer(term):
        piece = match.group()
        cost = -(-len(piece) // _MAX_TOKEN_LENGTH) if piece[0].isalnum() or piece[0] == "_" else 1
        if used + cost > budget:
            return term[: match.start()], used
        used += cost
    return term, used


def _content(terms: list[str], phrase_boost: int) -> str:
    clauses: list[str] = []
    budget = MAX_QUERY_TOKENS
    for term in terms:
        kept, cost = _within_budget(term, budget)
        if not _searchable(kept):
            break
        clauses.append(escape(kept))
        budget -= cost
        for phrase in phrases(kept):
            if budget < 1:
                break
            clauses.append(f"{_phrase(phrase)}^{phrase_boost}")
            budget -= 1
        if kept != term or budget < 1:
            break
    return " ".join(dict.fromkeys(clauses))


def _always_indexed(value: str) -> bool:
    """Whether the analyzer surely keeps a token of `value`: a Han, kana or Hangul character,
    or a run of ASCII letters and digits that is no stop word and that only ASCII characters
    touch (so the token holding it is either that run or holds punctuation: no stop word)."""
    if _ALWAYS_INDEXED.search(value):
        return True
    for run in re.finditer("[A-Za-z0-9]+", value):
        start, end = run.span()
        touching = value[start - 1 : start] + value[end : end + 1]
        if touching.isascii() and run.group().lower() not in INDEX_STOP_WORDS:
            return True
    return False


def _field_is(field: str, value: str) -> str:
    """A clause selecting the nodes whose `field` is `value`, never fewer.

    A phrase of the value's tokens selects them, and others with the same tokens, which Cypher
    drops afterwards. The analyzer may keep no token of a value ("it", "the", "a-s"): its phrase
    would vanish from the query, dropping a branch's own memories or leaving the user unnamed;
    then the clause also takes the nodes whose field holds no token at all (with no weight)."""
    clause = f"{field}:{_phrase(value)}"
    if _always_indexed(value):
        return clause
    return f"({clause} OR (*:* -{field}:*)^0)"


def lucene_query(
    text: str,
    user_id: str,
    branch: str,
    view_seq: int | None = None,
    seq: int | None = None,
    phrase_boost: int = DEFAULT.candidates.phrase_boost,
) -> str | None:
    """A full-text index query for the words of `text` among the memories of one user's
    branch; None when the text has no searchable word.

    The user and branch clauses narrow the index scan, so that the hits the index returns
    are that branch's; Cypher checks user_id and branch exactly afterwards. A branch that reads
    main up to `view_seq` (copy-on-write) also takes main's nodes created up to then. The
    branch clause is boosted to 0: a scoring clause would add its own weight, which differs
    between branches and changes with their sizes, so the same memory would score differently
    on each.

    With `seq`, for the index of every version (as_of): the branch's nodes alive after that
    change (created by then, not ended by then), and main's current nodes it reads.
    """
    terms = query_terms(text)
    if not terms:
        return None
    words = _content(terms, phrase_boost)
    where = _field_is("branch", branch)
    if seq is not None:
        through = seq_text(seq)
        alive = f"created_seq_text:[0 TO {through}] AND NOT ended_seq_text:[0 TO {through}]"
        where = f"({where}) AND {alive}"
    if view_seq is not None:
        through_main = f"branch:{_phrase(MAIN)} AND created_seq_text:[0 TO {seq_text(view_seq)}]"
        if seq is not None:
            where = f"({where}) OR ({through_main} AND NOT ended_seq_text:*)"
        else:
            where = f"{where} OR ({through_main})"
    user = _field_is("user_id", user_id)
    return f"content:({words} {NO_MATCH_TERM}) AND {user} AND ({where})^0"


def _fold_width(text: str) -> str:
    """Fullwidth ASCII to ASCII, halfwidth katakana to fullwidth, as the analyzer folds them."""
    return _WIDE.sub(lambda wide: unicodedata.normalize("NFKC", wide.group()), text)


def words(text: str) -> list[str]:
    """The words of a text as the index's analyzer cuts them (stop words kept): case-folded
    words, and CJK runs as overlapping pairs of characters (a lone character as itself)."""
    if text.isascii():  # most texts: no CJK run, nothing to fold; half the time of the rest
        return ASCII_WORD.findall(text.lower())
    found: list[str] = []
    # One pass of one pattern, its groups telling runs from words: ranking cuts the text of
    # every candidate of every retrieve.
    for run, word in WORD.findall(_fold_width(text).casefold()):
        if len(run) > 2:
            found.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            found.append(run or word)
    return found


def content_words(query: str, stop_words: frozenset[str] = LUCENE_STOP_WORDS) -> frozenset[str]:
    """The query's distinct words (see `words`: Chinese as bigrams), stop words aside."""
    return frozenset(words(query)) - stop_words


def coverage(wanted: frozenset[str], content: str) -> float:
    """The share of `wanted` (a query's content_words) that occurs in `content` (0.0 when
    nothing is wanted: a text match on stop words alone says nothing)."""
    if not wanted:
        return 0.0
    return len(wanted.intersection(words(content))) / len(wanted)
