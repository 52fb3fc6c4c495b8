"""The outside quality datasets as memories to store and questions with their evidence.

- `locomo`: LoCoMo's development half (../shared/datasets/locomo, its README): one user per
  conversation, one memory per turn, `"<session date>: <speaker>: <text>"` (plus
  `[shares image: <caption>]`), one session per LoCoMo session, observed at its time; questions
  of categories 1-4 (5, the adversarial ones, have no evidence), asked at the last session's
  time.
- `beam`: BEAM's development set (../shared/datasets/beam, its README): one user per
  conversation, one memory per message, `"<role>: <content>"` cut to the service's 32 KiB,
  one session per batch, observed at the message's time. BEAM gives no date for its questions,
  and they speak from the time of the messages they probe ("how many hours did I study this
  week", of a February message in a conversation that runs to May): they carry no
  `asked_at`, so a relative time in them is read against the moment of asking, as a client
  without `reference_time` would have it.

Each memory carries its dataset key (`dia_id`, message id) so that results map back.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import common

SHARED = common.ROOT.parent / "shared" / "datasets"
PATHS = {
    "locomo": Path(os.environ.get("LOCOMO_PATH", SHARED / "locomo" / "locomo-dev.json")),
    "beam": Path(os.environ.get("BEAM_PATH", SHARED / "beam" / "beam-500k-dev.json")),
}
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MAX_CONTENT_BYTES = 32 * 1024
SESSION_TIME = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m) on (\d{1,2}) (\w+),? (\d{4})", re.I)
_MONTHS = "january february march april may june july august september october november december"
MONTHS = {name: number for number, name in enumerate(_MONTHS.split(), start=1)}


@dataclass(frozen=True)
class Item:
    """A memory to store: its dataset key, the user (conversation) it belongs to."""

    key: str
    owner: str
    content: str
    session_id: str
    observed_at: str


@dataclass(frozen=True)
class Question:
    owner: str
    text: str
    category: str
    evidence: frozenset[str]
    asked_at: str | None  # when the dataset dates its questions


@dataclass(frozen=True)
class Dataset:
    name: str
    memories: list[Item]
    questions: list[Question]
    categories: list[str]  # in the order tables show them

    def owners(self) -> list[str]:
        return list(dict.fromkeys(item.owner for item in self.memories))


def session_time(text: str) -> datetime:
    """A LoCoMo session time such as '1:56 pm on 8 May, 2023', in UTC."""
    match = SESSION_TIME.search(text)
    if match is None:
        raise ValueError(f"unreadable session time {text!r}")
    hour, minute, half, day, month, year = match.groups()
    hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), MONTHS[month.lower()], int(day), hour_24, int(minute), tzinfo=UTC)


def _locomo(path: Path) -> Dataset:
    memories: list[Item] = []
    questions: list[Question] = []
    for sample in json.loads(path.read_text()):
        owner = sample["sample_id"]
        conversation = sample["conversation"]
        session, last = 1, None
        known: set[str] = set()
        while f"session_{session}" in conversation:
            when = conversation[f"session_{session}_date_time"]
            last = session_time(when)
            for turn in conversation[f"session_{session}"]:
                content = f"{when}: {turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    content += f" [shares image: {turn['blip_caption']}]"
                memories.append(
                    Item(turn["dia_id"], owner, content, f"session-{session}", last.isoformat())
                )
                known.add(turn["dia_id"])
            session += 1
        assert last is not None
        for qa in sample["qa"]:
            if qa["category"] not in LOCOMO_CATEGORIES:
                continue
            # A few labels hold two ids in one string ("D8:6; D9:17").
            evidence = (
                frozenset(part for label in qa["evidence"] for part in re.split(r"[;,\s]+", label))
                & known
            )
            if evidence:
                category = LOCOMO_CATEGORIES[qa["category"]]
                questions.append(
                    Question(owner, str(qa["question"]), category, evidence, last.isoformat())
                )
    return Dataset("locomo", memories, questions, list(LOCOMO_CATEGORIES.values()))


def _cut(text: str) -> str:
    """The longest start of `text` within the service's content limit (whole characters)."""
    encoded = text.encode("utf-8")
    if len(encoded) <= MAX_CONTENT_BYTES:
        return text
    return encoded[:MAX_CONTENT_BYTES].decode("utf-8", errors="ignore")


def _beam(path: Path) -> Dataset:
    memories: list[Item] = []
    questions: list[Question] = []
    for conversation in json.loads(path.read_text())["conversations"]:
        owner = conversation["conv_id"]
        for message in conversation["messages"]:
            memories.append(
                Item(
                    str(message["id"]),
                    owner,
                    _cut(f"{message['role']}: {message['content']}"),
                    message["session_id"],
                    message["observed_at"],
                )
            )
        for question in conversation["questions"]:
            evidence = frozenset(str(i) for i in question["evidence"])
            if evidence:
                questions.append(
                    Question(owner, question["question"], question["type"], evidence, None)
                )
    categories = sorted({question.category for question in questions})
    return Dataset("beam", memories, questions, categories)


LOADERS = {"locomo": _locomo, "beam": _beam}


def load(name: str, conversations: int | None = None) -> Dataset:
    """The dataset, or only its first `conversations` conversations (memories and questions)."""
    data = LOADERS[name](PATHS[name])
    if conversations is None:
        return data
    kept = set(data.owners()[:conversations])
    return Dataset(
        data.name,
        [item for item in data.memories if item.owner in kept],
        [question for question in data.questions if question.owner in kept],
        data.categories,
    )
