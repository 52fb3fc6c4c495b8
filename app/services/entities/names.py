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
