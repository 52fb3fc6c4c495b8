"""The users and texts of bench/scale.py's database at any size (deterministic): how many
memories each user holds, which texts they are, and the query sets picked by word frequency.

- `scale-small`: one LoCoMo conversation (conv-26, 419 turns), stored whole at the first size.
- `scale-large`: the BEAM development set's 10,080 messages in order, topped up with background
  texts; half of the database up to 100,000 memories, then 100,000.
- background users `scale-u00001`, ...: the rest, Zipf-like (user k holds C / k memories, at most
  100,000, at least 10: a few users with tens of thousands, most with tens to hundreds), C
  growing with the size, so every user only ever grows. Their texts are consecutive entries of
  a shuffled pool of realistic texts (data/corpus.py), from an offset of their own.

The measured users' dates are shifted so that their newest memory is dated when the database was
first loaded (LoCoMo's 2023 and BEAM's 2024 would have decayed into quarantine by now), keeping
their order and spacing.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from app.models.memories import MAX_CONTENT_BYTES
from app.services.retrieval.query_text import INDEX_STOP_WORDS, words

DATASETS = Path(__file__).resolve().parents[3] / "shared" / "datasets"
LOCOMO = DATASETS / "locomo" / "locomo-dev.json"
BEAM = DATASETS / "beam" / "beam-500k-dev.json"
SMALL_CONVERSATION = "conv-26"

SMALL_USER = "scale-small"
LARGE_USER = "scale-large"
BACKGROUND_PREFIX = "scale-u"
USER_CAP = 100_000  # the most memories one user holds
LARGE_SHARE = 0.5  # of the database, until the large user reaches USER_CAP
MIN_USER = 10  # the fewest memories a background user holds
POOL_SIZE = 200_000
POOL_SEED = 23
QUERY_PLAN_SIZE = 2_000_000  # word frequencies are those of the database at this size
QUERY_SET = 100  # queries in the rare-words set and in the common-words set


@dataclass(frozen=True)
class MeasuredText:
    content: str
    session_id: str
    observed_at: datetime


@dataclass(frozen=True)
class Question:
    text: str
    source: str  # "locomo" or "beam"


def _cut(text: str) -> str:
    """At most the service's content limit in UTF-8 bytes (six BEAM messages are longer)."""
    raw = text.encode("utf-8")
    return (
        text if len(raw) <= MAX_CONTENT_BYTES else raw[:MAX_CONTENT_BYTES].decode(errors="ignore")
    )


def _shifted(items: list[tuple[str, str, datetime]], base: datetime) -> list[MeasuredText]:
    newest = max(when for _, _, when in items)
    return [
        MeasuredText(content, session, base - (newest - when)) for content, session, when in items
    ]


@cache
def _locomo() -> list[dict]:
    return list(json.loads(LOCOMO.read_text()))


@cache
def _beam() -> list[dict]:
    return list(json.loads(BEAM.read_text())["conversations"])


def small_texts(base: datetime) -> list[MeasuredText]:
    """The LoCoMo conversation's turns, as bench/locomo.py stores them."""
    from locomo import session_time

    [sample] = [s for s in _locomo() if s["sample_id"] == SMALL_CONVERSATION]
    conversation = sample["conversation"]
    items = []
    session = 1
    while f"session_{session}" in conversation:
        when = conversation[f"session_{session}_date_time"]
        moment = datetime.fromisoformat(session_time(when))
        for turn in conversation[f"session_{session}"]:
            content = f"{when}: {turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                content += f" [shares image: {turn['blip_caption']}]"
            items.append((content, f"session-{session}", moment))
        session += 1
    return _shifted(items, base)


def beam_texts(base: datetime) -> list[MeasuredText]:
    """BEAM's messages, conversation after conversation, with their sessions and dates."""
    items = [
        (
            _cut(message["content"]),
            message["session_id"],
            datetime.fromisoformat(message["observed_at"].replace("Z", "+00:00")),
        )
        for conversation in _beam()
        for message in conversation["messages"]
        if message["content"].strip()
    ]
    return _shifted(items, base)


@cache
def pool() -> tuple[str, ...]:
    from data.corpus import memory_texts

    return tuple(memory_texts(POOL_SIZE, seed=POOL_SEED))


def offset(user_id: str) -> int:
    """Where in the pool a user's texts start."""
    return int(hashlib.sha256(user_id.encode()).hexdigest()[:12], 16) % POOL_SIZE


def pool_texts(user_id: str, start: int, end: int) -> list[str]:
    """The user's texts `start`..`end` (exclusive) of the pool: distinct for up to POOL_SIZE."""
    texts = pool()
    first = offset(user_id)
    return [texts[(first + i) % POOL_SIZE] for i in range(start, end)]


def large_count(size: int) -> int:
    return min(USER_CAP, int(size * LARGE_SHARE))


def background_user(rank: int) -> str:
    return f"{BACKGROUND_PREFIX}{rank:05d}"


def _zipf(scale: float) -> list[int]:
    sizes = []
    rank = 1
    while (count := int(scale / rank)) >= MIN_USER:
        sizes.append(min(USER_CAP, count))
        rank += 1
    return sizes


