"""Entity names: the normalised key of a name, and which keys are spellings of one entity (pure)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rapidfuzz import fuzz, process

NEAR_RATIO = 92.0
NEAR_MIN_CHARS = 6
PREFIX_CHARS = 3
_KEY_TOKEN = re.compile(r"[^\W_]+(?:\.[^\W_]+)*")
_DIGITS = re.compile(r"\d+")


def entity_key(name: str) -> str:
    """The normalised name: NFKC (full-width to half-width), case-folded, and every run of
    punctuation or spaces between words collapsed to one space (dots inside a word stay)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(_KEY_TOKEN.findall(folded))


def compact_key(key: str) -> str:
    """A key without its spaces ("payment service" and "paymentservice" meet)."""
    return key.replace(" ", "")


def prefix(key: str) -> str:
    """The start of a compact key that every near duplicate of it shares."""
    return compact_key(key)[:PREFIX_CHARS]


def near_duplicates(a: str, b: str) -> bool:
    """Whether two keys spell one name: equal without spaces, or nearly equal (a plural, a typo)
    with the same first letter and the same numbers, so that "auth-service" and "oauth-service",
    or "lodash 4.17.15" and "lodash 4.17.21", stay apart."""
    left, right = compact_key(a), compact_key(b)
    if left == right:
        return True
    if min(len(left), len(right)) < NEAR_MIN_CHARS or left[0] != right[0]:
        return False
    if _DIGITS.findall(left) != _DIGITS.findall(right):
        return False
    return fuzz.ratio(left, right) >= NEAR_RATIO


def canonical_keys(keys: Iterable[str], known: Iterable[str]) -> dict[str, str]:
    """Each key mapped to the entity it names: a known key it duplicates (the closest), else an
    earlier key of `keys` it duplicates, else itself."""
    pool = list(dict.fromkeys(known))
    exact = set(pool)
    mapping: dict[str, str] = {}
    for key in keys:
        if key in mapping:
            continue
        if key in exact:
            mapping[key] = key
            continue
        choices = {candidate: compact_key(candidate) for candidate in pool}
        best = process.extractOne(compact_key(key), choices, scorer=fuzz.ratio)
        if best is not None and near_duplicates(key, best[2]):
            mapping[key] = best[2]
        else:
            mapping[key] = key
            pool.append(key)
            exact.add(key)
    return mapping


MAX_NAME_WORDS = 4
MAX_HAN_NAME_CHARS = 8
MAX_NAME_KEYS = 400
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
# Where a run of words that could be one name ends: Chinese text, clause punctuation.
_CLAUSE_BREAK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+|[,;!?:()\"]|\.(?:\s|$)")
# Words that name nothing alone (a key of only these is not looked up).
_FUNCTION_WORDS_TEXT = """a an and are as at be but by did do does for from had has have how i if
in into is it its me my no not of on or our so such that the their them then there these they
this to was we were what when where which who why will with you your"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())


def name_keys(text: str) -> list[str]:
    """The keys of every name `text` could hold: each run of up to MAX_NAME_WORDS words (not
    function words alone) and each stretch of 2 to MAX_HAN_NAME_CHARS Chinese characters, to be
    looked up among a user's entities, so that a question names an entity the user's memories
    named even where the extractor does not see a name in it ("小蓝在苹果手机上...")."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    keys: dict[str, None] = {}
    for run in _HAN.findall(folded):
        for start in range(len(run)):
            for end in range(start + 2, min(len(run), start + MAX_HAN_NAME_CHARS) + 1):
                keys[run[start:end]] = None
    for clause in _CLAUSE_BREAK.split(folded):
        words = _KEY_TOKEN.findall(clause)
        for end in range(1, len(words) + 1):
            for size in range(1, min(end, MAX_NAME_WORDS) + 1):
                phrase = words[end - size : end]
                if not all(word in _FUNCTION_WORDS for word in phrase):
                    keys[" ".join(phrase)] = None
    return list(keys)[:MAX_NAME_KEYS]