def background_sizes(budget: int) -> list[int]:
    """Memories per background user by rank (user k: C / k, capped, at least MIN_USER), C the
    largest that fits `budget`; what is left over goes one each to the first users below the
    cap. A larger budget gives every user at least as many (up to the remainder's one)."""
    if budget < MIN_USER:
        return []
    low, high = float(MIN_USER), float(budget)
    while high - low > 1e-3:
        middle = (low + high) / 2
        if sum(_zipf(middle)) <= budget:
            low = middle
        else:
            high = middle
    sizes = _zipf(low)
    left = budget - sum(sizes)
    for rank, count in enumerate(sizes):
        if left <= 0:
            break
        if count < USER_CAP:
            sizes[rank] += 1
            left -= 1
    return sizes


@dataclass(frozen=True)
class Plan:
    """How many memories each user holds at one size."""

    size: int
    small: int
    large: int
    background: list[int]  # by rank, from 1

    def targets(self) -> dict[str, int]:
        found = {SMALL_USER: self.small, LARGE_USER: self.large}
        found.update({background_user(k): n for k, n in enumerate(self.background, start=1)})
        return found


def plan(size: int, small: int) -> Plan:
    large = large_count(size)
    return Plan(size, small, large, background_sizes(max(0, size - small - large)))


def large_texts(base: datetime, count: int) -> list[str]:
    """The large user's first `count` texts: BEAM's messages, then pool texts."""
    beam = [item.content for item in beam_texts(base)]
    return beam[:count] + pool_texts(LARGE_USER, 0, max(0, count - len(beam)))


# ---------------------------------------------------------------------------------------------
# Queries


def questions() -> list[Question]:
    """Every distinct question of LoCoMo's development half (categories 1-4) and of BEAM's."""
    found: dict[str, Question] = {}
    for sample in _locomo():
        for qa in sample["qa"]:
            if qa["category"] in (1, 2, 3, 4):
                text = str(qa["question"]).strip()
                found.setdefault(text, Question(text, "locomo"))
    for conversation in _beam():
        for qa in conversation["questions"]:
            text = str(qa["question"]).strip()
            found.setdefault(text, Question(text, "beam"))
    return list(found.values())


def terms(text: str) -> set[str]:
    """A text's words as the full-text index holds them (its stop words aside)."""
    return {
        word
        for word in words(text)
        if word not in INDEX_STOP_WORDS and not re.fullmatch(r"_+", word)
    }


def _count(counter: Counter[str], texts: Iterable[str], times: int = 1) -> None:
    for text in texts:
        for term in terms(text):
            counter[term] += times


def document_frequency(size: int = QUERY_PLAN_SIZE) -> Counter[str]:
    """How many memories of the database at `size` hold each word (plan, not database: the
    same at every size measured)."""
    base = datetime(2026, 1, 1)
    small = small_texts(base)
    at = plan(size, len(small))
    counter: Counter[str] = Counter()
    _count(counter, (item.content for item in small))
    _count(counter, large_texts(base, at.large))
    # How many users hold each pool text: a difference array over the pool's ring.
    cover = [0] * (POOL_SIZE + 1)
    for rank, count in enumerate(at.background, start=1):
        first = offset(background_user(rank))
        end = first + count
        cover[first] += 1
        if end <= POOL_SIZE:
            cover[end] -= 1
        else:
            cover[POOL_SIZE] -= 1
            cover[0] += 1
            cover[end - POOL_SIZE] -= 1
    held = 0
    texts = pool()
    for index in range(POOL_SIZE):
        held += cover[index]
        if held:
            for term in terms(texts[index]):
                counter[term] += held
    return counter


@dataclass(frozen=True)
class QuerySets:
    rare: list[str]
    common: list[str]
    rest: list[str]  # the others, for warm-up
    postings: dict[str, int]  # each question's sum of its words' document frequencies


def query_sets(count: int = QUERY_SET) -> QuerySets:
    """The questions whose words the database holds least and most often: each question's cost
    is the sum of its words' document frequencies (the postings its full-text query walks);
    the `count` cheapest and dearest of those with two words or more."""
    frequency = document_frequency()
    scored = []
    for question in questions():
        found = terms(question.text)
        if len(found) >= 2:
            scored.append((sum(frequency[term] for term in found), question.text))
    scored.sort()
    rare = [text for _, text in scored[:count]]
    common = [text for _, text in scored[-count:]]
    chosen = set(rare) | set(common)
    return QuerySets(
        rare=rare,
        common=common,
        rest=[text for _, text in scored if text not in chosen],
        postings={text: cost for cost, text in scored},
    )


def describe(sets: QuerySets) -> dict[str, float]:
    """Median postings of each set, for the report."""

    def median(texts: list[str]) -> float:
        values = sorted(sets.postings[text] for text in texts)
        return float(values[len(values) // 2]) if values else math.nan

    return {"rare": median(sets.rare), "common": median(sets.common)}


def session_of(index: int) -> str:
    """A background memory's session: runs of 25 consecutive memories."""
    return f"session-{index // 25}"


def spread(moment: datetime, fraction: float, days: float = 30.0) -> datetime:
    """A time up to `days` before `moment` (fraction 0..1)."""
    return moment - timedelta(days=days * fraction)
